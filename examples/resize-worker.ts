/**
 * A Node worker for "resize" jobs, built on the worker helper of the spool-client package
 * (packages/client; in another project: npm install <path to spool>/packages/client).
 *
 *   node --import tsx examples/resize-worker.ts [--queue images] [--concurrency 2]   (from the repository's root)
 *   spool enqueue images --kind resize --payload '{"width":640,"height":480,"scale":0.5}'
 *   spool enqueue images --kind resize --payload '{"width":640,"height":480,"scale":0.5,"stepDelayMs":2000}'
 *
 * Each job "resizes" a generated greyscale image of width×height by `scale` (nearest
 * neighbour, done for real, in memory), reporting progress after each tenth of the rows and
 * saving a checkpoint so a retry resumes where the last attempt stopped. A job asking for
 * something impossible (a non-positive size, a scale over 4) fails permanently: retrying cannot
 * help, so it goes straight to dead. A cancel (`spool cancel <id>`) stops it between steps; the
 * worker learns of it from its next heartbeat, within 5 s, so to watch one, slow the job down
 * with `stepDelayMs` (a pause after each step, as if the rows were written somewhere slow).
 * SIGTERM or Ctrl-C lets running jobs finish first; a second one hands them back at once.
 */
import { errorMessage, PermanentError, runWorker, type Job, type WorkContext } from 'spool-client';

interface ResizePayload {
  width: number;
  height: number;
  scale: number;
  stepDelayMs: number;
}

interface ResizeResult {
  width: number;
  height: number;
  checksum: number;
}

/** Checks the payload; anything wrong with it is permanent, since a retry would see the same. */
function readPayload(job: Job): ResizePayload {
  const p = job.payload;
  if (typeof p !== 'object' || p === null) throw new PermanentError('The payload must be an object {width, height, scale}.');
  const width = 'width' in p ? p.width : undefined;
  const height = 'height' in p ? p.height : undefined;
  const scale = 'scale' in p ? p.scale : 1;
  const stepDelayMs = 'stepDelayMs' in p ? p.stepDelayMs : 0;
  if (typeof width !== 'number' || typeof height !== 'number' || !Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new PermanentError(`Cannot resize a ${String(width)}×${String(height)} image: width and height must be positive whole numbers.`);
  }
  if (typeof scale !== 'number' || !(scale > 0) || scale > 4) {
    throw new PermanentError(`Cannot scale by ${String(scale)}: use a factor above 0 and at most 4.`);
  }
  if (typeof stepDelayMs !== 'number' || !(stepDelayMs >= 0) || stepDelayMs > 60_000) {
    throw new PermanentError(`Cannot pause ${String(stepDelayMs)} ms per step: use 0 to 60000.`);
  }
  return { width, height, scale, stepDelayMs };
}

/** The row a previous attempt saved, or 0. */
function resumeRow(job: Job): number {
  const c = job.checkpoint;
  return typeof c === 'object' && c !== null && 'row' in c && typeof c.row === 'number' ? c.row : 0;
}

async function resize(job: Job, ctx: WorkContext): Promise<ResizeResult> {
  const { width, height, scale, stepDelayMs } = readPayload(job);
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));
  const source = new Uint8Array(width * height);
  for (let i = 0; i < source.length; i++) source[i] = (i * 31 + (i >> 7)) & 0xff;
  const target = new Uint8Array(outWidth * outHeight);
  const start = resumeRow(job);
  if (start > 0) await ctx.log(`resuming at row ${start} of ${outHeight}`);
  const rowsPerStep = Math.max(1, Math.ceil(outHeight / 10));
  for (let y = start; y < outHeight; y++) {
    if (ctx.signal.aborted) throw new Error(`Stopped at row ${y}: ${String(ctx.signal.reason)}`);
    const sy = Math.min(height - 1, Math.floor(y / scale));
    for (let x = 0; x < outWidth; x++) target[y * outWidth + x] = source[sy * width + Math.min(width - 1, Math.floor(x / scale))] ?? 0;
    if ((y + 1) % rowsPerStep === 0 || y + 1 === outHeight) {
      await ctx.progress(Math.round(((y + 1) / outHeight) * 100), `row ${y + 1}/${outHeight}`);
      await ctx.checkpoint({ row: y + 1 });
      // Let heartbeats and a cancel get through between steps (a pause that ends early if the
      // job is stopped meanwhile).
      await pause(stepDelayMs, ctx.signal);
    }
  }
  let checksum = 0;
  for (const v of target) checksum = (checksum * 33 + v) >>> 0;
  await ctx.log(`resized ${width}×${height} to ${outWidth}×${outHeight}`);
  return { width: outWidth, height: outHeight, checksum };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms === 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const queue = option('queue', 'images');
  const worker = await runWorker({
    queues: [queue],
    kinds: ['resize'],
    concurrency: Number(option('concurrency', '2')),
    name: 'resize-worker example',
    handleSignals: true,
    handler: resize,
  });
  process.stderr.write(`resize worker ${worker.workerId} is taking "resize" jobs from ${queue}; Ctrl-C to stop\n`);
  await worker.done;
}

main().catch((error: unknown) => {
  process.stderr.write(`resize worker: ${errorMessage(error)}\n`);
  process.exit(1);
});
