/**
 * The language server's value provider for live data: what the daemon it follows knows (at the
 * socket, or over TLS: the same daemon as the editor's views), for
 * the pure service (`lsp/service`), behind a cache: queues, the project's objects, and the last
 * run of each workflow the file declares. Any failure — no daemon, a daemon that goes
 * away mid-request, an older daemon without `project.state` (MethodNotFound) — gives "no live
 * data" for that part, so the service skips its live checks rather than warning; nothing here
 * throws at a snapshot's caller.
 *
 * It connects lazily, retries now and then while documents are open (so lenses appear when a
 * daemon starts), and subscribes to job, queue and workflow run events: each one drops the cache and, after a
 * short pause (events come in bursts), calls `onChange` so the server refreshes lenses and
 * diagnostics.
 */
import { SpoolClient } from '../shared/client/client';
import { targetLabel, type TlsTarget } from '../shared/client/endpoint';
import { SpoolError, errorMessage } from '../shared/protocol/errors';
import type { LiveObject } from '../shared/jobsfile';
import { ErrorCode, type MethodName, type ParamsOf, type ResultOf } from '../shared/protocol';
import type { LiveData } from './service';
import type { WorkflowRun } from '../shared/protocol/workflows';

/** How long a snapshot is reused when no event says it changed (events may be missed). */
const CACHE_MS = 5000;
/** The pause after an event before `onChange` (a burst of job events gives one refresh). */
const CHANGE_DEBOUNCE_MS = 300;
/** At most one connection attempt this often while no daemon answers. */
const RETRY_MS = 2000;
/** Requests for live data give up after this: a hover must not hang on a stuck daemon. */
const REQUEST_TIMEOUT_MS = 3000;

/** Raised by `call` when no daemon answers: the message says what to do. */
export class NoDaemonError extends Error {
  constructor(where: DaemonTarget) {
    super(
      'problem' in where
        ? where.problem
        : 'tls' in where
          ? `The Spool daemon at ${targetLabel(where.tls)} does not answer: check that it runs there, and spool.endpoint.`
          : `No Spool daemon answers at ${where.socketPath}: start one with \`spool daemon --detach\`.`,
    );
  }
}

/**
 * The daemon the server follows: the one on this machine at a socket, one on another machine
 * over TLS (the editor's `spool.endpoint`, or SPOOL_ENDPOINT), or none, with why (a remote
 * daemon named without its token, say).
 */
export type DaemonTarget = { socketPath: string } | { tls: TlsTarget } | { problem: string };

/** How messages and lenses name a target. */
export function daemonLabel(where: DaemonTarget): string {
  return 'tls' in where ? targetLabel(where.tls) : 'socketPath' in where ? where.socketPath : 'no daemon';
}

export interface DaemonDataOptions {
  target: DaemonTarget;
  /** Called (debounced) when the daemon's data changed or it came or went. */
  onChange: () => void;
  /** A line for the server's log. */
  log: (message: string) => void;
}

/** See the module comment. */
export class DaemonData {
  private client: SpoolClient | null = null;
  private connecting: Promise<SpoolClient | null> | null = null;
  private lastAttempt = 0;
  private queues: { at: number; value: LiveData['queues'] } | null = null;
  private readonly states = new Map<string, { at: number; value: readonly LiveObject[] | undefined }>();
  /** False once the daemon answered MethodNotFound to `project.state`; reset per connection. */
  private hasProjectState = true;
  /** The last run of each workflow asked about, by name (null: it never ran). */
  private readonly runs = new Map<string, { at: number; value: WorkflowRun | null }>();
  /** False once the daemon answered MethodNotFound to `workflows.runs`; reset per connection. */
  private hasWorkflowRuns = true;
  private changeTimer: NodeJS.Timeout | null = null;
  private readonly retryTimer: NodeJS.Timeout;
  private disposed = false;
  /** Why the last connection attempt failed, so a reason is logged once. */
  private lastRefusal = '';

  constructor(private readonly options: DaemonDataOptions) {
    // A daemon that starts after the editor: try now and then, and refresh once it answers.
    this.retryTimer = setInterval(() => {
      if (this.client === null && this.connecting === null) void this.connect();
    }, RETRY_MS * 2);
    this.retryTimer.unref();
  }

  /** The daemon followed, as messages name it: `tls://host:port`, or the socket's path. */
  get label(): string {
    return daemonLabel(this.options.target);
  }

  /** True when the daemon followed is on another machine. */
  get remote(): boolean {
    return 'tls' in this.options.target;
  }

  /**
   * What the daemon knows for a file of `project` (undefined: no project yet) declaring
   * `workflows`. Never throws.
   */
  async snapshot(project: string | undefined, workflows: readonly string[] = []): Promise<LiveData> {
    const client = await this.connect();
    if (client === null) return {};
    const now = Date.now();
    const out: LiveData = 'tls' in this.options.target ? { remote: this.label } : {};
    try {
      if (this.queues === null || now - this.queues.at > CACHE_MS) {
        const result = await client.call('queues.list', undefined, { timeoutMs: REQUEST_TIMEOUT_MS });
        this.queues = { at: now, value: result.queues.map((q) => ({ name: q.name, counts: q.counts, delayed: q.delayed })) };
      }
      if (this.queues.value !== undefined) out.queues = this.queues.value;
    } catch (error) {
      this.failed('queues.list', error);
      return {};
    }
    if (project !== undefined && project !== '' && this.hasProjectState) {
      const objects = await this.projectState(client, project, now);
      if (objects !== undefined) out.objects = objects;
    }
    if (workflows.length > 0 && this.hasWorkflowRuns) {
      const lastRuns = await this.lastRuns(client, workflows, now);
      if (lastRuns !== undefined) out.lastRuns = lastRuns;
    }
    return out;
  }

  /** The last run of each of `workflows` that has run; undefined when the daemon cannot say. */
  private async lastRuns(client: SpoolClient, workflows: readonly string[], now: number): Promise<ReadonlyMap<string, WorkflowRun> | undefined> {
    const out = new Map<string, WorkflowRun>();
    try {
      for (const name of workflows) {
        let cached = this.runs.get(name);
        if (cached === undefined || now - cached.at > CACHE_MS) {
          const result = await client.call('workflows.runs', { workflow: name, limit: 1 }, { timeoutMs: REQUEST_TIMEOUT_MS });
          cached = { at: now, value: result.runs[0] ?? null };
          this.runs.set(name, cached);
        }
        if (cached.value !== null) out.set(name, cached.value);
      }
      return out;
    } catch (error) {
      if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) {
        // A daemon without workflow runs: no counts on the lenses. Not an error.
        this.hasWorkflowRuns = false;
        return undefined;
      }
      this.failed('workflows.runs', error);
      return undefined;
    }
  }

  private async projectState(client: SpoolClient, project: string, now: number): Promise<readonly LiveObject[] | undefined> {
    const cached = this.states.get(project);
    if (cached !== undefined && now - cached.at <= CACHE_MS) return cached.value;
    try {
      const result = await client.callUnchecked('project.state', { project }, { timeoutMs: REQUEST_TIMEOUT_MS });
      const objects = typeof result === 'object' && result !== null && 'objects' in result && Array.isArray(result.objects) ? (result.objects as LiveObject[]) : undefined;
      this.states.set(project, { at: now, value: objects });
      return objects;
    } catch (error) {
      if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) {
        // An older daemon: no project state, so no drift, no Apply lens. Not an error.
        this.hasProjectState = false;
        return undefined;
      }
      this.failed('project.state', error);
      return undefined;
    }
  }

  /** A typed call for a command; throws NoDaemonError when no daemon answers. */
  async call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    const client = await this.connect(true);
    if (client === null) throw new NoDaemonError(this.options.target);
    return client.call(method, params);
  }

  /** A call of a method this build's protocol table may not have yet (`project.apply`). */
  async callUnchecked(method: string, params: unknown): Promise<unknown> {
    const client = await this.connect(true);
    if (client === null) throw new NoDaemonError(this.options.target);
    return client.callUnchecked(method, params);
  }

  /** Drop cached data (after a command changed the daemon). */
  invalidate(): void {
    this.queues = null;
    this.states.clear();
    this.runs.clear();
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.retryTimer);
    if (this.changeTimer !== null) clearTimeout(this.changeTimer);
    this.client?.close();
    this.client = null;
  }

  /** The connected client, or null when no daemon answers (attempts are spaced unless `now`). */
  private async connect(now = false): Promise<SpoolClient | null> {
    if (this.client !== null) return this.client;
    if (this.disposed || 'problem' in this.options.target) return null;
    if (this.connecting !== null) return this.connecting;
    if (!now && Date.now() - this.lastAttempt < RETRY_MS) return null;
    this.lastAttempt = Date.now();
    this.connecting = this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<SpoolClient | null> {
    const target = this.options.target;
    if ('problem' in target) return null;
    let client: SpoolClient;
    try {
      // A daemon over TLS logs in with the token as it connects (a refused token fails here).
      client = await SpoolClient.connect({ ...target, connectTimeoutMs: 'tls' in target ? 5000 : 1000, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    } catch (error) {
      // Said once, not at every attempt.
      const reason = errorMessage(error);
      if ('tls' in target && reason !== this.lastRefusal) this.failed(`Connecting to ${this.label}`, error);
      this.lastRefusal = reason;
      return null;
    }
    if (this.disposed) {
      client.close();
      return null;
    }
    client.onClose(() => {
      if (this.client !== client) return;
      this.options.log(`The daemon at ${this.label} went away: live data is off until it answers again.`);
      this.client = null;
      this.invalidate();
      this.changed();
    });
    this.client = client;
    this.lastRefusal = '';
    this.hasProjectState = true;
    this.hasWorkflowRuns = true;
    this.invalidate();
    this.options.log(`Connected to the daemon at ${this.label}.`);
    try {
      await client.subscribe(
        { topics: ['jobs', 'queues', 'workflows'] },
        { 'jobs.changed': () => this.eventArrived(), 'queues.changed': () => this.eventArrived(), 'workflows.changed': () => this.eventArrived() },
      );
    } catch (error) {
      // Without events the cache still expires: lenses are a few seconds late, not wrong.
      this.options.log(`Could not subscribe to the daemon's events: ${errorMessage(error)}`);
    }
    this.changed();
    return this.client;
  }

  private eventArrived(): void {
    this.invalidate();
    this.changed();
  }

  private changed(): void {
    if (this.changeTimer !== null || this.disposed) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = null;
      this.options.onChange();
    }, CHANGE_DEBOUNCE_MS);
  }

  private failed(method: string, error: unknown): void {
    this.options.log(`${method} failed: ${errorMessage(error)} (live data skipped)`);
  }
}
