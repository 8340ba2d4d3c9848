/**
 * The language server of spool.jsonc in VS Code: dist/lsp.js (the same server `spool lsp --stdio`
 * runs for other editors) started through vscode-languageclient, with the Node.js the extension
 * starts the daemon with (`spool.nodePath`). Diagnostics, hover, completion, lenses and quick fixes
 * all come from the server; its lens commands (Run now, Enqueue, Run workflow, Apply) run there
 * too, forwarded by the client (Run workflow asks for the workflow's parameters first,
 * workflowRun.ts). The server starts when the first jobs file is opened.
 *
 * After a save, when the daemon can say how the file differs from what it has (`project.state`)
 * and there are changes, it offers to apply them (Apply / Show Plan). An older daemon without
 * that method gives no plan, and no offer.
 *
 * The server follows the same daemon as the views: the one on this machine at `spool.socketPath`,
 * or the one `spool.endpoint` names, with its token from secret storage (handed to the server's
 * process in its environment, as SPOOL_TOKEN, never in a message a trace could log). It starts
 * again when those settings or the token change. Apply asks first, naming the file, the daemon
 * and the number of changes; the jobs the lenses enqueue are announced here, with Open Job and
 * Show Output.
 *
 * In an untrusted workspace the server is told so: it still checks the file, but refuses to run
 * what the file declares (a shell command is code from the repository).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type Executable, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { readSettings, type SpoolSettings } from './settings';
import { errorMessage } from '../shared/protocol/errors';
import type { Job } from '../shared/protocol/types';
import { RemoteSettingsError, remoteTarget, tokenKey } from './daemon/remote';
import { announceJob } from './notifications';
import { announceRun, askWorkflowParams, isRunStarted, paramsOf } from './workflowRun';

/** The files the server serves. */
const SELECTOR = [
  { scheme: 'file', pattern: '**/spool.jsonc' },
  { scheme: 'file', pattern: '**/spool.json' },
];

/** spool.jsonc or spool.json, in any folder. */
const JOBS_FILE = /(^|[\\/])spool\.jsonc?$/;

/** What `spool.plan` answers: null when the daemon cannot say, or the file has errors. */
interface PlanAnswer {
  changes: number;
  conflicts: number;
  text: string;
}

/** Starts the language client; the returned disposable stops it (with the extension). */
export function startLanguageClient(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  let client: LanguageClient | null = null;
  const plans = new PlanDocuments();
  /** The jobs files whose offer to apply is on screen. */
  const offering = new Set<string>();
  /** How the offer names the daemon: the one on this machine goes without saying. */
  let daemonNamed = 'the daemon';
  disposables.push(plans, vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, plans));

  const start = async (): Promise<void> => {
    const settings = readSettings();
    const daemon = await daemonOfServer(settings, await extension.secrets.get(tokenKey(settings.endpoint)));
    daemonNamed = settings.endpoint === '' ? 'the daemon' : daemon.label;
    const module = path.join(extension.extensionPath, 'dist', 'lsp.js');
    // An executable speaks stdio by default; `--stdio` tells the server so.
    const run: Executable = { command: settings.nodePath, args: [module, '--stdio'], options: { env: daemon.env } };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      documentSelector: SELECTOR,
      initializationOptions: { ...daemon.init, trusted: vscode.workspace.isTrusted, announcesJobs: true },
      outputChannel: log,
      middleware: {
        executeCommand: async (command, args, next) => {
          const [uri] = args;
          const confirmed = args.some((a) => typeof a === 'object' && a !== null && 'confirmed' in a && a.confirmed === true);
          const plain = args.filter((a) => !(typeof a === 'object' && a !== null && 'confirmed' in a));
          if (command === 'spool.apply' && !confirmed && typeof uri === 'string' && !(await confirmApply(next, uri, daemon.label))) return undefined;
          // Run workflow: its parameters are asked for first, then the run is announced.
          if (command === 'spool.runWorkflow' && plain.length === 2) {
            const params = paramsOf(await next('spool.workflowParams', plain));
            const values = params === null ? {} : await askWorkflowParams(String(plain[1]), params);
            if (values === undefined) return undefined;
            const started: unknown = await next(command, [...plain, values]);
            if (isRunStarted(started)) void announceRun(String(plain[1]), started);
            return started;
          }
          const result: unknown = await next(command, plain);
          if ((command === 'spool.runSchedule' || command === 'spool.enqueueTemplate') && isEnqueued(result)) {
            void announceJob(command === 'spool.runSchedule' ? `schedule ${String(plain[1])} enqueued` : `template ${String(plain[1])} enqueued`, result.job);
          }
          return result;
        },
      },
    };
    const next = new LanguageClient('spool', 'Spool jobs file', serverOptions, clientOptions);
    client = next;
    next.start().catch((error: unknown) => log.error(`The jobs file's language server did not start: ${errorMessage(error)}`));
  };
  const restart = (): void => {
    void stop()
      .then(start)
      .catch((error: unknown) => log.error(`The jobs file's language server did not start: ${errorMessage(error)}`));
  };

  const stop = async (): Promise<void> => {
    const old = client;
    client = null;
    if (old !== null) await old.dispose().catch(() => undefined);
  };

  // The server is a process of its own: started when a jobs file is first opened, not for every
  // window (most workspaces have none).
  const isJobsFile = (document: vscode.TextDocument): boolean => document.uri.scheme === 'file' && JOBS_FILE.test(document.fileName);
  let wanted = false;
  const startWhenNeeded = (document: vscode.TextDocument): void => {
    if (wanted || !isJobsFile(document)) return;
    wanted = true;
    start().catch((error: unknown) => log.error(`The jobs file's language server did not start: ${errorMessage(error)}`));
  };
  vscode.workspace.textDocuments.forEach(startWhenNeeded);
  disposables.push(
    vscode.workspace.onDidOpenTextDocument(startWhenNeeded),
    vscode.workspace.onDidSaveTextDocument((document) => {
      if (client !== null && client.isRunning() && isJobsFile(document)) void offerApply(client, document, plans, offering, daemonNamed, log);
    }),
    // Trust granted: the server may now run what the file declares.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (wanted) restart();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (wanted && DAEMON_SETTINGS.some((s) => e.affectsConfiguration(s))) restart();
    }),
    // A token set or forgotten for the endpoint: the server logs in with the new one.
    extension.secrets.onDidChange((e) => {
      if (wanted && e.key === tokenKey(readSettings().endpoint)) restart();
    }),
  );
  return new vscode.Disposable(() => {
    for (const d of disposables) d.dispose();
    void stop();
  });
}

/** The settings that choose the server's daemon (or its Node.js): a change restarts it. */
const DAEMON_SETTINGS = ['spool.socketPath', 'spool.nodePath', 'spool.endpoint', 'spool.tlsFingerprint', 'spool.tlsCa'];

/** The variables through which a server would find another daemon than the one it is given. */
const ENDPOINT_VARIABLES = ['SPOOL_ENDPOINT', 'SPOOL_TOKEN', 'SPOOL_TOKEN_FILE', 'SPOOL_TLS_FINGERPRINT', 'SPOOL_TLS_CA'];

/** How the server is told which daemon to follow, and how messages name it. */
interface ServerDaemon {
  env: NodeJS.ProcessEnv;
  init: { socketPath?: string; unreachable?: string };
  /** `the daemon at tls://host:port`, or `the daemon on this machine`. */
  label: string;
}

/** The views' daemon, for the server (see the module comment). */
export async function daemonOfServer(settings: SpoolSettings, token: string | undefined): Promise<ServerDaemon> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ENDPOINT_VARIABLES) delete env[name];
  if (settings.endpoint === '') return { env, init: { socketPath: settings.socketPath }, label: 'the daemon on this machine' };
  const label = `the daemon at ${settings.endpoint}`;
  try {
    const target = remoteTarget(settings, token);
    env['SPOOL_ENDPOINT'] = settings.endpoint;
    env['SPOOL_TOKEN'] = target.token;
    if (target.fingerprint !== undefined) env['SPOOL_TLS_FINGERPRINT'] = target.fingerprint;
    if (settings.tlsCa !== '') env['SPOOL_TLS_CA'] = settings.tlsCa;
    return { env, init: {}, label };
  } catch (error) {
    if (!(error instanceof RemoteSettingsError)) throw error;
    return { env, init: { unreachable: error.message }, label };
  }
}

function isEnqueued(value: unknown): value is { job: Job } {
  return typeof value === 'object' && value !== null && 'job' in value && typeof value.job === 'object' && value.job !== null && 'id' in value.job;
}

/**
 * Asks before Apply, naming the file, the daemon and what changes; Show Plan opens the plan and
 * applies nothing. True to go on.
 */
async function confirmApply(run: (command: string, args: unknown[]) => unknown, uri: string, daemon: string): Promise<boolean> {
  const file = path.basename(vscode.Uri.parse(uri).fsPath);
  let plan: PlanAnswer | null = null;
  try {
    plan = (await run('spool.plan', [uri])) as PlanAnswer | null;
  } catch {
    // No plan to show (an older daemon): the question goes without the count.
  }
  const changes = plan === null ? '' : ` (${plan.changes} change${plan.changes === 1 ? '' : 's'})`;
  const choice = await vscode.window.showWarningMessage(`Apply ${file} to ${daemon}${changes}?`, { modal: true, detail: plan?.text }, 'Apply');
  return choice === 'Apply';
}

/**
 * After a save: when the daemon differs from the file, offer to apply it or show the plan. One
 * offer per file at a time: with auto-save, a save comes every few keystrokes, and each used to
 * add a toast counting changes that were no longer true. The buttons read the file as it is when
 * clicked: Show Plan plans again, and Apply asks first with the current count.
 */
async function offerApply(client: LanguageClient, document: vscode.TextDocument, plans: PlanDocuments, offering: Set<string>, daemon: string, log: vscode.LogOutputChannel): Promise<void> {
  const uri = client.code2ProtocolConverter.asUri(document.uri);
  if (offering.has(uri)) return;
  const planNow = async (): Promise<PlanAnswer | null> => {
    try {
      return await client.sendRequest<PlanAnswer | null>('workspace/executeCommand', { command: 'spool.plan', arguments: [uri] });
    } catch (error) {
      log.warn(`Planning ${document.fileName} failed: ${errorMessage(error)}`);
      return null;
    }
  };
  offering.add(uri);
  try {
    const plan = await planNow();
    if (plan === null || plan.changes === 0) return;
    const name = path.basename(document.fileName);
    const choice = await vscode.window.showInformationMessage(
      `${name} differs from ${daemon}: ${plan.changes} change${plan.changes === 1 ? '' : 's'} to apply${plan.conflicts > 0 ? ` (${plan.conflicts} name conflict${plan.conflicts === 1 ? '' : 's'})` : ''}.`,
      'Apply',
      'Show Plan',
    );
    if (choice === 'Apply') {
      // Through the command, so the question before Apply is asked with the count as it is now.
      await vscode.commands.executeCommand('spool.apply', uri).then(undefined, (error: unknown) => {
        // The server has shown the reason already; the log keeps it.
        log.warn(`Applying ${document.fileName} failed: ${errorMessage(error)}`);
      });
    } else if (choice === 'Show Plan') {
      const current = await planNow();
      const doc = await vscode.workspace.openTextDocument(plans.show(document.uri, current?.text ?? plan.text));
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  } finally {
    offering.delete(uri);
  }
}

/** The scheme of plan documents: read-only, so closing one asks nothing. */
const PLAN_SCHEME = 'spool-plan';

/** The plans shown with "Show Plan", one document per jobs file, its text the latest plan. */
class PlanDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Stores a jobs file's plan; returns the URI of its document (updated if already open). */
  show(file: vscode.Uri, text: string): vscode.Uri {
    // Plain text: a name ending in .jsonc opened it as JSON with Comments, which marked the plan
    // as an error ("Expected a JSON object") and its tab red.
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/Plan of ${path.basename(file.fsPath)}.txt`, query: file.toString() });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This plan is no longer available: save the jobs file again to see the current one.';
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
