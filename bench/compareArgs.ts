/**
 * The command line of `bench compare`: `npm run bench -- compare --old <dir-or-ref> [--new
 * <dir-or-ref>] [--blocks N] [--jobs N] [--samples N]`.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../shared/protocol/errors';

/** What `bench compare` was asked to do. */
export interface CompareOptions {
  /** A folder holding a built checkout (its dist/), or a git ref of this checkout's repository. */
  old: string;
  /** The same for the new build; null for this checkout. */
  new: string | null;
  /** Rounds of old-and-new measurements. */
  blocks: number;
  /** Jobs per throughput figure, per build, per block. */
  jobs: number;
  /** Enqueue-to-claim latency samples per build, per block. */
  samples: number;
}

export const COMPARE_DEFAULTS = { blocks: 6, jobs: 50_000, samples: 1000 } as const;

export const COMPARE_USAGE = `npm run bench -- compare --old <dir-or-ref> [--new <dir-or-ref>] [--blocks N] [--jobs N] [--samples N]
  (or, once built: node dist/bench.js compare …)

  Compares two builds' daemons over the socket in one run, interleaved: in each block every
  figure is measured on old and new one after the other, old first in odd blocks and new first
  in even ones (A B B A …), each on a freshly started daemon with its own socket and database.
  The measuring clients are this checkout's for both builds; only the daemon differs.

  --old <dir-or-ref>  a folder with a built checkout (its dist/daemon.js is run as it is), or a
                      git ref of this repository (HEAD, main, a commit): it is extracted into a
                      temporary folder and built there with this checkout's node_modules
  --new <dir-or-ref>  the same for the new build (default: this checkout, built by npm run bench)
  --blocks N          blocks, at least 2; an even number gives each build as many first turns
                      (default ${COMPARE_DEFAULTS.blocks})
  --jobs N            jobs per throughput figure, per build and block (default ${COMPARE_DEFAULTS.jobs.toLocaleString('en-US')})
  --samples N         enqueue-to-claim latency samples, per build and block, one every 5 ms
                      (default ${COMPARE_DEFAULTS.samples.toLocaleString('en-US')}), taken after 3,000 unmeasured ones that warm
                      the daemon up (SPOOL_BENCH_LATENCY_WARMUP=N sets that number; 0: none)

  Figures: pipelined jobs.enqueue on one connection; end to end (a producer and a worker at
  once); filling a queue and then draining it with one worker; enqueue-to-claim latency p50 and
  p99. Each rate comes with the daemon's CPU time per job (user + system, all its threads, from
  /proc/<pid>/stat; Linux only). Printed: each build's median over the blocks with its range,
  new/old of the medians, the range of the per-block ratios, and the change.`;

/** A mistake in the command line or in what it names: reported in one line, without a stack. */
export class UsageError extends Error {}

/** Reads a whole number within bounds, or fails naming the option and what it allows. */
function integerOption(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name}: expected a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, got '${value}'.`);
  }
  return n;
}

/** Parses the arguments after `compare`; throws an Error whose message names the offending option. */
export function parseCompareArgs(argv: readonly string[]): CompareOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        old: { type: 'string' },
        new: { type: 'string' },
        blocks: { type: 'string' },
        jobs: { type: 'string' },
        samples: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const message = errorMessage(error).replace(/\.?$/, '.');
    throw new UsageError(`${message} Options: --old, --new, --blocks, --jobs, --samples (see --help).`);
  }
  const text = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === 'string' ? v : undefined;
  };
  const old = text('old');
  if (old === undefined || old === '') throw new UsageError('--old: required; give a folder with a built checkout or a git ref (for example --old main).');
  const next = text('new');
  if (next === '') throw new UsageError('--new: expected a folder or a git ref; leave the option out to compare with this checkout.');
  return {
    old,
    new: next ?? null,
    blocks: integerOption('blocks', text('blocks'), COMPARE_DEFAULTS.blocks, 2, 1000),
    jobs: integerOption('jobs', text('jobs'), COMPARE_DEFAULTS.jobs, 1000, 10_000_000),
    samples: integerOption('samples', text('samples'), COMPARE_DEFAULTS.samples, 20, 1_000_000),
  };
}
