/**
 * The daemon's settings. They are declared in shared/client/daemonOptions.ts, and the flags that set
 * them in shared/client/daemonFlags.ts, because the CLI starts the daemon program with the same
 * options without importing the daemon; the daemon's modules keep importing them from here.
 */
export * from '../shared/client/daemonOptions';
export * from '../shared/client/daemonFlags';
