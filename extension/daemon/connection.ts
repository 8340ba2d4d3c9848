/**
 * The extension's link to the daemon: connects (starting the daemon when allowed), checks the
 * protocol version, subscribes to events, follows the client's reconnects, and tells the rest
 * of the extension what happened through events. Everything else asks `client()` for the
 * connected client and never dials the socket itself.
 *
 * Two lifetimes, as in rust-analyzer's extension: the connection's emitters live as long as the
 * extension; each adopted client lives in a `ClientScope` with the listeners registered on it,
 * and everything in the scope is disposed when the client is dropped.
 */
import * as vscode from 'vscode';
import { DaemonNotRunningError, ProtocolMismatchError, SpoolClient } from '../../shared/client/client';
import type { TlsTarget } from '../../shared/client/endpoint';
import { isSpoolError } from '../../shared/protocol/errors';
import { ErrorCode, type DaemonStatus, type JobChangedEvent, type QueueChangedEvent, type ScheduleChangedEvent, type Stats, type WorkflowChangedEvent } from '../../shared/protocol';
import { editorMessage } from '../errors';
import { readSettings, type SpoolSettings } from '../settings';
import { ClientScope } from './clientScope';
import { launchDaemon } from './launcher';
import { RemoteSettingsError, remoteTarget, tokenKey } from './remote';
import { mayEnqueue, mayManage, scopeLimit, type WindowScope } from './tokenScope';
import { errorMessage } from '../../shared/protocol/errors';

/**
 * `connecting`: dialling. `starting`: launching a daemon. `connected`: requests flow.
 * `reconnecting`: the daemon went away and the client keeps dialling. `disconnected`: no daemon
 * and none is being started (also when a daemon went away and nothing has listened at its
 * socket for `GONE_AFTER_MS`). `mismatch`: a daemon of another protocol version answers.
 */
export type ConnectionStateName = 'connecting' | 'starting' | 'connected' | 'reconnecting' | 'disconnected' | 'mismatch';

/**
 * How long the extension waits for a daemon that went away, while nothing listens at its socket,
 * before it takes the daemon for stopped: a restarting daemon is back well within this; one
 * stopped by another window or by `spool daemon stop` is not coming back.
 */
export const GONE_AFTER_MS = 5000;

/**
 * Connecting or starting the daemon failed, and the user has been told already (with Show Log
 * and Open Settings); a command that runs into it must not show it a second time.
 */
export class ConnectFailedError extends Error {
  override readonly name = 'ConnectFailedError';
}

export class NotConnectedError extends Error {
  constructor(state: ConnectionStateName) {
    super(
      state === 'reconnecting'
        ? 'Spool is reconnecting to its daemon. Try again in a moment.'
        : 'Spool is not connected to a daemon. Run "Spool: Start Daemon" first.',
    );
  }
}

export class DaemonConnection implements vscode.Disposable {
  /** The adopted client and what is registered on it; null while there is none. */
  private current: ClientScope | null = null;
  private scopeNow: WindowScope = null;
  private stateName: ConnectionStateName = 'connecting';
  private lastStatus: DaemonStatus | null = null;
  private lastStats: Stats | null = null;
  private connectToken = 0;
  /** Set while the client is reconnecting: checks whether the daemon was stopped for good. */
  private goneTimer: NodeJS.Timeout | null = null;
  /** What lives as long as the extension (the emitters). */
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<ConnectionStateName>();
  private readonly jobEmitter = new vscode.EventEmitter<JobChangedEvent>();
  private readonly queueEmitter = new vscode.EventEmitter<QueueChangedEvent>();
  private readonly scheduleEmitter = new vscode.EventEmitter<ScheduleChangedEvent>();
  private readonly workflowEmitter = new vscode.EventEmitter<WorkflowChangedEvent>();
  private readonly statsEmitter = new vscode.EventEmitter<Stats>();
  private readonly connectedEmitter = new vscode.EventEmitter<SpoolClient>();

  readonly onDidChangeState = this.stateEmitter.event;
  readonly onJobChanged = this.jobEmitter.event;
  readonly onQueueChanged = this.queueEmitter.event;
  readonly onScheduleChanged = this.scheduleEmitter.event;
  /** A workflow run started, changed its counts or state, or ended. */
  readonly onWorkflowChanged = this.workflowEmitter.event;
  readonly onStats = this.statsEmitter.event;
  /** Fired on the first connection and after every reconnect: re-read whatever is shown. */
  readonly onDidConnect = this.connectedEmitter.event;

  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    /** Where the access token of a remote daemon (`spool.endpoint`) is kept. */
    private readonly secrets: vscode.SecretStorage,
  ) {
    this.disposables.push(this.stateEmitter, this.jobEmitter, this.queueEmitter, this.scheduleEmitter, this.workflowEmitter, this.statsEmitter, this.connectedEmitter);
  }

  /** The remote daemon's endpoint (`spool.endpoint`), or null for the local one. */
  get endpoint(): string | null {
    const endpoint = readSettings().endpoint;
    return endpoint === '' ? null : endpoint;
  }

  /** Which daemon this window shows, in words: the endpoint, or the local socket. */
  get daemonLabel(): string {
    return this.endpoint ?? readSettings().socketPath;
  }

  get state(): ConnectionStateName {
    return this.stateName;
  }

  get status(): DaemonStatus | null {
    return this.lastStatus;
  }

  get stats(): Stats | null {
    return this.lastStats;
  }

  /** The connected client; throws an error that says what to do when there is none. */
  client(): SpoolClient {
    return this.connectedScope().client;
  }

  private connectedScope(): ClientScope {
    if (this.current === null || this.stateName !== 'connected') throw new NotConnectedError(this.stateName);
    return this.current;
  }

  /**
   * Connect to the daemon at the configured socket. When nothing answers and `autoStart` is
   * true, start the bundled daemon with progress shown, and connect to it.
   */
  async connect(autoStart: boolean): Promise<void> {
    const token = ++this.connectToken;
    this.dropClient();
    const settings = readSettings();
    this.setState('connecting');
    if (settings.endpoint !== '') return this.connectRemote(token, settings);
    this.log.info(`Connecting to the daemon at ${settings.socketPath}`);
    let client: SpoolClient;
    try {
      client = await SpoolClient.connect({ socketPath: settings.socketPath, reconnect: true });
    } catch (error) {
      if (!(error instanceof DaemonNotRunningError)) throw this.fail(error);
      if (!autoStart) {
        this.log.info(`No daemon answers at ${settings.socketPath}.`);
        this.setState('disconnected');
        return;
      }
      client = await this.startAndConnect(settings.socketPath);
    }
    if (token !== this.connectToken) {
      client.close();
      return;
    }
    await this.adopt(client);
  }

  /**
   * A daemon on another machine (`spool.endpoint`), over TLS, with the token from secret storage.
   * It is never started from here; what is missing (a token, a way to check the server) is said
   * once, with the command or the settings that fix it.
   */
  private async connectRemote(token: number, settings: SpoolSettings): Promise<void> {
    this.log.info(`Connecting to the remote daemon at ${settings.endpoint}`);
    let target: TlsTarget;
    try {
      target = remoteTarget(settings, await this.secrets.get(tokenKey(settings.endpoint)));
    } catch (error) {
      if (!(error instanceof RemoteSettingsError)) throw this.fail(error);
      this.log.warn(error.message);
      this.setState('disconnected');
      this.offerFix(error.message, error.fix);
      return;
    }
    let client: SpoolClient;
    try {
      client = await SpoolClient.connect({ tls: target, reconnect: true });
    } catch (error) {
      if (isSpoolError(error) && error.code === ErrorCode.Unauthorized) {
        const message = `The daemon at ${settings.endpoint} refused the access token: ${error.message}`;
        this.log.warn(message);
        this.setState('disconnected');
        this.offerFix(message, 'token');
        return;
      }
      throw this.fail(error);
    }
    if (token !== this.connectToken) {
      client.close();
      return;
    }
    await this.adopt(client);
  }

  /** What the token of the daemon shown lets this window do: null over the Unix socket (everything). */
  get tokenScope(): WindowScope {
    return this.scopeNow;
  }

  /** Menus hide what the token cannot do (see daemon/tokenScope.ts); the log says why. */
  private showTokenScope(scope: WindowScope): void {
    this.scopeNow = scope;
    void vscode.commands.executeCommand('setContext', 'spool.cannotEnqueue', !mayEnqueue(scope));
    void vscode.commands.executeCommand('setContext', 'spool.cannotManage', !mayManage(scope));
    const limit = scopeLimit(scope);
    if (limit !== null) this.log.info(`${limit}: the actions it cannot do are hidden.`);
  }

  private offerFix(message: string, fix: 'token' | 'settings'): void {
    const action = fix === 'token' ? 'Set Access Token' : 'Open Settings';
    void vscode.window.showWarningMessage(message, action).then((choice) => {
      if (choice === 'Set Access Token') void vscode.commands.executeCommand('spool.endpoint.setToken');
      else if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'spool.');
    });
  }

  /** Says that a remote daemon is started and stopped on its own machine; true when it is remote. */
  private refuseRemote(what: string): boolean {
    const endpoint = this.endpoint;
    if (endpoint === null) return false;
    void vscode.window.showInformationMessage(`The Spool daemon this window shows runs on another machine (${endpoint}): ${what} it there, with \`spool daemon\`. To use a daemon on this machine, clear the setting spool.endpoint.`);
    return true;
  }

  /** Start the bundled daemon (if none answers) and connect to it; a remote one is only connected to. */
  async start(): Promise<void> {
    if (this.stateName === 'connected') return;
    if (this.refuseRemote('start')) {
      await this.connect(false);
      return;
    }
    await this.connect(true);
  }

  /** Ask the daemon to shut down gracefully and stay disconnected. */
  async stop(): Promise<void> {
    if (this.refuseRemote('stop')) return;
    const scope = this.connectedScope();
    this.connectToken++;
    this.current = null;
    this.setState('disconnected');
    try {
      await scope.client.call('daemon.shutdown');
      this.log.info('Asked the daemon to shut down.');
    } finally {
      scope.dispose();
    }
  }

  /** Stop the daemon (whatever protocol it speaks), wait until its socket is gone, start a new one. */
  async restart(): Promise<void> {
    if (this.refuseRemote('restart')) return;
    const socketPath = readSettings().socketPath;
    this.connectToken++;
    this.dropClient();
    this.setState('starting');
    let old: SpoolClient | null = null;
    try {
      old = await SpoolClient.connect({ socketPath });
    } catch (error) {
      if (!(error instanceof DaemonNotRunningError)) throw this.fail(error);
    }
    if (old !== null) {
      const client = old;
      try {
        await client.call('daemon.shutdown');
        await waitUntil(() => client.isClosed, 30_000, `the daemon at ${socketPath} to shut down`);
        await waitUntil(async () => !(await answers(socketPath)), 30_000, `the socket ${socketPath} to be released`);
      } catch (error) {
        throw this.fail(new Error(`Could not stop the running daemon: ${errorMessage(error)}. Stop it with \`spool daemon stop\` and start again.`));
      } finally {
        client.close();
      }
    }
    await this.connect(true);
  }

  private async startAndConnect(socketPath: string): Promise<SpoolClient> {
    this.setState('starting');
    this.log.info(`No daemon answers at ${socketPath}; starting the bundled one.`);
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Starting the Spool daemon…' },
      async () => {
        try {
          const result = await launchDaemon(this.extensionPath, readSettings(), () => answers(socketPath));
          if (result.output.trim() !== '') this.log.info(result.output.trim());
          return await SpoolClient.connect({ socketPath, reconnect: true });
        } catch (error) {
          throw this.fail(error);
        }
      },
    );
  }

  private async adopt(client: SpoolClient): Promise<void> {
    let status: DaemonStatus;
    try {
      status = await client.handshake();
    } catch (error) {
      client.close();
      if (error instanceof ProtocolMismatchError) return this.mismatch(error);
      throw this.fail(error);
    }
    const scope = new ClientScope(client, this.log);
    this.current = scope;
    this.lastStatus = status;
    this.showTokenScope(client.tokenScope);
    this.log.info(`Connected to Spool ${status.version} at ${this.daemonLabel} (pid ${status.pid}, database ${status.dbPath}).`);
    scope.addCleanup(
      client.onStateChange((state, error) => {
        if (scope !== this.current) return;
        if (state === 'disconnected') {
          if (this.stateName !== 'reconnecting') this.log.warn(`Lost the daemon${error ? `: ${error.message}` : ''}; reconnecting.`);
          this.setState('reconnecting');
          // A remote daemon cannot be probed or started from here: the client keeps dialling it.
          if (this.endpoint === null) this.watchForGone(scope);
        } else if (state === 'connected') {
          this.clearGoneTimer();
          this.log.info('Reconnected to the daemon.');
          void this.afterConnect(scope);
        } else {
          this.release(scope);
          this.setState('disconnected');
        }
      }),
    );
    try {
      // The client re-subscribes by itself after a reconnect.
      const subscription = await client.subscribe(
        { topics: ['jobs', 'queues', 'stats'] },
        {
          'jobs.changed': (event) => this.jobEmitter.fire(event),
          'queues.changed': (event) => this.queueEmitter.fire(event),
          'stats.changed': (event) => this.updateStats(event.stats),
        },
      );
      // Schedules on a subscription of their own: a daemon from before `schedules.changed`
      // refuses the topic, and the Schedules view then still follows `stats.changed`.
      const schedules = await client
        .subscribe({ topics: ['schedules'] }, { 'schedules.changed': (event) => this.scheduleEmitter.fire(event) })
        .catch((error: unknown) => {
          this.log.warn(`The daemon sends no schedule events (${errorMessage(error)}); the Schedules view follows job counts instead.`);
          return null;
        });
      if (schedules) scope.addCleanup(() => schedules.unsubscribe().catch((error: unknown) => this.log.warn(`Ending the schedule subscription failed: ${errorMessage(error)}`)));
      // Workflow runs likewise: a daemon without workflows refuses the topic, and the Workflows
      // view and the graph pages then follow the jobs' own events.
      const workflows = await client
        .subscribe({ topics: ['workflows'] }, { 'workflows.changed': (event) => this.workflowEmitter.fire(event) })
        .catch((error: unknown) => {
          this.log.warn(`The daemon sends no workflow events (${errorMessage(error)}); workflow runs follow their jobs' events instead.`);
          return null;
        });
      if (workflows) scope.addCleanup(() => workflows.unsubscribe().catch((error: unknown) => this.log.warn(`Ending the workflow subscription failed: ${errorMessage(error)}`)));
      // The scope closes the client before this runs, so no request goes out: the handlers are
      // let go of.
      scope.addCleanup(() =>
        subscription.unsubscribe().catch((error: unknown) => this.log.warn(`Ending the event subscription failed: ${errorMessage(error)}`)),
      );
    } catch (error) {
      this.release(scope);
      throw this.fail(error);
    }
    await this.afterConnect(scope);
  }

  /** Drops `scope`'s client (if it is still the current one) and everything registered on it. */
  private release(scope: ClientScope): void {
    if (this.current === scope) this.current = null;
    scope.dispose();
  }

  /** After a connect or a reconnect: check the version (a restarted daemon may be another release), read the counts. */
  private async afterConnect(scope: ClientScope): Promise<void> {
    const { client } = scope;
    try {
      this.lastStatus = await client.handshake();
      this.updateStats(await client.call('stats.get'));
    } catch (error) {
      if (error instanceof ProtocolMismatchError) {
        this.release(scope);
        this.mismatch(error);
        return;
      }
      // The daemon went away again between the reconnect and these calls; the client keeps
      // dialling and this runs again on its next 'connected'.
      this.log.warn(`Reading the daemon's status after connecting failed: ${errorMessage(error)}`);
      return;
    }
    // Dropped meanwhile (a stop, a restart): the client it was replaced by reports for itself.
    if (scope !== this.current) return;
    this.setState('connected');
    this.connectedEmitter.fire(client);
  }

  /** In `GONE_AFTER_MS`, check whether the daemon the client is redialling was stopped for good. */
  private watchForGone(scope: ClientScope): void {
    this.clearGoneTimer();
    this.goneTimer = setTimeout(() => {
      this.goneTimer = null;
      this.checkGone(scope).catch((error: unknown) => this.log.error(`Checking for the daemon failed: ${errorMessage(error)}`));
    }, GONE_AFTER_MS);
  }

  /**
   * The daemon is taken for stopped when the client's latest dial found nothing listening at the
   * socket and a fresh probe finds nothing either. Then the client stops redialling and the
   * state is `disconnected` (click to start), or, with `spool.autoStartDaemon`, the bundled
   * daemon is started as on activation. Anything else (a daemon still starting, that accepts
   * but does not answer yet) is waited for as before, and checked again later.
   */
  private async checkGone(scope: ClientScope): Promise<void> {
    const { client } = scope;
    const stillAway = (): boolean => scope === this.current && client.state === 'disconnected';
    if (!stillAway()) return;
    let gone = client.lastReconnectError instanceof DaemonNotRunningError;
    if (gone) {
      try {
        gone = !(await answers(client.socketPath));
      } catch (error) {
        // Something is at the socket, but dialling it fails another way: keep waiting for it.
        this.log.warn(`Probing ${client.socketPath} failed: ${errorMessage(error)}`);
        gone = false;
      }
    }
    if (!stillAway()) return;
    if (!gone) {
      this.watchForGone(scope);
      return;
    }
    this.log.warn(`Nothing has listened at ${client.socketPath} for ${GONE_AFTER_MS / 1000} s: the daemon was stopped.`);
    this.dropClient();
    this.setState('disconnected');
    if (!readSettings().autoStartDaemon) return;
    try {
      await this.connect(true);
    } catch (error) {
      // connect() has told the user why, as on activation.
      this.log.error(`Starting the daemon again failed: ${errorMessage(error)}`);
    }
  }

  private clearGoneTimer(): void {
    if (this.goneTimer) clearTimeout(this.goneTimer);
    this.goneTimer = null;
  }

  private mismatch(error: ProtocolMismatchError): void {
    this.log.error(error.message);
    this.setState('mismatch');
    void vscode.window.showErrorMessage(editorMessage(error), 'Restart Daemon').then((choice) => {
      if (choice) void vscode.commands.executeCommand('spool.daemon.restart');
    });
  }

  private updateStats(stats: Stats): void {
    this.lastStats = stats;
    this.statsEmitter.fire(stats);
  }

  /** Tell the user why connecting failed, once; the error returned says it has been shown. */
  private fail(error: unknown): ConnectFailedError {
    if (error instanceof ConnectFailedError) return error;
    const wrapped = new ConnectFailedError(editorMessage(error), { cause: error });
    this.log.error(`Cannot connect to the Spool daemon: ${wrapped.message}`);
    this.setState('disconnected');
    void vscode.window
      .showErrorMessage(`Spool could not connect to its daemon: ${wrapped.message}`, 'Show Log', 'Open Settings')
      .then((choice) => {
        if (choice === 'Show Log') this.log.show();
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'spool.');
      });
    return wrapped;
  }

  private setState(state: ConnectionStateName): void {
    if (state === this.stateName) return;
    this.stateName = state;
    void vscode.commands.executeCommand('setContext', 'spool.connectionState', state);
    this.stateEmitter.fire(state);
  }

  /** Drops the current client: closes it and disposes what was registered on it. */
  private dropClient(): void {
    this.clearGoneTimer();
    const scope = this.current;
    this.current = null;
    scope?.dispose();
  }

  dispose(): void {
    this.connectToken++;
    this.dropClient();
    for (const d of this.disposables) d.dispose();
  }
}

/** Whether something accepts a connection at the socket now. */
export async function answers(socketPath: string): Promise<boolean> {
  try {
    const probe = await SpoolClient.connect({ socketPath, connectTimeoutMs: 1000 });
    probe.close();
    return true;
  } catch (error) {
    if (error instanceof DaemonNotRunningError) return false;
    throw error;
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
