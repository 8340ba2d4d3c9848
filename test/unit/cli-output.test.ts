/** How `spool logs` and `enqueue --wait` print a job's output: run headings, markers, streams. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CliContext } from '../../cli/context';
import { outputPrinter } from '../../cli/output';
import type { OutputLine, OutputStream } from '../../shared/protocol/types';

function capture(): { ctx: CliContext; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const stream = (into: string[]): NodeJS.WriteStream => ({ write: (text: string) => into.push(text), isTTY: false }) as unknown as NodeJS.WriteStream;
  return { ctx: new CliContext({ socket: '/nowhere', color: false }, stream(stdout), stream(stderr)), stdout, stderr };
}

let seq = 0;
function line(run: number, attempt: number, text: string, stream: OutputStream = 'stdout'): OutputLine {
  return { seq: ++seq, run, attempt, stream, text, at: 0 };
}

test('a heading goes where each new run begins, naming the run and its attempt; the first run has none', () => {
  const { ctx, stdout, stderr } = capture();
  const print = outputPrinter(ctx, false);
  print([line(1, 1, 'one'), line(1, 1, 'oops', 'stderr')]);
  // Split across pages, the same run gets no second heading.
  print([line(1, 1, 'still one'), line(2, 1, 'retried'), line(3, 1, 'released and run again')]);
  assert.deepEqual(stdout, ['one\n', 'still one\n', 'retried\n', 'released and run again\n']);
  assert.deepEqual(stderr, ['oops\n', '--- run 2 (attempt 1) ---\n', '--- run 3 (attempt 1) ---\n']);
});

test('the dropped-lines marker starts no run, and lines from before run numbers are told apart by attempt', () => {
  const { ctx, stdout, stderr } = capture();
  const print = outputPrinter(ctx, false);
  // The marker carries the run of the latest drop, not of the lines after it.
  print([line(3, 1, '[500 older lines dropped]', 'marker'), line(0, 1, 'old first'), line(0, 2, 'old second'), line(3, 1, 'new')]);
  assert.deepEqual(stdout, ['old first\n', 'old second\n', 'new\n']);
  assert.deepEqual(stderr, ['[500 older lines dropped]\n', '--- attempt 2 ---\n', '--- run 3 (attempt 1) ---\n']);
});

test('--json prints each line as it came and nothing else', () => {
  const { ctx, stdout, stderr } = capture();
  const lines = [line(1, 1, 'a'), line(2, 1, 'b')];
  outputPrinter(ctx, true)(lines);
  assert.deepEqual(stdout.map((s) => JSON.parse(s) as unknown), lines);
  assert.deepEqual(stderr, []);
});
