/**
 * The language server of `spool.jsonc` over any LSP connection (stdio for `spool lsp --stdio`):
 * the wiring between the protocol, the open documents, the daemon's live data (`DaemonData`) and
 * the pure language service (`lsp/service`), which does all the work. Diagnostics are pushed
 * (`textDocument/publishDiagnostics`: Neovim 0.7 has no pull), debounced per document; code lens
 * commands run here (`workspace/executeCommand`), so any editor can run them; lenses are refreshed
 * (`workspace/codeLens/refresh`) when the daemon's events change counts.
 */
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { defaultSocketPath } from '../shared/client/paths';
import { tlsTarget } from '../shared/client/endpoint';
import { shortId } from '../shared/domain/present';
import { VERSION } from '../shared/protocol/version';
import { isRecord } from '../shared/domain/records';
import { SpoolError, errorMessage } from '../shared/protocol/errors';
import { ErrorCode, type EnqueueResult } from '../shared/protocol';
import { planHash } from '../shared/jobsfile';
import { DaemonData, type DaemonTarget } from './daemonData';
import { runWorkflow, workflowParams } from './workflowRuns';
import * as service from './service';

/** What a server can be started with; the defaults fit `spool lsp --stdio`. */
export interface ServerOptions {
  /**
   * The daemon's socket; else the initialization option `socketPath`, else the daemon over TLS
   * that SPOOL_ENDPOINT names (with SPOOL_TOKEN or SPOOL_TOKEN_FILE, and SPOOL_TLS_FINGERPRINT or
   * SPOOL_TLS_CA, as the CLI reads them), else SPOOL_SOCKET and the usual rule.
   */
  socketPath?: string;
  /** The environment the TLS variables are read from (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  /** The clock hover counts fire times from (tests pass a fixed one). */
  now?: () => number;
  /** The pause after an edit before diagnostics are published. */
  diagnosticsDelayMs?: number;
}

/** The settings an editor may pass in `initializationOptions`. */
interface InitializationOptions {
  socketPath?: string;
  /**
   * Why the editor's daemon cannot be reached, when its settings name one on another machine
   * without all it needs (a token, say): live data stays off, and commands say this.
   */
  unreachable?: string;
  /**
   * True when the editor tells of the jobs the lenses enqueue itself (VS Code, with Open Job and
   * Show Output buttons): the server then sends no message of its own for them.
   */
  announcesJobs?: boolean;
  /**
   * False in an editor's untrusted workspace: the file is checked, but nothing it declares runs
   * (no shell job is enqueued, nothing is applied), since it is code from the repository.
   */
  trusted?: boolean;
}

const UNTRUSTED = 'This workspace is not trusted: Spool checks its jobs file but does not run shell commands or apply it. Trust the workspace to run them.';

/** The daemon to follow: see ServerOptions.socketPath. A TLS setting that does not hold gives its reason. */
function targetOf(options: ServerOptions, init: InitializationOptions): DaemonTarget {
  if (options.socketPath !== undefined) return { socketPath: options.socketPath };
  if (typeof init.unreachable === 'string' && init.unreachable !== '') return { problem: init.unreachable };
  if (typeof init.socketPath === 'string' && init.socketPath !== '') return { socketPath: init.socketPath };
  const env = options.env ?? process.env;
  try {
    const tls = tlsTarget({}, env);
    if (tls !== null) return { tls };
  } catch (error) {
    return { problem: errorMessage(error) };
  }
  return { socketPath: defaultSocketPath(env) };
}

/** Serves one connection until it closes. */
export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  const analyses = new Map<string, { version: number; doc: service.JobsDocument }>();
  const timers = new Map<string, NodeJS.Timeout>();
  const now = options.now ?? Date.now;
  const delay = options.diagnosticsDelayMs ?? 150;
  let data: DaemonData | null = null;
  let lensRefresh = false;
  let trusted = true;
  let announcesJobs = false;

  // A notification, not window.showInformationMessage: that one is a request (it waits for a
  // choice among actions), which some editors answer with a prompt that blocks (Neovim 0.7).
  const show = (type: MessageType, message: string): void => {
    void connection.sendNotification(ShowMessageNotification.type, { type, message });
  };

  /** The analysis of a document's current version (parsed once per version). */
  const analysisOf = (uri: string): service.JobsDocument | undefined => {
    const textDocument = documents.get(uri);
    if (textDocument === undefined) return undefined;
    const cached = analyses.get(uri);
    if (cached !== undefined && cached.version === textDocument.version) return cached.doc;
    const doc = service.analyze(textDocument.getText());
    analyses.set(uri, { version: textDocument.version, doc });
    return doc;
  };

  const live = async (doc: service.JobsDocument): Promise<service.LiveData> => (data === null ? service.NO_LIVE_DATA : data.snapshot(doc.parse.partial.project, doc.parse.workflows.map((w) => w.name)));

  const publish = async (uri: string): Promise<void> => {
    const textDocument = documents.get(uri);
    const doc = analysisOf(uri);
    if (textDocument === undefined || doc === undefined) return;
    const snapshot = await live(doc);
    // An edit may have come in while the daemon answered: publish for the latest version only.
    if (documents.get(uri)?.version !== textDocument.version) return;
    await connection.sendDiagnostics({ uri, version: textDocument.version, diagnostics: service.diagnostics(doc, snapshot) });
  };

  const schedule = (uri: string, ms: number): void => {
    const pending = timers.get(uri);
    if (pending !== undefined) clearTimeout(pending);
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        publish(uri).catch((error: unknown) => connection.console.error(`Diagnostics of ${uri} failed: ${String(error)}`));
      }, ms),
    );
  };

  /** The daemon's data changed: lenses and live diagnostics may have too. */
  const refresh = (): void => {
    if (lensRefresh) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    for (const textDocument of documents.all()) schedule(textDocument.uri, 0);
  };

  connection.onInitialize((params): InitializeResult => {
    const init = (params.initializationOptions ?? {}) as InitializationOptions;
    data = new DaemonData({ target: targetOf(options, init), onChange: refresh, log: (m) => connection.console.log(m) });
    announcesJobs = init.announcesJobs === true;
    lensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    trusted = init.trusted !== false;
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        completionProvider: { triggerCharacters: ['"', ':'] },
        codeLensProvider: { resolveProvider: false },
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        executeCommandProvider: { commands: Object.values(service.COMMANDS) },
      },
      serverInfo: { name: 'spool-lsp', version: VERSION },
    };
  });

  documents.onDidChangeContent((e) => schedule(e.document.uri, e.document.version <= 1 ? 0 : delay));
  documents.onDidClose((e) => {
    const pending = timers.get(e.document.uri);
    if (pending !== undefined) clearTimeout(pending);
    timers.delete(e.document.uri);
    analyses.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  connection.onHover(async (params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? null : service.hover(doc, params.position, await live(doc), now());
  });
  connection.onCompletion(async (params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? [] : service.completion(doc, params.position, await live(doc));
  });
  connection.onCodeLens(async (params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? [] : service.codeLenses(doc, params.textDocument.uri, await live(doc), now());
  });
  connection.onDefinition((params) => {
    const doc = analysisOf(params.textDocument.uri);
    const range = doc === undefined ? null : service.definition(doc, params.position);
    return range === null ? null : { uri: params.textDocument.uri, range };
  });
  connection.onReferences((params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? [] : service.references(doc, params.position, params.context.includeDeclaration).map((range) => ({ uri: params.textDocument.uri, range }));
  });
  connection.onDocumentSymbol((params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? [] : service.documentSymbols(doc);
  });
  connection.onCodeAction((params) => {
    const doc = analysisOf(params.textDocument.uri);
    return doc === undefined ? [] : service.codeActions(doc, params.textDocument.uri, params.context.diagnostics);
  });

  connection.onExecuteCommand(async (params) => {
    const [uri, name, extra] = params.arguments ?? [];
    if (typeof uri !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, `${params.command} takes the document's URI as its first argument.`);
    const doc = analysisOf(uri);
    if (doc === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `${uri} is not open in the editor.`);
    if (data === null) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'The server is not initialized.');
    try {
      return await runCommand(params.command, doc, typeof name === 'string' ? name : undefined, extra);
    } catch (error) {
      const message = errorMessage(error);
      show(MessageType.Error, message);
      throw error instanceof ResponseError ? error : new ResponseError(ErrorCodes.InternalError, message);
    }
  });

  /** One lens command; its result goes back to the editor, and what it did is shown. */
  const runCommand = async (command: string, doc: service.JobsDocument, name: string | undefined, extra: unknown): Promise<unknown> => {
    if (data === null) return null;
    switch (command) {
      case service.COMMANDS.workflowParams:
      case service.COMMANDS.runWorkflow: {
        if (name === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `${command} takes the workflow name as its second argument.`);
        if (command === service.COMMANDS.workflowParams) return workflowParams(doc, name);
        const started = await runWorkflow(data, doc, name, extra, trusted ? null : UNTRUSTED);
        refresh();
        if (!announcesJobs) show(MessageType.Info, `Started run ${shortId(started.run.id)} of workflow ${name}: ${started.jobs.length} job${started.jobs.length === 1 ? '' : 's'}${data.remote ? ` at ${data.label}` : ''}.`);
        return started;
      }
      case service.COMMANDS.runSchedule:
      case service.COMMANDS.enqueueTemplate: {
        if (name === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `${command} takes the ${command === service.COMMANDS.runSchedule ? 'schedule' : 'template'} name as its second argument.`);
        const target = service.enqueueTarget(doc, command === service.COMMANDS.runSchedule ? 'schedule' : 'template', name);
        if (!target.ok) throw new ResponseError(ErrorCodes.InvalidParams, target.message);
        if (!trusted && target.value.job.kind === 'shell') throw new ResponseError(ErrorCodes.InvalidRequest, UNTRUSTED);
        const result = await enqueue(doc, target.value);
        data.invalidate();
        if (!announcesJobs) show(MessageType.Info, `Enqueued ${result.job.kind} job ${shortId(result.job.id)} on queue ${result.job.queue}${command === service.COMMANDS.runSchedule ? ` (schedule ${name})` : ''}${data.remote ? ` at ${data.label}` : ''}.`);
        return result;
      }
      case service.COMMANDS.plan: {
        const snapshot = await data.snapshot(doc.parse.partial.project);
        if (snapshot.objects === undefined) return null;
        const plan = service.planOf(doc, snapshot.objects);
        if (plan === null) return null;
        const changes = plan.changes.filter((c) => c.action !== 'unchanged').length;
        return { changes, conflicts: plan.conflicts.length, text: service.planText(plan) };
      }
      case service.COMMANDS.apply: {
        if (!trusted) throw new ResponseError(ErrorCodes.InvalidRequest, UNTRUSTED);
        if (doc.parse.declaration === null) throw new ResponseError(ErrorCodes.InvalidParams, 'The file has errors: fix them before applying (see the Problems).');
        try {
          // The declaration as parseJobsFile read it: the daemon validates it again and plans
          // inside its transaction. `expected` is the plan behind the lens the person clicked
          // (from the same live data): if the daemon's plan differs by then, it refuses and
          // nothing changes, rather than apply what nobody saw.
          const project = doc.parse.declaration.project;
          const seen = await data.snapshot(project);
          const plan = seen.objects === undefined ? null : service.planOf(doc, seen.objects);
          const result = await data.callUnchecked('project.apply', { project, file: doc.parse.declaration, ...(plan === null ? {} : { expected: planHash(plan) }) });
          data.invalidate();
          refresh();
          const changes = isRecord(result) && Array.isArray(result['changes']) ? (result['changes'] as { action?: unknown }[]).filter((c) => c.action !== 'unchanged').length : undefined;
          show(MessageType.Info, `Applied project ${doc.parse.declaration.project}${data.remote ? ` to ${data.label}` : ''}${changes !== undefined ? `: ${changes} change${changes === 1 ? '' : 's'}` : ''}.`);
          return result;
        } catch (error) {
          if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) {
            throw new ResponseError(ErrorCodes.MethodNotFound, 'This daemon cannot apply a jobs file (it has no project.apply): restart it with this version of Spool.');
          }
          // The daemon's state moved since the lens was drawn: draw it again from fresh data.
          data.invalidate();
          refresh();
          throw error;
        }
      }
      default:
        throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown command ${command}; this server runs ${Object.values(service.COMMANDS).join(', ')}.`);
    }
  };

  /**
   * Enqueues a lens's target: the template as this project last applied it, through the daemon's
   * `templates.enqueue` (as `spool run` does); the file's job when the daemon has no such
   * template (not applied yet: TemplateNotFound) or no templates at all (MethodNotFound).
   */
  const enqueue = async (doc: service.JobsDocument, target: service.EnqueueTarget): Promise<EnqueueResult> => {
    if (data === null) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'The server is not initialized.');
    const project = doc.parse.partial.project;
    try {
      const result = await data.callUnchecked('templates.enqueue', { name: target.template, params: target.params, ...(project !== '' ? { project } : {}) });
      if (isRecord(result) && isRecord(result['job'])) return result as unknown as EnqueueResult;
    } catch (error) {
      if (!(error instanceof SpoolError) || (error.code !== ErrorCode.MethodNotFound && error.code !== ErrorCode.TemplateNotFound)) throw error;
    }
    return data.call('jobs.enqueue', target.job);
  };

  connection.onShutdown(() => {
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
    data?.dispose();
  });
  documents.listen(connection);
  connection.listen();
}
