/** Spool's version, injected by esbuild from package.json; "dev" when run from source. */
declare const SPOOL_VERSION: string | undefined;

export const VERSION: string = typeof SPOOL_VERSION === 'string' ? SPOOL_VERSION : 'dev';
