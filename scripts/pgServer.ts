/**
 * A throwaway PostgreSQL server for the tests and the benchmark: Debian's PostgreSQL 15, started
 * on a free loopback port with its socket and data in a temporary folder, and removed when the
 * process exits. `initdb` runs once and its result is kept in node_modules/.cache (copying it
 * takes half a second, initdb several); as root, the server runs as the `postgres` user, since
 * PostgreSQL refuses to run as root. Each test gets a database of its own.
 *
 * No mock anywhere: every PostgreSQL test in the suite talks to this server.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';

/** The checkout: the nearest folder above this file's (or its bundle's) with a package.json. */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where Debian puts the server's programs (not on PATH). SPOOL_PG_BIN overrides. */
export function pgBin(): string {
  if (process.env.SPOOL_PG_BIN) return process.env.SPOOL_PG_BIN;
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions[0];
  if (found === undefined) throw new Error('PostgreSQL is not installed: no /usr/lib/postgresql/<version>/bin/initdb. Install it with `apt-get install postgresql` (.ci/run does).');
  return path.join(base, found, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs a server program, as the postgres user when this process is root. */
function runPg(program: string, args: string[], options: { allowFail?: boolean } = {}): string {
  const bin = path.join(pgBin(), program);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0 && !options.allowFail) {
    throw new Error(`${program} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

function giveToPostgres(dir: string): void {
  if (asRoot) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
}

/** An initdb'd data folder to copy from, made once (atomically: a rename) and kept. */
function template(): string {
  const cache = path.join(projectRoot(), 'node_modules', '.cache', 'spool-postgres');
  const made = path.join(cache, `initdb-${path.basename(path.dirname(pgBin()))}`);
  if (fs.existsSync(path.join(made, 'PG_VERSION'))) return made;
  fs.mkdirSync(cache, { recursive: true, mode: 0o755 });
  const work = fs.mkdtempSync(path.join(cache, 'making-'));
  fs.chmodSync(work, 0o755);
  const data = path.join(work, 'data');
  fs.mkdirSync(data, { mode: 0o700 });
  giveToPostgres(work);
  runPg('initdb', ['-D', data, '-U', 'spool', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  try {
    fs.renameSync(data, made);
  } catch {
    // Another test process made it first: theirs is as good.
  }
  fs.rmSync(work, { recursive: true, force: true });
  return made;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class PgServer {
  /** The server settings given to start(), over the defaults. */
  private settings: Record<string, string> = {};
  private databases = 0;
  private running = false;

  private constructor(
    /** The temporary folder: data/ and the log. */
    readonly dir: string,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  get logFile(): string {
    return path.join(this.dir, 'postgres.log');
  }

  /** A connection string for `database` (user spool, no password: trust on loopback). */
  url(database = 'postgres'): string {
    return `postgres://spool@127.0.0.1:${this.port}/${database}`;
  }

  /** Copies the template and starts a server on a free port; `settings` are `-c` options, over the test defaults. */
  static async start(settings: Record<string, string> = {}): Promise<PgServer> {
    const source = template();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-pg-'));
    fs.chmodSync(dir, 0o755);
    spawnSync('cp', ['-a', source, path.join(dir, 'data')]);
    giveToPostgres(dir);
    const server = new PgServer(dir, await freePort());
    server.settings = settings;
    process.on('exit', () => server.destroy());
    await server.startAgain();
    return server;
  }

  /** Starts the (stopped) server again on the same port and data. */
  async startAgain(): Promise<void> {
    // Tests need no durability (fsync off); the benchmark turns it back on through `settings`.
    const settings = { listen_addresses: '127.0.0.1', fsync: 'off', full_page_writes: 'off', max_connections: '200', ...this.settings };
    const options = [`-p ${this.port}`, `-k ${this.dir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
    runPg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '60', '-l', this.logFile, '-o', options, 'start']);
    this.running = true;
  }

  /** Stops at once, as a crash would (`-m immediate`): clients see their connections drop. */
  stopImmediate(): void {
    if (!this.running) return;
    runPg('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop'], { allowFail: true });
    this.running = false;
  }

  /** A fresh, empty database; dropped (connections and all) when the test ends. Returns its URL. */
  async database(t?: { after(fn: () => Promise<void>): void }): Promise<string> {
    this.databases += 1;
    const name = `spool_${process.pid}_${this.databases}`;
    await this.admin(`CREATE DATABASE ${name}`);
    t?.after(async () => {
      if (this.running) await this.admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    });
    return this.url(name);
  }

  /** Runs one statement as the superuser on the postgres database. */
  async admin(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  }

  /** Stops the server and removes its folder. */
  destroy(): void {
    this.stopImmediate();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

let shared: Promise<PgServer> | null = null;

/** The one server of this test process, started on first use, removed when the process exits. */
export function sharedPostgres(): Promise<PgServer> {
  shared ??= PgServer.start();
  return shared;
}
