/**
 * The language server's figures: what an editor waits for in a large jobs file — diagnostics
 * after an edit of a file with 1,000 schedules (parse, check and convert, target < 100 ms), and a
 * hover on a cron (words and the next five fire times in a zone with DST, target < 20 ms). The
 * pure service is measured, as the server calls it, without the protocol's transport.
 */
import { performance } from 'node:perf_hooks';
import * as service from '../lsp/service';
import type { BenchFigure } from './figure';

/** A jobs file with `n` schedules over ten templates and three queues; `variant` changes one cron. */
export function largeJobsFile(n: number, variant = 0): string {
  const queues = ['mail', 'reports', 'maintenance'].map((q) => `    "${q}": { "concurrency": 4, "rateLimit": "10/s", "backoff": "exponential:1s:5m", "timeout": "5m" }`);
  const templates = Array.from({ length: 10 }, (_, t) => `    "t${t}": { "queue": "${['mail', 'reports', 'maintenance'][t % 3]}", "kind": "shell", "command": "./run.sh {{target}}", "params": { "target": { "default": "all" } } }`);
  const zones = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe'];
  const schedules = Array.from({ length: n }, (_, i) => {
    const minute = i === variant % n ? (variant % 60) : i % 60;
    return `    "s${i}": { "cron": "${minute} ${i % 24} * * *", "timezone": "${zones[i % zones.length]}", "template": "t${i % 10}", "params": { "target": "db${i}" } }`;
  });
  return `{\n  "project": "bench",\n  "queues": {\n${queues.join(',\n')}\n  },\n  "templates": {\n${templates.join(',\n')}\n  },\n  "schedules": {\n${schedules.join(',\n')}\n  }\n}\n`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Runs the language server's benchmark; prints its lines and returns its figures. */
export function runLspBench(options: { quick?: boolean; log?: (line: string) => void } = {}): BenchFigure[] {
  const log = options.log ?? ((line: string) => console.log(line));
  const rounds = options.quick ? 10 : 50;
  const figures: BenchFigure[] = [];
  log('Language server (the pure service, as the server calls it)');
  const live: service.LiveData = { queues: ['mail', 'reports', 'maintenance'].map((name) => ({ name, counts: { blocked: 0, queued: 3, running: 1, retrying: 0, held: 0, completed: 10, dead: 1, cancelled: 0 } })) };

  // Diagnostics after an edit: every round is a new text (one cron changed), parsed from scratch.
  const texts = Array.from({ length: rounds + 5 }, (_, i) => largeJobsFile(1000, i + 1));
  const edit: number[] = [];
  let count = 0;
  for (let i = 0; i < texts.length; i++) {
    const started = performance.now();
    const doc = service.analyze(texts[i] ?? '');
    count = service.diagnostics(doc, live).length;
    // The first rounds warm the JIT up; they are not counted.
    if (i >= 5) edit.push(performance.now() - started);
  }
  if (count !== 0) throw new Error(`The benchmark's file should be clean; it has ${count} diagnostics.`);
  edit.sort((a, b) => a - b);
  const editMedian = percentile(edit, 50);
  figures.push({ name: 'diagnostics after an edit, 1,000 schedules (median)', value: editMedian, unit: 'ms', target: '< 100', met: editMedian < 100 });
  log(`  ${'diagnostics after an edit, 1,000 schedules (median)'.padEnd(58)} ${editMedian.toFixed(1).padStart(12)} ms  (p95 ${percentile(edit, 95).toFixed(1)} ms; target < 100: ${editMedian < 100 ? 'met' : 'MISSED'})`);

  // Hover on a cron of that file: Lord Howe's half-hour DST shift is the costliest zone.
  const text = texts[texts.length - 1] ?? '';
  const doc = service.analyze(text);
  const at = text.indexOf('"cron"', text.indexOf('"s3"')) + 10;
  const position = doc.lines.position(at);
  const now = Date.UTC(2026, 9, 3, 12);
  const hovers: number[] = [];
  for (let i = 0; i < rounds * 4 + 20; i++) {
    const started = performance.now();
    const h = service.hover(doc, position, live, now + i * 60_000);
    if (h === null) throw new Error('No hover on the cron.');
    if (i >= 20) hovers.push(performance.now() - started);
  }
  hovers.sort((a, b) => a - b);
  const hoverMedian = percentile(hovers, 50);
  figures.push({ name: 'hover on a cron, next five runs (median)', value: hoverMedian, unit: 'ms', target: '< 20', met: hoverMedian < 20 });
  log(`  ${'hover on a cron, next five runs (median)'.padEnd(58)} ${hoverMedian.toFixed(2).padStart(12)} ms  (p95 ${percentile(hovers, 95).toFixed(2)} ms; target < 20: ${hoverMedian < 20 ? 'met' : 'MISSED'})`);
  return figures;
}
