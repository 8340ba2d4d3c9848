/**
 * The numbers of Spool's wire contract that are not methods: the protocol version, the limits
 * the daemon enforces, the name pattern, and the error codes with their `data`. The OpenRPC
 * generator reads the doc comments of `ErrorCode` as the errors' descriptions.
 */
import type { JobState } from './types';

/** Bumped on any incompatible change; clients compare it with `daemon.status`. */
export const PROTOCOL_VERSION = 1;

/** Limits the daemon enforces; errors name them, and the README lists them. */
export const LIMITS = {
  /** A single request line, in bytes. Longer lines get an error and the connection is closed. */
  maxLineBytes: 16 * 1024 * 1024,
  /** A job's payload, serialized as JSON, in bytes. Also result and checkpoint. */
  maxPayloadBytes: 1024 * 1024,
  /** Queue, kind, worker id, schedule name: 1..128 chars of [A-Za-z0-9._:-], first alphanumeric. */
  maxNameLength: 128,
  maxTags: 32,
  maxTagLength: 64,
  maxIdempotencyKeyLength: 256,
  /** Priority is an integer in [-1000, 1000]; higher runs first. */
  minPriority: -1000,
  maxPriority: 1000,
  maxAttempts: 1000,
  /** Lease length (timeoutMs): 100 ms .. 7 days. */
  minTimeoutMs: 100,
  maxTimeoutMs: 7 * 24 * 3600 * 1000,
  /** delayMs, backoff base/cap, retention: up to 10 years. */
  maxDurationMs: 10 * 365 * 24 * 3600 * 1000,
  /** A job's weight: 1..1000, default 1 (see Job.weight). */
  maxWeight: 1000,
  /** A job's group key (Job.group): 1..128 characters of letters, digits and `:._-@/`. */
  maxGroupLength: 128,
  /** A queue's fairness weights (groupWeights): at most this many groups named, each weight 1..1000. */
  maxGroupWeights: 1000,
  /** A worker's capacity (workers.register): 1..100,000 of job weight. */
  maxCapacity: 100_000,
  /** jobs.enqueueBatch, jobs.claim's max, bulk ids. */
  maxBatch: 1000,
  /** A job's dependsOn: the jobs it waits for (a fan-in of 10,000 is one job). */
  maxDependencies: 10_000,
  /** The dependents jobs.get lists (the first ones, oldest first); Job.dependents counts them all. */
  maxListedDependents: 1000,
  /** jobs.list and jobs.output page size. */
  maxPageSize: 1000,
  /** Long-poll wait of jobs.claim. */
  maxWaitMs: 60_000,
  /** Output kept per job; older lines are dropped with a marker line. */
  maxOutputLinesPerJob: 10_000,
  maxOutputLineBytes: 8 * 1024,
  /** A text search string. */
  maxSearchLength: 256,
  /** The shortest id suffix `jobs.list` accepts: fewer characters name too many jobs to be of use. */
  minIdSuffixLength: 4,
} as const;

/**
 * The bounds of a shell job's or a queue's resource limits (ResourceLimits). The smallest are
 * what `/bin/sh` itself needs to start (a shell in 1 MiB of address space cannot even load its
 * libraries); the largest are far beyond any machine, there only to keep the numbers exact.
 */
export const RESOURCE_LIMIT_RANGES = {
  memoryBytes: { min: 16 * 1024 * 1024, max: 2 ** 50 },
  cpuSeconds: { min: 1, max: 366 * 86_400 },
  openFiles: { min: 4, max: 1_048_576 },
  processes: { min: 1, max: 4_194_304 },
} as const;

/** The regular expression names (queue, kind, schedule, worker id) must match. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Error codes. The JSON-RPC standard ones, then Spool's own (outside the reserved
 * -32768..-32000 range). Every error's `data` is an `ErrorData`.
 */
export const ErrorCode = {
  /** The line is not valid JSON. */
  ParseError: -32700,
  /** The message is not a JSON-RPC 2.0 request (or a batch is empty or too long). */
  InvalidRequest: -32600,
  /** No method by that name. data.field */
  MethodNotFound: -32601,
  /** A param is missing, unknown, of the wrong type or out of range. data.field, data.allowed */
  InvalidParams: -32602,
  /** The daemon failed unexpectedly; its log has the details. */
  InternalError: -32603,

  /** No job with that id. data.id */
  JobNotFound: 1001,
  /** No queue with that name. data.queue */
  QueueNotFound: 1002,
  /** No schedule with that name. data.schedule */
  ScheduleNotFound: 1003,
  /** No worker with that id. data.workerId */
  WorkerNotFound: 1004,
  /** No template with that name (templates come from a jobs file's apply). data.template */
  TemplateNotFound: 1005,
  /** No workflow with that name (workflows come from a jobs file's apply). data.workflow */
  WorkflowNotFound: 1006,
  /** No workflow run with that id. data.id */
  WorkflowRunNotFound: 1007,
  /** The job's state does not allow the action (retry a running job, update a finished one). data.id, data.state */
  InvalidState: 1010,
  /** The caller does not hold the job's lease (it expired, or another worker claimed it). data.id, data.workerId */
  LeaseLost: 1011,
  /** A payload, result or checkpoint is over its size limit. data.field, data.limit */
  PayloadTooLarge: 1012,
  /** A schedule with that name exists already. data.schedule */
  AlreadyExists: 1013,
  /** The daemon is shutting down and takes no new work. */
  ShuttingDown: 1020,
  /**
   * The store has no room to write (the disk holding the database is full): nothing of the
   * request was stored. Free space, then send it again. Reads keep working.
   */
  StorageFull: 1021,
  /**
   * The daemon cannot reach its store (PostgreSQL is down or unreachable): nothing of the request
   * was stored. The daemon reconnects by itself; send the request again shortly. data.store, data.location
   */
  StoreUnavailable: 1022,
  /**
   * The connection may not call the method: its token's scope does not allow it (data.scope,
   * data.allowed), or the method works only over the Unix socket. The daemon also refuses to
   * start with it when its socket path is taken, and clients refuse a socket that belongs to
   * another user or sits in a folder others can write (data.field).
   */
  Forbidden: 1030,
  /** Over TCP, the connection has not logged in (auth.login), or its token is wrong. */
  Unauthorized: 1031,
} as const;
/** Any of the codes above. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The `data` of every Spool error: which field or id is at fault, and what is allowed. */
export interface ErrorData {
  /** The param at fault, as a path (`jobs[2].payload`). */
  field?: string;
  /** What the field accepts, in words. */
  allowed?: string;
  /** The job at fault. */
  id?: string;
  queue?: string;
  schedule?: string;
  /** The template at fault (templates.get, templates.enqueue). */
  template?: string;
  /** The workflow at fault (workflows.run). */
  workflow?: string;
  /** The project whose apply was refused. */
  project?: string;
  workerId?: string;
  /** The job's state when that state refused the action. */
  state?: JobState;
  /** The limit that was exceeded. */
  limit?: number;
  /** The store that could not be reached (StoreUnavailable): 'postgres'. */
  store?: string;
  /** Where that store is, without credentials (StoreUnavailable). */
  location?: string;
  /** The scope of the connection's token when that scope refused the method (Forbidden). */
  scope?: 'admin' | 'worker' | 'read';
}

