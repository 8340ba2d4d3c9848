/**
 * How a method or a notification is declared once, as a value with its types attached, in the
 * manner of vscode-eslint's `RequestType<P, R>`: the value carries what exists at run time (the
 * name, who calls it, whether its writes are group-committed, its documentation), and a phantom
 * property carries the params and result types, which exist only for the compiler. Everything
 * else — the method list, the handler table's type, the client's typed `call`, the docs check
 * and the OpenRPC document — is derived from the tables built with these helpers.
 */
import type { ErrorCode } from './limits';

/** The phantom key: never set at run time, read only by the types below. */
declare const types: unique symbol;

/**
 * Who calls a method. `client`: a program managing the queue (the CLI, the extension, a script).
 * `worker`: a worker, about itself or a job whose lease it holds (anyone else gets `LeaseLost`).
 * `both`: clients and workers alike (the handshake, enqueueing, reading a job).
 */
export type Caller = 'client' | 'worker' | 'both';

/** The name of a Spool error, as `ErrorCode` spells it. */
export type ErrorName = keyof typeof ErrorCode;

/**
 * Who may call a method over TCP (`spool daemon --listen`), by the scope of the token the
 * connection logged in with: `read` only reads, `worker` also enqueues and works jobs, `admin`
 * may do everything but `local`. `local`: only over the Unix socket (token management, backups).
 * `public`: before logging in (the login itself). Over the Unix socket everything is allowed.
 */
export type MethodScope = 'public' | 'read' | 'worker' | 'admin' | 'local';

/** What a method's entry in the table holds at run time. */
export interface MethodInfo {
  readonly caller: Caller;
  /** Who may call it over TCP: see MethodScope. */
  readonly scope: MethodScope;
  /**
   * True when the method's engine writes go through the group commit: requests that arrive
   * together share one transaction. Any other method first commits the pending group, so that
   * requests keep their order.
   */
  readonly grouped: boolean;
  /** One line: what the method does. */
  readonly summary: string;
  /** More, when one line is not enough. */
  readonly description?: string;
  /** The Spool errors the method answers with, besides the ones any method may (InternalError, ShuttingDown). */
  readonly errors: readonly ErrorName[];
}

/** What a notification's entry holds at run time. */
export interface NotificationInfo {
  /**
   * The `events.subscribe` topic that brings it. Any word: the topics a subscription may ask for
   * are the ones the notifications table names (EVENT_TOPICS in notifications.ts).
   */
  readonly topic: string;
  readonly summary: string;
  readonly description?: string;
}

/** The compile-time half of a method's entry. */
export interface MethodTypes<P, R> {
  readonly [types]?: { readonly params: P; readonly result: R };
}

/** The compile-time half of a notification's entry. */
export interface NotificationTypes<P> {
  readonly [types]?: { readonly params: P };
}

/**
 * Declares a method: `method<Params, Result>()({ caller, grouped, summary, errors })`. The two
 * calls let the types be given while the entry's own fields stay literal (so `grouped: true`
 * is known to the compiler as `true`).
 */
export function method<P, R>(): <const I extends MethodInfo>(info: I) => I & MethodTypes<P, R> {
  return (info) => info;
}

/** Declares a notification: `notification<Params>()({ topic, summary })`. */
export function notification<P>(): <const I extends NotificationInfo>(info: I) => I & NotificationTypes<P> {
  return (info) => info;
}

/** `{ params, result }` of a method entry built by `method`. */
export type TypesOfMethod<E> = E extends MethodTypes<infer P, infer R> ? { params: P; result: R } : never;

/** The params of a notification entry built by `notification`. */
export type ParamsOfNotification<E> = E extends NotificationTypes<infer P> ? P : never;

/** The keys of a table, in their declared order, typed as the table's names. */
export function namesOf<T extends object>(table: T): readonly (keyof T & string)[] {
  // Object.keys is typed string[] because an object may hold more keys than its type says; a
  // table declared as a literal here holds exactly its own.
  return Object.keys(table) as (keyof T & string)[];
}
