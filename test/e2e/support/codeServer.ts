/**
 * A real VS Code for the tests: code-server 4.100.3 (VS Code 1.100.3 with a Node extension host)
 * on a free port, with its own HOME, XDG folders, user data and extensions folders, and the
 * packaged Spool extension installed from its .vsix. `stop()` ends the server and its children
 * (the extension host) and removes every folder it made.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { codeServerEntry, tempDir } from './paths';
import { waitFor } from './wait';
import { errorMessage } from '../../../shared/protocol/errors';

const run = promisify(execFile);

export interface CodeServerOptions {
  vsixPath: string;
  /** User settings.json content, e.g. `{"spool.socketPath": "/tmp/x/s.sock"}`. */
  settings?: Record<string, unknown>;
  /** Extra environment for the server and so for the extension host. */
  env?: Record<string, string>;
  /**
   * Turn workspace trust on (default off). The workspace folder is then untrusted: VS Code opens
   * it in restricted mode without asking.
   */
  workspaceTrust?: boolean;
}

export interface CodeServer {
  url: string;
  port: number;
  /** A workspace folder opened by the tests (empty, temporary). */
  workspace: string;
  /** Where the .vsix was unpacked: the extension as a user has it installed. */
  extensionPath: string;
  /** A scratch folder that lives as long as the server. */
  scratch: string;
  /** Server output so far, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const entry = codeServerEntry();
  const { dir, remove } = tempDir('spool-cs-');
  const home = path.join(dir, 'home');
  const userData = path.join(dir, 'user-data');
  const extensions = path.join(dir, 'extensions');
  const workspace = path.join(dir, 'workspace');
  const scratch = path.join(dir, 'scratch');
  for (const d of [home, userData, extensions, workspace, scratch, path.join(userData, 'User')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': options.workspaceTrust === true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.emptyWindow': false,
        ...options.settings,
      },
      null,
      2,
    ),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(home, 'run'),
    ...options.env,
  };
  // The test runner's own variables would make a node process in the extension host act as a test.
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  try {
    await run(process.execPath, [entry, ...common, '--install-extension', options.vsixPath], { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    remove();
    throw new Error(`code-server could not install ${options.vsixPath}: ${errorMessage(error)}`);
  }
  const installed = fs.readdirSync(extensions).find((name) => name.startsWith('spool.spool-'));
  if (!installed) {
    remove();
    throw new Error(`code-server reported the .vsix installed, but ${extensions} holds no spool.spool-* folder.`);
  }

  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [
      entry,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.workspaceTrust === true ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      ...common,
    ],
    // Its own process group, so stop() can end the extension host and anything it started with it.
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      const killTimer = setTimeout(() => {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
          }
        }
      }, 5000);
      await exited;
      clearTimeout(killTimer);
    }
    remove();
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('code-server to answer /healthz', async () => {
      if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}: ${output}`);
      const response = await fetch(`${url}/healthz`);
      return response.ok;
    }, { timeoutMs: 60_000, intervalMs: 200 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, workspace, scratch, extensionPath: path.join(extensions, installed), log: () => output, stop };
}
