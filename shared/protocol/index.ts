/**
 * Spool's wire protocol: JSON-RPC 2.0, one message per line, over a Unix socket.
 *
 * Every method is declared once, in the table of `methods.ts` — its literal name, its params and
 * result, who calls it, whether its writes are group-committed — and the daemon, the CLI, the
 * extension and the tests all import this folder, so a protocol change breaks the build rather
 * than a user. The parts:
 *
 * - `limits.ts`: the protocol version, limits, name pattern and error codes;
 * - `messages.ts`: the params and results;
 * - `methods.ts`: the method table, and what derives from it (`METHOD_NAMES`, `Methods`, …);
 * - `notifications.ts`: what the daemon pushes to subscribers, in a table of its own;
 * - `define.ts`: how an entry of either table is declared.
 */
export * from './define';
export * from './limits';
export * from './messages';
export * from './methods';
export * from './notifications';

export type { RateLimit, ResourceLimits } from './types';
export * from './projects';
export * from './workflows';
