/**
 * The daemon's settings. They are declared in shared/daemon-options.ts, and the flags that set
 * them in shared/daemon-flags.ts, because the CLI starts the daemon program with the same
 * options without importing the daemon; the daemon's modules keep importing them from here.
 */
export * from '../shared/daemon-options';
export * from '../shared/daemon-flags';
