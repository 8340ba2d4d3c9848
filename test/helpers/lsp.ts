/**
 * An LSP client for tests: the language server program (dist/lsp.js, or `spool lsp --stdio`
 * through the CLI) as a child process, spoken to over its stdio with vscode-languageserver-
 * protocol's connection. Keeps the latest diagnostics per document and counts lens refreshes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import {
  CodeLensRefreshRequest,
  createProtocolConnection,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { waitFor } from './wait';

export const LSP_SCRIPT = path.resolve(__dirname, '..', '..', 'dist', 'lsp.js');

export interface LspClient {
  readonly connection: ProtocolConnection;
  readonly process: ChildProcess;
  /** The latest diagnostics published per URI, with the version they are for. */
  readonly diagnostics: Map<string, { version: number | undefined; diagnostics: Diagnostic[] }>;
  /** How many `workspace/codeLens/refresh` requests the server sent. */
  lensRefreshes(): number;
  /** Everything the server wrote to stderr. */
  stderr(): string;
  /** The messages the server showed (`window/showMessage`), oldest first. */
  messages(): string[];
  /** Opens a document (version 1). */
  open(uri: string, text: string): Promise<void>;
  /** Replaces a document's whole text. */
  change(uri: string, version: number, text: string): Promise<void>;
  /** Waits until diagnostics for `uri` (of `version`, if given) arrive that `accept`. */
  diagnosticsOf(uri: string, accept?: (d: Diagnostic[]) => boolean, version?: number): Promise<Diagnostic[]>;
  /** shutdown + exit, then wait for the process to end (killed after 5 s). */
  close(): Promise<void>;
}

/** Starts a server and initializes it. `env`: e.g. SPOOL_SOCKET; `command`: another program. */
export async function startLsp(options: { env?: NodeJS.ProcessEnv; command?: string[]; initializationOptions?: unknown } = {}): Promise<LspClient> {
  const [program, ...args] = options.command ?? [process.execPath, LSP_SCRIPT, '--stdio'];
  const child = spawn(program ?? process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  if (child.stdout === null || child.stdin === null) throw new Error('The server has no stdio.');
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const diagnostics = new Map<string, { version: number | undefined; diagnostics: Diagnostic[] }>();
  let refreshes = 0;
  const shown: string[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
    diagnostics.set(p.uri, { version: p.version, diagnostics: p.diagnostics });
  });
  connection.onRequest(CodeLensRefreshRequest.type, () => {
    refreshes++;
  });
  // Messages the server shows: answered, and otherwise ignored.
  connection.onRequest('window/showMessageRequest', () => null);
  connection.onNotification('window/showMessage', (p: { message: string }) => void shown.push(p.message));
  connection.onNotification('window/logMessage', () => undefined);
  connection.listen();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`The language server exited (${signal ?? code}) before it answered. Its stderr:\n${stderr}`))),
  );
  exited.catch(() => undefined);
  const initialized = connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { workspace: { codeLens: { refreshSupport: true } }, textDocument: { publishDiagnostics: { versionSupport: true } } },
    initializationOptions: options.initializationOptions,
  });
  await Promise.race([initialized, exited]);
  await connection.sendNotification('initialized', {});
  return {
    connection,
    process: child,
    diagnostics,
    lensRefreshes: () => refreshes,
    stderr: () => stderr,
    messages: () => [...shown],
    open: (uri, text) => connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'jsonc', version: 1, text } }),
    change: (uri, version, text) => connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] }),
    diagnosticsOf: (uri, accept = () => true, version) =>
      waitFor(`diagnostics of ${uri}${version !== undefined ? ` version ${version}` : ''}`, () => {
        const d = diagnostics.get(uri);
        return d !== undefined && (version === undefined || d.version === version) && accept(d.diagnostics) ? d.diagnostics : undefined;
        // A minute: a 5 MB file is parsed and checked in seconds alone, many times that on a loaded machine.
      }, 60_000),
    async close() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
      try {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      } catch {
        // Already gone: the wait below returns at once.
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      connection.dispose();
    },
  };
}
