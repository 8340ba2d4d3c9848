/**
 * The extension's pure logic behind feedback and the enqueue steps: what each step accepts as it
 * is typed, what the answers become, how the steps are walked (numbering, Back), how dead-job
 * notifications are merged (on a fake clock: no waiting), how Go to Job reads an id, and how
 * daemon errors are put in the editor's words.
 */
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProtocolMismatchError } from '../../shared/client/client';
import { SpoolError } from '../../shared/protocol/errors';
import { DaemonNotRunningError } from '../../shared/client/connection';
import { ErrorCode, PROTOCOL_VERSION } from '../../shared/protocol';
import { editorMessage, withoutCliHints } from '../../extension/errors';
import { parseJobRef, shortRefProblem } from '../../extension/commands/jobs/jobRef';
import { draftJob } from '../../extension/commands/steps/draft';
import { walkSteps, type StepOutcome, type Step, type StepInput } from '../../extension/commands/steps/plan';
import { TEMPLATE_OPTIONS, cronPreview, jsonProblem, nameProblem, parseHeaders, parseOptions, takesBody, urlProblem, zoneProblem } from '../../extension/commands/steps/rules';
import { DeathBatch, deathNotice, shortError, type Clock, type Death } from '../../extension/deathBatch';

describe('enqueue steps: what each step takes as it is typed', () => {
  test('a queue name follows the name rule, and the problem names the queue and what is allowed', () => {
    assert.equal(nameProblem('queue', 'builds'), null);
    assert.equal(nameProblem('queue', '  builds  '), null);
    assert.match(nameProblem('queue', 'my queue') ?? '', /^"my queue" is not a valid queue name: a name is 1 to 128 characters of letters, digits/);
    assert.match(nameProblem('queue', '') ?? '', /Type a queue name/);
  });

  test('a URL must be absolute http or https', () => {
    assert.equal(urlProblem('https://example.com/hook'), null);
    assert.match(urlProblem('example.com') ?? '', /not a URL: type an absolute http:\/\/ or https:\/\/ URL/);
    assert.match(urlProblem('ftp://example.com') ?? '', /must use http or https \(got ftp:\)/);
  });

  test('a bare number is not a duration: delay and timeout need their unit, as in the CLI', () => {
    const bare = parseOptions('delay=30');
    assert.equal(bare.ok, false);
    assert.match(bare.ok ? '' : bare.message, /^delay is not a duration: a number needs a unit \(ms, s, m, h, d or w\), e\.g\. 30s or 30m \(got "30"\)/);
    assert.deepEqual(parseOptions('delay=30s'), { ok: true, value: { delayMs: 30_000 } });
    const timeout = parseOptions('timeout=10');
    assert.match(timeout.ok ? '' : timeout.message, /^timeout is not a duration: a number needs a unit/);
  });

  test('options take priority, delay, attempts, backoff and timeout, in any order, in the domain syntax', () => {
    assert.deepEqual(parseOptions(''), { ok: true, value: {} });
    assert.deepEqual(parseOptions('attempts=3 priority=-5 backoff=exponential:1s:5m timeout=1h30m delay=2m'), {
      ok: true,
      value: { maxAttempts: 3, priority: -5, backoff: { strategy: 'exponential', baseMs: 1000, capMs: 300_000 }, timeoutMs: 5_400_000, delayMs: 120_000 },
    });
    const problems = ['priority=high', 'attempts=0', 'backoff=sometimes', 'timeout=50ms', 'colour=red'].map((o) => {
      const parsed = parseOptions(o);
      return parsed.ok ? '' : parsed.message;
    });
    assert.match(problems[0] ?? '', /^priority must be an integer from -1000 to 1000 \(got "high"\)/);
    assert.match(problems[1] ?? '', /^attempts must be an integer from 1 to 1000 \(got 0\)/);
    assert.match(problems[2] ?? '', /^backoff "sometimes": use strategy\[:base\[:cap\[:jitter\]\]\]/);
    assert.match(problems[3] ?? '', /^timeout must be a duration from 100ms to 7d \(got "50ms"\)/);
    assert.match(problems[4] ?? '', /^Unknown option "colour": use priority=, delay=, attempts=, backoff=, timeout=/);
  });

  test("a schedule's job takes no delay: the schedule says when", () => {
    const delay = parseOptions('delay=5m', TEMPLATE_OPTIONS);
    assert.match(delay.ok ? '' : delay.message, /^Unknown option "delay": use priority=, attempts=, backoff=, timeout=/);
  });

  test('headers are Name: value entries separated by |, or a JSON object of strings', () => {
    assert.deepEqual(parseHeaders(''), { ok: true, value: {} });
    assert.deepEqual(parseHeaders('Authorization: Bearer a:b | X-Source: spool'), { ok: true, value: { Authorization: 'Bearer a:b', 'X-Source': 'spool' } });
    assert.deepEqual(parseHeaders('{"Accept":"text/plain"}'), { ok: true, value: { Accept: 'text/plain' } });
    const noColon = parseHeaders('Authorization Bearer');
    assert.match(noColon.ok ? '' : noColon.message, /Header "Authorization Bearer": use Name: value, several separated by \|/);
    const badName = parseHeaders('X Source: spool');
    assert.match(badName.ok ? '' : badName.message, /"X Source" is not a header name/);
    const notString = parseHeaders('{"Retries":3}');
    assert.match(notString.ok ? '' : notString.message, /Header "Retries": its value must be a string/);
  });

  test('a custom payload must be JSON', () => {
    assert.equal(jsonProblem('{"path":"a.png"}'), null);
    assert.match(jsonProblem('{path: a.png}') ?? '', /^Not valid JSON/);
  });

  test('GET and HEAD take no body, so their body step is skipped', () => {
    assert.deepEqual(
      ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'].map((m) => takesBody(m)),
      [false, false, true, true, true],
    );
  });
});

describe('the answers make the job the CLI would enqueue', () => {
  test('an http job carries its method, headers and body; defaults are left out', () => {
    const post = draftJob({ queue: 'hooks', kindChoice: 'http', url: 'https://example.com/hook', method: 'POST', headers: 'X-Source: spool', body: '{"ok":true}', options: 'attempts=2' }, '/work');
    assert.deepEqual(post, {
      ok: true,
      value: { kind: 'http', payload: { url: 'https://example.com/hook', method: 'POST', headers: { 'X-Source': 'spool' }, body: '{"ok":true}' }, options: { maxAttempts: 2 } },
    });
    // A body typed before the method was changed to GET (with Back) is not sent.
    const get = draftJob({ kindChoice: 'http', url: 'https://example.com/', method: 'GET', body: 'left over' }, undefined);
    assert.deepEqual(get, { ok: true, value: { kind: 'http', payload: { url: 'https://example.com/' }, options: {} } });
  });

  test('a shell job runs in the workspace folder; a custom job carries its JSON', () => {
    assert.deepEqual(draftJob({ kindChoice: 'shell', command: 'npm test' }, '/work'), { ok: true, value: { kind: 'shell', payload: { command: 'npm test', cwd: '/work' }, options: {} } });
    assert.deepEqual(draftJob({ kindChoice: 'custom', customKind: 'resize', payload: '{"w":640}' }, '/work'), { ok: true, value: { kind: 'resize', payload: { w: 640 }, options: {} } });
  });
});

describe('the steps are numbered among those that apply, and Back returns to the one before', () => {
  interface Draft {
    kind?: 'shell' | 'http';
    log: string[];
  }

  /** The scripted steps below answer by themselves and never show a widget. */
  const NO_WIDGETS: StepInput = {
    pick: () => Promise.reject(new Error('a scripted step shows no pick')),
    pickOrType: () => Promise.reject(new Error('a scripted step shows no pick')),
    text: () => Promise.reject(new Error('a scripted step shows no input')),
  };

  /** A step that answers from a script (`next` once the script is used up). */
  function scripted(answers: StepOutcome[], applies?: (d: Draft) => boolean, store?: (d: Draft) => void): Step<Draft> {
    return {
      ...(applies ? { applies } : {}),
      run: async (_input, draft) => {
        const outcome = answers.shift() ?? 'next';
        if (outcome === 'next') store?.(draft);
        return outcome;
      },
    };
  }

  test('an http job has more steps than a shell one, and Back from the URL returns to the kind', async () => {
    const kindAnswers: StepOutcome[] = ['next', 'next'];
    let kindTimes = 0;
    const steps: Step<Draft>[] = [
      scripted([]),
      scripted(kindAnswers, undefined, (d) => {
        // First the user picks shell, then (after Back from the command) http.
        d.kind = kindTimes++ === 0 ? 'shell' : 'http';
      }),
      scripted(['back'], (d) => d.kind === 'shell'),
      scripted([], (d) => d.kind === 'http'),
      scripted([], (d) => d.kind === 'http'),
      scripted([]),
    ];
    const names = ['queue', 'kind', 'command', 'url', 'method', 'options'];
    const draft: Draft = { log: [] };
    const done = await walkSteps(steps, draft, 0, (step, position, total) => {
      draft.log.push(`${names[steps.indexOf(step)] ?? '?'} ${position}/${total}`);
      return step.run(NO_WIDGETS, draft);
    });
    assert.equal(done, true);
    assert.deepEqual(draft.log, ['queue 1/3', 'kind 2/3', 'command 3/4', 'kind 2/4', 'url 3/5', 'method 4/5', 'options 5/5']);
  });

  test('cancel at any step ends the walk; Back on the first step stays there', async () => {
    const draft: Draft = { log: [] };
    const steps = [scripted(['back', 'next']), scripted(['cancel'])];
    const asked: number[] = [];
    const done = await walkSteps(steps, draft, 0, (step, position) => {
      asked.push(position);
      return step.run(NO_WIDGETS, draft);
    });
    assert.equal(done, false);
    assert.deepEqual(asked, [1, 1, 2]);
  });
});

describe('the cron step shows the expression in words and when it fires, in its zone and locally', () => {
  // A fixed instant and explicit zones: the expectation does not depend on the machine's clock or zone.
  const now = Date.UTC(2026, 0, 10, 12, 0, 0);

  test('the next three fire times, in the chosen zone and in the local one', () => {
    assert.deepEqual(cronPreview('0 3 * * *', 'Europe/Paris', now, 'America/New_York'), {
      ok: true,
      message: 'Every day at 03:00. Next: Sun 11 Jan 2026 03:00, Mon 12 Jan 2026 03:00, Tue 13 Jan 2026 03:00 (Europe/Paris); Sat 10 Jan 2026 21:00, Sun 11 Jan 2026 21:00, Mon 12 Jan 2026 21:00 (local, America/New_York).',
    });
  });

  test('one zone when the local one is the same; seconds when the expression has them', () => {
    assert.deepEqual(cronPreview('*/20 * * * * *', 'UTC', now, 'UTC'), { ok: true, message: 'Every 20 seconds. Next: Sat 10 Jan 2026 12:00:20, Sat 10 Jan 2026 12:00:40, Sat 10 Jan 2026 12:01:00 (UTC).' });
  });

  test("a problem names the field and what it takes, in the domain's words", () => {
    const preview = cronPreview('61 * * * *', 'UTC', now, 'UTC');
    assert.equal(preview.ok, false);
    assert.match(preview.message, /61 is out of range 0-59 in the minute field/);
    assert.match(cronPreview('0 3 * * *', 'Mars/Olympus', now, 'UTC').message, /Unknown time zone "Mars\/Olympus"/);
  });
});

/** A clock whose time moves only when the test says, running the timers that fall due. */
class FakeClock implements Clock {
  private at = 0;
  private timers: { due: number; fn: () => void; cancelled: boolean }[] = [];

  now(): number {
    return this.at;
  }

  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    const timer = { due: this.at + ms, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const next = this.timers.filter((t) => !t.cancelled && t.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.at = next.due;
      next.cancelled = true;
      next.fn();
    }
    this.at = end;
  }
}

function death(n: number, queue = 'bulk'): Death {
  return { id: `0193b6f0-7c1e-7d4f-8a9b-00000000000${n}`, queue, kind: 'shell', attempt: 1 };
}

describe('dead-job notifications are merged', () => {
  test('three deaths within a few seconds become one notification once they stop coming', () => {
    const clock = new FakeClock();
    const flushed: Death[][] = [];
    const batch = new DeathBatch((deaths) => flushed.push(deaths), clock, { quietMs: 2000, maxWaitMs: 6000 });
    batch.add(death(1));
    clock.advance(500);
    batch.add(death(2));
    clock.advance(500);
    batch.add(death(3));
    clock.advance(1999);
    assert.equal(flushed.length, 0, 'still within two quiet seconds of the last death');
    clock.advance(1);
    assert.deepEqual(flushed.map((b) => b.length), [3]);
    const notice = deathNotice(flushed[0] ?? [], 'The command exited with code 3.\n--- last lines ---\nboom');
    assert.deepEqual(notice, { message: 'Spool: 3 jobs in bulk died: exit 3 …', actions: ['Retry All', 'Show'] });
  });

  test('a steady stream of deaths is still reported after the longest wait', () => {
    const clock = new FakeClock();
    const flushed: number[] = [];
    const batch = new DeathBatch((deaths) => flushed.push(deaths.length), clock, { quietMs: 2000, maxWaitMs: 6000 });
    for (let i = 0; i < 10; i++) {
      batch.add(death(i % 10));
      clock.advance(1000);
    }
    clock.advance(2000);
    assert.deepEqual(flushed, [6, 4], 'the six of the first six seconds, then the other four');
  });

  test('one death reads as before, with its error; deaths apart are told apart', () => {
    const clock = new FakeClock();
    const flushed: Death[][] = [];
    const batch = new DeathBatch((deaths) => flushed.push(deaths), clock);
    batch.add(death(1, 'ui-demo'));
    clock.advance(10_000);
    batch.add(death(2, 'ui-demo'));
    clock.advance(10_000);
    assert.deepEqual(flushed.map((b) => b.length), [1, 1]);
    assert.deepEqual(deathNotice(flushed[0] ?? [], 'The command exited with code 3.'), {
      message: 'Spool: shell job 00000001 in ui-demo failed after 1 attempt and is dead. Exit 3.',
      actions: ['Retry', 'Show Output'],
    });
  });

  test('deaths in several queues name them; a dispose drops what is pending', () => {
    assert.equal(deathNotice([death(1, 'a'), death(2, 'b')], null).message, 'Spool: 2 jobs in a, b died.');
    const clock = new FakeClock();
    const flushed: Death[][] = [];
    const batch = new DeathBatch((deaths) => flushed.push(deaths), clock);
    batch.add(death(1));
    batch.dispose();
    clock.advance(10_000);
    assert.deepEqual(flushed, []);
  });

  test('errors are cut to their first line, and an exit code to two words', () => {
    assert.equal(shortError('The command exited with code 127.\nsh: nope: not found'), 'exit 127');
    assert.equal(shortError('HTTP 503 from https://example.com/.'), 'HTTP 503 from https://example.com/');
    assert.equal(shortError(null), '');
  });
});

describe('Go to Job takes a whole id or the 8 characters the views show', () => {
  test('whole and short ids, in any case; anything else says what to type', () => {
    assert.deepEqual(parseJobRef(' 0193B6F0-7C1E-7D4F-8A9B-1C2D3E4F5A6B '), { kind: 'full', id: '0193b6f0-7c1e-7d4f-8a9b-1c2d3e4f5a6b' });
    assert.deepEqual(parseJobRef('3E4F5A6B'), { kind: 'short', suffix: '3e4f5a6b' });
    const wrong = parseJobRef('3e4f5a');
    assert.equal(wrong.kind, 'invalid');
    assert.match(wrong.kind === 'invalid' ? wrong.message : '', /"3e4f5a" is not a job id: type the whole id .* or the 8 characters the views show/);
    assert.deepEqual(parseJobRef('8A9B-1C2D3E4F5A6B'), { kind: 'short', suffix: '8a9b-1c2d3e4f5a6b' }, 'more of the end than the views show');
  });

  test('an end no job has, or several jobs have, says what to do in the editor\'s words', () => {
    assert.equal(shortRefProblem('3e4f5a6b', 1), null);
    assert.equal(shortRefProblem('3e4f5a6b', 2), '2 or more jobs end in 3e4f5a6b: paste more of the id (Copy Job Id copies it whole).');
    assert.match(shortRefProblem('3e4f5a6b', 0) ?? '', /^No job id ends in 3e4f5a6b\. Paste the whole id/);
    assert.doesNotMatch(shortRefProblem('3e4f5a6b', 0) ?? '', /spool /);
  });
});

describe("daemon errors are shown in the editor's words", () => {
  test('not-found errors point at the views, by code and data, not at CLI commands', () => {
    const schedule = new SpoolError(ErrorCode.ScheduleNotFound, 'No schedule named "nightly". List schedules with `spool schedules`.', { schedule: 'nightly' });
    assert.equal(editorMessage(schedule), 'No schedule named "nightly": it may have been deleted. The Schedules view lists the schedules there are.');
    const queue = new SpoolError(ErrorCode.QueueNotFound, 'No queue named "q". List queues with `spool queues`; a queue is created when a job is first enqueued to it.', { queue: 'q' });
    assert.doesNotMatch(editorMessage(queue), /spool queues/);
    const job = new SpoolError(ErrorCode.JobNotFound, 'No job with id 0193. List jobs with `spool jobs`.', { id: '0193' });
    assert.equal(editorMessage(job), 'No job with id 0193: it may have been deleted. The Queues view lists the jobs there are.');
  });

  test('a protocol mismatch keeps its facts and points at Restart Daemon; other messages lose their CLI hints only', () => {
    assert.equal(
      editorMessage(new ProtocolMismatchError('/tmp/s.sock', 2, '0.2.0')),
      `The Spool daemon at /tmp/s.sock speaks protocol 2 (Spool 0.2.0); this client speaks protocol ${PROTOCOL_VERSION}. Restart Daemon stops it and starts this extension's version.`,
    );
    assert.equal(editorMessage(new DaemonNotRunningError('/tmp/s.sock', 'ENOENT')), 'No Spool daemon at /tmp/s.sock (ENOENT). Run "Spool: Start Daemon" to start one.');
    assert.equal(withoutCliHints('The socket is taken. Stop it with `spool daemon stop`, or start this one with another --socket.'), 'The socket is taken.');
    const state = new SpoolError(ErrorCode.InvalidState, 'Cannot retry job 0193: it is running. Cancel it first.', { id: '0193', state: 'running' });
    assert.equal(editorMessage(state), 'Cannot retry job 0193: it is running. Cancel it first.');
  });
});

test('Create Schedule\'s zone step suggests the zone meant: "paris" is Europe/Paris, a misspelt name its closest zone', () => {
  assert.equal(zoneProblem('Europe/Paris'), null);
  assert.equal(zoneProblem('paris'), 'Unknown time zone "paris": did you mean Europe/Paris? Pick it from the list, or type an IANA name such as "Europe/Paris".');
  assert.match(zoneProblem('new york') ?? '', /did you mean America\/New_York\?/);
  assert.match(zoneProblem('Europe/Pariss') ?? '', /did you mean Europe\/Paris\?/);
  assert.match(zoneProblem('qqqqqqqqqq') ?? '', /^Unknown time zone "qqqqqqqqqq" \(/);
});
