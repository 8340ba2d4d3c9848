/**
 * The language server of spool.jsonc in VS Code: dist/lsp.js (the same server `spool lsp --stdio`
 * runs for other editors) started through vscode-languageclient, with the Node.js the extension
 * starts the daemon with (`spool.nodePath`). Diagnostics, hover, completion, lenses and quick fixes
 * all come from the server; its lens commands (Run now, Enqueue, Apply) run there too, forwarded
 * by the client. The server starts when the first jobs file is opened.
 *
 * After a save, when the daemon can say how the file differs from what it has (`project.state`)
 * and there are changes, it offers to apply them (Apply / Show Plan). An older daemon without
 * that method gives no plan, and no offer.
 *
 * In an untrusted workspace the server is told so: it still checks the file, but refuses to run
 * what the file declares (a shell command is code from the repository).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type Executable, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { readSettings } from './settings';
import { errorMessage } from '../shared/protocol/errors';

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
  disposables.push(plans, vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, plans));

  const start = (): void => {
    const settings = readSettings();
    const module = path.join(extension.extensionPath, 'dist', 'lsp.js');
    // An executable speaks stdio by default; `--stdio` tells the server so.
    const run: Executable = { command: settings.nodePath, args: [module, '--stdio'] };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      documentSelector: SELECTOR,
      initializationOptions: { socketPath: settings.socketPath, trusted: vscode.workspace.isTrusted },
      outputChannel: log,
    };
    const next = new LanguageClient('spool', 'Spool jobs file', serverOptions, clientOptions);
    client = next;
    next.start().catch((error: unknown) => log.error(`The jobs file's language server did not start: ${errorMessage(error)}`));
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
    start();
  };
  vscode.workspace.textDocuments.forEach(startWhenNeeded);
  disposables.push(
    vscode.workspace.onDidOpenTextDocument(startWhenNeeded),
    vscode.workspace.onDidSaveTextDocument((document) => {
      if (client !== null && client.isRunning() && isJobsFile(document)) void offerApply(client, document, plans, log);
    }),
    // Trust granted: the server may now run what the file declares.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (wanted) void stop().then(start);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (wanted && (e.affectsConfiguration('spool.socketPath') || e.affectsConfiguration('spool.nodePath'))) void stop().then(start);
    }),
  );
  return new vscode.Disposable(() => {
    for (const d of disposables) d.dispose();
    void stop();
  });
}

/** After a save: when the daemon differs from the file, offer to apply it or show the plan. */
async function offerApply(client: LanguageClient, document: vscode.TextDocument, plans: PlanDocuments, log: vscode.LogOutputChannel): Promise<void> {
  const uri = client.code2ProtocolConverter.asUri(document.uri);
  let plan: PlanAnswer | null;
  try {
    plan = await client.sendRequest<PlanAnswer | null>('workspace/executeCommand', { command: 'spool.plan', arguments: [uri] });
  } catch (error) {
    log.warn(`Planning ${document.fileName} failed: ${errorMessage(error)}`);
    return;
  }
  if (plan === null || plan.changes === 0) return;
  const name = path.basename(document.fileName);
  const choice = await vscode.window.showInformationMessage(
    `${name} differs from the daemon: ${plan.changes} change${plan.changes === 1 ? '' : 's'} to apply${plan.conflicts > 0 ? ` (${plan.conflicts} name conflict${plan.conflicts === 1 ? '' : 's'})` : ''}.`,
    'Apply',
    'Show Plan',
  );
  if (choice === 'Apply') {
    await client.sendRequest('workspace/executeCommand', { command: 'spool.apply', arguments: [uri] }).catch((error: unknown) => {
      // The server has shown the reason already; the log keeps it.
      log.warn(`Applying ${document.fileName} failed: ${errorMessage(error)}`);
    });
  } else if (choice === 'Show Plan') {
    const doc = await vscode.workspace.openTextDocument(plans.show(document.uri, plan.text));
    await vscode.window.showTextDocument(doc, { preview: true });
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
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/Plan of ${path.basename(file.fsPath)}`, query: file.toString() });
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
