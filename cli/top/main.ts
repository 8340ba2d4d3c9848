/**
 * dist/top.js: `spool top`, a full-screen view of the daemon's queues, running jobs and recent
 * failures, drawn with terminal-kit. Live from the daemon's change notifications (stats, jobs,
 * queues), as `spool stats --watch` is; rates come from samples of the counts it takes itself,
 * once a second. Whatever ends it (q, Ctrl-C, a signal, an error) gives the terminal back as it
 * was. The daemon is reached like the CLI reaches it: SPOOL_ENDPOINT over TLS, else the socket.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import termkit from 'terminal-kit/lib/termkit-no-lazy-require.js';
import { ProtocolMismatchError, SpoolClient, type Subscription } from '../../shared/client/client';
import { targetLabel, tlsTarget } from '../../shared/client/endpoint';
import { defaultSocketPath } from '../../shared/client/paths';
import { shortId } from '../../shared/domain/present/ids';
import { errorMessage, SpoolError } from '../../shared/protocol/errors';
import type { Job } from '../../shared/protocol/types';
import { RateSampler } from './rates';
import { PANES, paneSize, render, type Pane, type Style, type TopState } from './view';

/** How many running jobs and recent failures are read: more than a screen shows. */
const LIST_LIMIT = 200;
/** Jobs are read again at most this often while notifications about them keep coming. */
const JOBS_REFRESH_MS = 500;
const SAMPLE_MS = 1000;

const ATTRS: Record<Style, Record<string, string | boolean>> = {
  normal: {},
  title: { bold: true },
  header: { dim: true, underline: true },
  selected: { inverse: true },
  dim: { dim: true },
  bad: { color: 'red' },
  warn: { color: 'yellow' },
  good: { color: 'green' },
  status: { color: 'cyan' },
};

/** Drops escape sequences and control characters a job's output may hold: they would move the cursor. */
function printable(text: string): string {
  return text
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/\t/g, '  ')
    .replace(/[\x00-\x1f\x7f]/g, '');
}

async function main(): Promise<void> {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    process.stderr.write('spool top: needs a terminal on stdin and stdout; for a pipe, use spool stats --watch --json\n');
    process.exit(2);
  }
  const target = tlsTarget();
  const endpoint = target ? targetLabel(target) : defaultSocketPath();
  const term = termkit.terminal;
  const sampler = new RateSampler();
  const state: TopState = {
    endpoint,
    connected: false,
    stats: null,
    running: [],
    failures: [],
    pane: 'queues',
    selected: { queues: 0, running: 0, failures: 0 },
    log: null,
    help: false,
    message: { text: `Connecting to the daemon at ${endpoint}…`, bad: false },
    rates: (queue) => sampler.rates(queue),
  };
  let client: SpoolClient | null = null;
  let logSubscription: Subscription | null = null;
  let confirm: { question: string; run: () => Promise<void> } | null = null;
  let suspended = false;
  let ended = false;

  // --- the terminal ---------------------------------------------------------------------------
  let screen = new termkit.ScreenBuffer({ dst: term, width: term.width, height: term.height });
  let restored = false;
  const enter = (): void => {
    term.fullscreen(true);
    term.hideCursor(true);
    term.grabInput(true);
    restored = false;
  };
  const restore = (): void => {
    if (restored) return;
    restored = true;
    term.grabInput(false);
    term.styleReset();
    term.hideCursor(false);
    term.fullscreen(false);
  };
  const draw = (full = false): void => {
    if (suspended || restored) return;
    screen.fill({ char: ' ', attr: {} });
    const lines = render(state, screen.width, screen.height, Date.now());
    lines.forEach((line, y) => {
      let x = 0;
      for (const segment of line) {
        if (segment.text === '') continue;
        screen.put({ x, y, attr: ATTRS[segment.style], wrap: false }, printable(segment.text));
        x += segment.text.length;
      }
    });
    screen.draw({ delta: !full });
  };
  const quit = (code: number, why?: string): void => {
    if (ended) return;
    ended = true;
    restore();
    client?.close();
    if (why) process.stderr.write(`spool top: ${why}\n`);
    // Let the terminal's last writes out before exiting.
    process.stdout.write('', () => process.exit(code));
  };
  process.on('exit', restore);
  process.on('uncaughtException', (error) => quit(1, errorMessage(error)));
  process.on('unhandledRejection', (error) => quit(1, errorMessage(error)));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => quit(0));

  enter();
  draw(true);
  term.on('resize', (width, height) => {
    screen = new termkit.ScreenBuffer({ dst: term, width, height });
    term.clear();
    draw(true);
  });

  const say = (text: string, bad = false): void => {
    state.message = { text, bad };
    draw();
  };

  // --- reading the daemon ---------------------------------------------------------------------
  const clamp = (): void => {
    for (const pane of PANES) state.selected[pane] = Math.max(0, Math.min(state.selected[pane], paneSize(state, pane) - 1));
  };
  const refreshStats = async (c: SpoolClient): Promise<void> => {
    state.stats = await c.call('stats.get');
    clamp();
    draw();
  };
  let jobsTimer: NodeJS.Timeout | null = null;
  let jobsReading = false;
  let jobsAgain = false;
  const refreshJobs = async (c: SpoolClient): Promise<void> => {
    if (jobsReading) {
      jobsAgain = true;
      return;
    }
    jobsReading = true;
    try {
      const [running, dead] = await Promise.all([
        c.call('jobs.list', { states: ['running'], order: 'oldest', limit: LIST_LIMIT }),
        c.call('jobs.list', { states: ['dead'], order: 'newest', limit: LIST_LIMIT }),
      ]);
      // Keep the selection on the same job when the lists change under it.
      const keep = (pane: Pane, before: Job[], after: Job[]): void => {
        const id = before[state.selected[pane]]?.id;
        const at = id === undefined ? -1 : after.findIndex((j) => j.id === id);
        if (at >= 0) state.selected[pane] = at;
      };
      keep('running', state.running, running.jobs);
      keep('failures', state.failures, dead.jobs);
      state.running = running.jobs;
      state.failures = dead.jobs;
      clamp();
      draw();
    } finally {
      jobsReading = false;
      if (jobsAgain) {
        jobsAgain = false;
        scheduleJobs(c);
      }
    }
  };
  const scheduleJobs = (c: SpoolClient): void => {
    jobsTimer ??= setTimeout(() => {
      jobsTimer = null;
      refreshJobs(c).catch(() => undefined);
    }, JOBS_REFRESH_MS);
  };
  const refreshAll = async (c: SpoolClient): Promise<void> => {
    await Promise.all([refreshStats(c), refreshJobs(c)]);
    if (state.log) {
      const id = state.log.job.id;
      const { job } = await c.call('jobs.get', { id });
      const output = await c.call('jobs.output', { id, last: 1000 });
      if (state.log?.job.id === id) state.log = { job, lines: output.lines };
      draw();
    }
  };

  const connect = async (): Promise<void> => {
    for (let delay = 250; !ended; delay = Math.min(delay * 2, 5000)) {
      try {
        const c = await SpoolClient.connect(target ? { tls: target, reconnect: true } : { socketPath: endpoint, reconnect: true });
        await c.handshake();
        client = c;
        c.onStateChange((connState) => {
          if (connState === 'connected') {
            state.connected = true;
            state.message = null;
            refreshAll(c).catch(() => undefined);
          } else if (connState === 'disconnected') {
            state.connected = false;
            draw();
          } else if (!ended) {
            // Closed for good (a refused token, say): start over, telling why.
            state.connected = false;
            client = null;
            say(`lost the daemon at ${endpoint}; reconnecting (${errorMessage(c.closeReason ?? 'the connection closed')})`, true);
            void connect();
          }
        });
        await c.subscribe(
          { topics: ['stats', 'jobs', 'queues'] },
          {
            'stats.changed': (event) => {
              state.stats = event.stats;
              clamp();
              draw();
            },
            'jobs.changed': (event) => {
              if (state.log?.job.id === event.id) state.log.job = { ...state.log.job, state: event.state };
              scheduleJobs(c);
            },
            'queues.changed': () => {
              refreshStats(c).catch(() => undefined);
            },
          },
        );
        state.connected = true;
        state.message = null;
        await refreshAll(c);
        return;
      } catch (error) {
        if (error instanceof ProtocolMismatchError) return quit(1, error.message);
        state.connected = false;
        say(`lost the daemon at ${endpoint}; reconnecting (${errorMessage(error)})`, true);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };

  setInterval(() => {
    if (state.stats) sampler.sample(state.stats, Date.now());
    draw();
  }, SAMPLE_MS).unref();

  // --- acting on the selection ----------------------------------------------------------------
  const selectedQueue = (): string | null => (state.pane === 'queues' ? (state.stats?.queues[state.selected.queues]?.name ?? null) : null);
  const selectedJob = (): Job | null => {
    if (state.pane === 'running') return state.running[state.selected.running] ?? null;
    if (state.pane === 'failures') return state.failures[state.selected.failures] ?? null;
    return null;
  };
  /** Runs an action on the daemon, saying its outcome or its error on the bottom line. */
  const act = async (run: (c: SpoolClient) => Promise<string>): Promise<void> => {
    const c = client;
    if (c === null || !state.connected) return say(`Not connected to the daemon at ${endpoint}.`, true);
    try {
      say(await run(c));
    } catch (error) {
      say(error instanceof SpoolError || error instanceof Error ? error.message : String(error), true);
    }
  };
  const needJob = (what: string): Job | null => {
    const job = selectedJob();
    if (job === null) say(`Select a job to ${what}: Tab to the running jobs or the failures.`, true);
    return job;
  };

  const closeLog = async (): Promise<void> => {
    state.log = null;
    const sub = logSubscription;
    logSubscription = null;
    draw();
    await sub?.unsubscribe().catch(() => undefined);
  };
  const openLog = async (job: Job): Promise<void> => {
    await closeLog();
    await act(async (c) => {
      state.log = { job, lines: [] };
      logSubscription = await c.subscribe(
        { topics: ['output'], jobIds: [job.id] },
        {
          'jobs.output': (event) => {
            if (state.log?.job.id !== event.id) return;
            const last = state.log.lines.at(-1)?.seq ?? 0;
            state.log.lines.push(...event.lines.filter((l) => l.seq > last));
            if (state.log.lines.length > 2000) state.log.lines.splice(0, state.log.lines.length - 1000);
            draw();
          },
        },
      );
      const output = await c.call('jobs.output', { id: job.id, last: 1000 });
      if (state.log?.job.id === job.id) {
        const seen = new Set(state.log.lines.map((l) => l.seq));
        state.log.lines = [...output.lines.filter((l) => !seen.has(l.seq)), ...state.log.lines].sort((a, b) => a.seq - b.seq);
      }
      return `Showing the output of job ${shortId(job.id)}; Esc closes it.`;
    });
  };
  const openPager = async (job: Job): Promise<void> => {
    const c = client;
    if (c === null) return say(`Not connected to the daemon at ${endpoint}.`, true);
    let text = '';
    try {
      for (let after = 0, pages = 0; pages < 100; pages++) {
        const page = await c.call('jobs.output', { id: job.id, after, limit: 1000 });
        text += page.lines.map((l) => `${l.text}\n`).join('');
        if (page.lines.length === 0) break;
        after = page.nextAfter;
      }
    } catch (error) {
      return say(errorMessage(error), true);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-top-'));
    const file = path.join(dir, `${job.id}.log`);
    fs.writeFileSync(file, text === '' ? '(no output)\n' : text, { mode: 0o600 });
    const pager = process.env['PAGER'] || 'less +G';
    suspended = true;
    restore();
    try {
      await new Promise<void>((resolve) => {
        const child = spawn('/bin/sh', ['-c', `${pager} "$1"`, 'sh', file], { stdio: 'inherit' });
        child.on('error', () => resolve());
        child.on('exit', () => resolve());
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      suspended = false;
      enter();
      term.clear();
      draw(true);
    }
  };

  const move = (by: number): void => {
    const size = paneSize(state, state.pane);
    state.selected[state.pane] = Math.max(0, Math.min(size - 1, state.selected[state.pane] + by));
    draw();
  };
  const switchPane = (to: Pane): void => {
    state.pane = to;
    state.message = null;
    draw();
  };

  term.on('key', (name) => {
    if (suspended) return;
    if (name === 'CTRL_C') return quit(0);
    if (confirm) {
      const pending = confirm;
      confirm = null;
      if (name === 'y' || name === 'Y') void pending.run();
      else say('Nothing was cancelled.');
      return;
    }
    if (state.help) {
      state.help = false;
      if (name === 'q') return quit(0);
      return draw();
    }
    const step = PANES.indexOf(state.pane);
    switch (name) {
      case 'q':
        return quit(0);
      case '?':
      case 'h':
        state.help = true;
        return draw();
      case 'UP':
      case 'k':
        return move(-1);
      case 'DOWN':
      case 'j':
        return move(1);
      case 'PAGE_UP':
        return move(-10);
      case 'PAGE_DOWN':
        return move(10);
      case 'HOME':
        return move(-Infinity);
      case 'END':
        return move(Infinity);
      case 'TAB':
        return switchPane(PANES[(step + 1) % PANES.length] ?? 'queues');
      case 'SHIFT_TAB':
        return switchPane(PANES[(step + PANES.length - 1) % PANES.length] ?? 'queues');
      case '1':
      case '2':
      case '3':
        return switchPane(PANES[Number(name) - 1] ?? 'queues');
      case 'ESCAPE':
        state.message = null;
        void closeLog();
        return;
      case 'p': {
        const queue = selectedQueue();
        if (queue === null) return say('Select a queue to pause or resume: Tab to the queues.', true);
        const paused = state.stats?.queues.find((q) => q.name === queue)?.paused ?? false;
        void act(async (c) => {
          await c.call(paused ? 'queues.resume' : 'queues.pause', { name: queue });
          await refreshStats(c);
          return paused ? `Resumed queue ${queue}.` : `Paused queue ${queue}: its waiting jobs stay until it is resumed (p again).`;
        });
        return;
      }
      case 'r': {
        const job = needJob('retry');
        if (job === null) return;
        void act(async (c) => {
          const result = await c.call('jobs.retry', { id: job.id });
          scheduleJobs(c);
          return `Retried job ${shortId(job.id)}: it is ${result.job.state} in queue ${result.job.queue}.`;
        });
        return;
      }
      case 'c': {
        const job = needJob('cancel');
        if (job === null) return;
        confirm = {
          question: `Cancel job ${shortId(job.id)} (${job.queue}/${job.kind})? y cancels it, any other key keeps it.`,
          run: () =>
            act(async (c) => {
              const result = await c.call('jobs.cancel', { id: job.id });
              scheduleJobs(c);
              return result.job.state === 'cancelled' ? `Cancelled job ${shortId(job.id)}.` : `Asked job ${shortId(job.id)} to stop; it is ${result.job.state}.`;
            }),
        };
        return say(confirm.question);
      }
      case 'ENTER':
      case 'l': {
        const job = needJob('show the output of');
        if (job !== null) void openLog(job);
        return;
      }
      case 'L': {
        const job = needJob('show the output of');
        if (job !== null) void openPager(job);
        return;
      }
      default:
        return;
    }
  });

  await connect();
}

main().catch((error: unknown) => {
  process.stderr.write(`spool top: ${errorMessage(error)}\n`);
  process.exit(1);
});
