/**
 * What the daemon's shell executor and `spool work --exec` both make of a command's output and
 * of how it ended (shared/client/shellJob.ts), without processes: chunks of output decoded into
 * lines and reports, in order, and each kind of ending turned into the job's outcome and message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobOutput, shellJobOutcome, type JobOutputStream, type JobReport } from '../../shared/client/shellJob';
import type { ProcessGroupExit } from '../../shared/client/processGroup';
import { LIMITS } from '../../shared/protocol';

type Written = { stream: JobOutputStream; lines: string[] } | { report: JobReport };

/** A JobOutput whose writes are collected in order; `refuse` makes the record of reports fail. */
function collect(options: { refuse?: string; maxBatch?: number } = {}): { output: JobOutput; written: Written[]; errors: unknown[] } {
  const written: Written[] = [];
  const errors: unknown[] = [];
  const output = new JobOutput(
    {
      append: (stream, lines) => {
        written.push({ stream, lines });
        return Promise.resolve();
      },
      record: (report) => {
        if (options.refuse !== undefined) return Promise.reject(new Error(options.refuse));
        written.push({ report });
        return Promise.resolve();
      },
      onError: (error) => errors.push(error),
    },
    options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch },
  );
  return { output, written, errors };
}

function exit(fields: Partial<ProcessGroupExit<'cancel'>>): ProcessGroupExit<'cancel'> {
  return { code: null, signal: null, stoppedFor: null, spawnError: null, ...fields };
}

const ENDING = { timeoutMs: 30_000, permanentExitCodes: [64], stderrTail: '' };

test('chunks become lines, stdout and stderr kept in the order they came, a CR before the newline dropped', async () => {
  const { output, written } = collect();
  output.write('stdout', Buffer.from('one\r\ntw'));
  output.write('stdout', Buffer.from('o\nthree\n'));
  output.write('stderr', Buffer.from('oops\n'));
  output.write('stdout', Buffer.from('last, unterminated'));
  await output.flush();
  assert.deepEqual(written, [
    { stream: 'stdout', lines: ['one', 'two', 'three'] },
    { stream: 'stderr', lines: ['oops'] },
    { stream: 'stdout', lines: ['last, unterminated'] },
  ]);
});

test('a character split across chunks is decoded whole', async () => {
  const { output, written } = collect();
  const bytes = Buffer.from('é€\n');
  output.write('stdout', bytes.subarray(0, 1));
  output.write('stdout', bytes.subarray(1, 3));
  output.write('stdout', bytes.subarray(3));
  await output.flush();
  assert.deepEqual(written, [{ stream: 'stdout', lines: ['é€'] }]);
});

test('a line over the per-line limit is split into lines within it, none of it lost, even before its newline', async () => {
  const { output, written } = collect();
  const max = LIMITS.maxOutputLineBytes;
  output.write('stdout', Buffer.from('x'.repeat(max * 2 + 10)));
  output.write('stdout', Buffer.from('y\n'));
  await output.flush();
  const lines = written.flatMap((w) => ('lines' in w ? w.lines : []));
  assert.deepEqual(lines, ['x'.repeat(max), 'x'.repeat(max), `${'x'.repeat(10)}y`]);
});

test('report lines are recorded in their place among the lines, only the last of a burst of progress', async () => {
  const { output, written } = collect();
  output.write('stdout', Buffer.from('start\n::spool progress 10\n::spool progress 40 compiling\n'));
  output.write('stderr', Buffer.from('::spool checkpoint {"step":3}\n'));
  output.write('stdout', Buffer.from('end\n'));
  await output.flush();
  assert.deepEqual(written, [
    { stream: 'stdout', lines: ['start'] },
    { report: { kind: 'progress', percent: 40, message: 'compiling' } },
    { report: { kind: 'checkpoint', checkpoint: { step: 3 } } },
    { stream: 'stdout', lines: ['end'] },
  ]);
});

test('a report line not understood is kept, followed by a log line that quotes it and says why', async () => {
  const { output, written } = collect();
  output.write('stdout', Buffer.from('::spool progress lots\n'));
  await output.flush();
  assert.deepEqual(written[0], { stream: 'stdout', lines: ['::spool progress lots'] });
  const note = written[1];
  assert.ok(note !== undefined && 'lines' in note && note.stream === 'log', JSON.stringify(written));
  assert.match(note.lines[0] ?? '', /^The line "::spool progress lots" was not understood as a report: write "::spool progress <0 to 100> \[message\]"/);
});

test('a report the daemon refuses is told in the log stream', async () => {
  const { output, written, errors } = collect({ refuse: 'Job 7 is not running' });
  output.write('stdout', Buffer.from('::spool progress 50\n'));
  await output.flush();
  assert.deepEqual(written, [{ stream: 'log', lines: ["The job's progress report was not recorded: Job 7 is not running"] }]);
  assert.deepEqual(errors, []);
});

test('lines the runner writes itself go to the log stream', async () => {
  const { output, written } = collect();
  output.log('Could not send SIGTERM to process group 12: EPERM');
  await output.flush();
  assert.deepEqual(written, [{ stream: 'log', lines: ['Could not send SIGTERM to process group 12: EPERM'] }]);
});

test('one append carries at most maxBatch lines', async () => {
  const { output, written } = collect({ maxBatch: 2 });
  output.write('stdout', Buffer.from('a\nb\nc\n'));
  await output.flush();
  assert.deepEqual(written, [
    { stream: 'stdout', lines: ['a', 'b'] },
    { stream: 'stdout', lines: ['c'] },
  ]);
});

test('the tail is the last non-blank lines of stderr, without reports', async () => {
  const { output } = collect();
  output.write('stdout', Buffer.from('not this\n'));
  output.write('stderr', Buffer.from(`${Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join('\n')}\n\n::spool progress 5\n`));
  await output.flush();
  assert.equal(output.tail(), Array.from({ length: 20 }, (_, i) => `line ${i + 6}`).join('\n'));
});

test('exit 0 completes the job', () => {
  assert.deepEqual(shellJobOutcome(exit({ code: 0 }), ENDING), { kind: 'completed', result: { exitCode: 0 } });
});

test('another exit code fails the job saying which, with the last lines of stderr; a listed code fails it for good', () => {
  assert.deepEqual(shellJobOutcome(exit({ code: 2 }), { ...ENDING, stderrTail: 'bad input' }), {
    kind: 'failed',
    error: 'The command exited with code 2.\nLast lines of stderr:\nbad input',
    exitCode: 2,
    permanent: false,
  });
  assert.deepEqual(shellJobOutcome(exit({ code: 64 }), ENDING), { kind: 'failed', error: 'The command exited with code 64.', exitCode: 64, permanent: true });
});

test('a signal fails the job naming the signal', () => {
  assert.deepEqual(shellJobOutcome(exit({ signal: 'SIGSEGV' }), { ...ENDING, stderrTail: 'core dumped' }), {
    kind: 'failed',
    error: 'The command was killed by SIGSEGV.\nLast lines of stderr:\ncore dumped',
    permanent: false,
  });
});

test('the timeout fails the job naming the timeout and how the command ended, never for good', () => {
  assert.deepEqual(shellJobOutcome(exit({ signal: 'SIGKILL', stoppedFor: 'timeout' }), { ...ENDING, permanentExitCodes: [143] }), {
    kind: 'failed',
    error: 'The command was killed by SIGKILL after the 30s timeout.',
    permanent: false,
  });
  assert.deepEqual(shellJobOutcome(exit({ code: 143, stoppedFor: 'timeout' }), { ...ENDING, timeoutMs: 1500, permanentExitCodes: [143], stderrTail: 'stopping' }), {
    kind: 'failed',
    error: 'The command was stopped after the 1.5s timeout and exited with code 143.\nLast lines of stderr:\nstopping',
    exitCode: 143,
    permanent: false,
  });
});

test("a stop the runner asked for is handed back with the runner's reason, whatever the exit", () => {
  assert.deepEqual(shellJobOutcome(exit({ signal: 'SIGTERM', stoppedFor: 'cancel' }), ENDING), { kind: 'stopped', reason: 'cancel' });
  assert.deepEqual(shellJobOutcome(exit({ code: 0, stoppedFor: 'cancel' }), ENDING), { kind: 'stopped', reason: 'cancel' });
});

test('a command that could not be started fails the job naming the program', () => {
  const spawnError = new Error('spawn prlimit ENOENT');
  assert.deepEqual(shellJobOutcome(exit({ spawnError }), ENDING), { kind: 'failed', error: 'Could not start /bin/sh: spawn prlimit ENOENT', permanent: false });
  assert.deepEqual(shellJobOutcome(exit({ spawnError }), { ...ENDING, program: 'prlimit' }), { kind: 'failed', error: 'Could not start prlimit: spawn prlimit ENOENT', permanent: false });
});

test('a cause (a resource limit hit) leads the message of an exit or a signal', () => {
  const outcome = shellJobOutcome(exit({ signal: 'SIGXCPU' }), { ...ENDING, cause: 'Killed: CPU time limit 1s' });
  assert.deepEqual(outcome, { kind: 'failed', error: 'Killed: CPU time limit 1s. The command was killed by SIGXCPU.', permanent: false });
});
