/**
 * Type-level tests of the protocol's method table, checked by `npm run typecheck` (tsc reads
 * every file under test/; the test runner does not run this one, there is nothing to run). Each
 * `@ts-expect-error` line must fail to compile: if one starts compiling, tsc reports the unused
 * directive and the typecheck fails. test/unit/protocol-table.test.ts shows the same with the
 * real table edited, through the compiler.
 */
import type { HandlerGroup, MethodTable } from '../../daemon/rpc/handlers/types';
import {
  METHODS,
  type GroupedMethodName,
  type MethodName,
  type Methods,
  type NotificationName,
  type ParamsOf,
  type ResultOf,
} from '../../shared/protocol';
import type { ClaimedJobField, EnqueueParams, EventTopic, JobChange, JobChangedEvent, JobResult, NoParams, ReleaseParams } from '../../shared/protocol';
import type { JobTransition } from '../../shared/domain/states';
import type { ClaimedJob } from '../../shared/protocol/types';

/** Compiles only when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

declare const table: MethodTable;

// The names are the table's keys, and nothing else.
expectType<Equal<MethodName, keyof typeof METHODS>>();
expectType<Equal<keyof Methods, MethodName>>();
// @ts-expect-error: a name the table does not declare is not a method.
export const notAMethod: MethodName = 'jobs.explode';

// The params and result types come from the table's entries.
expectType<Equal<ParamsOf<'jobs.enqueue'>, EnqueueParams>>();
expectType<Equal<ParamsOf<'jobs.release'>, ReleaseParams>>();
expectType<Equal<ResultOf<'jobs.release'>, JobResult>>();
expectType<Equal<ParamsOf<'daemon.status'>, NoParams>>();

// jobs.claim's `fields` may name every field of a claimed job, and nothing else.
expectType<Equal<ClaimedJobField, keyof ClaimedJob>>();

// The grouped methods are exactly the ones marked `grouped: true`.
expectType<
  Equal<GroupedMethodName, 'jobs.enqueue' | 'jobs.heartbeat' | 'jobs.progress' | 'jobs.checkpoint' | 'jobs.log' | 'jobs.complete' | 'jobs.completeMany' | 'jobs.fail' | 'jobs.release' | 'jobs.snooze'>
>();

// A handler table missing a method of the table does not compile.
const { 'jobs.release': _release, ...withoutRelease } = table;
// @ts-expect-error: Property 'jobs.release' is missing.
export const missingHandler: MethodTable = withoutRelease;

// A handler for a method the table does not declare does not compile, in a handler group…
// @ts-expect-error: Type '"jobs.explode"' does not satisfy the constraint.
export type StrayGroup = HandlerGroup<'jobs.release' | 'jobs.explode'>;
// …nor in the whole table.
export const strayHandler: MethodTable = {
  ...table,
  // @ts-expect-error: Object literal may only specify known properties.
  'jobs.explode': () => ({ ok: true }),
};

// A handler must answer its method's result type.
export const wrongResult: HandlerGroup<'jobs.release'> = {
  // @ts-expect-error: `{ ok: true }` is not a JobResult.
  'jobs.release': () => ({ ok: true }),
};

// jobs.changed carries the JobChange record plus the subscription's id, nothing else.
expectType<Equal<Omit<JobChangedEvent, 'subscriptionId'>, Omit<JobChange, never>>>();
expectType<Equal<NotificationName, 'jobs.changed' | 'queues.changed' | 'schedules.changed' | 'stats.changed' | 'workflows.changed' | 'jobs.output'>>();

// The topics a subscription asks for are the ones the notifications table names, nothing else.
expectType<Equal<EventTopic, 'jobs' | 'queues' | 'schedules' | 'stats' | 'workflows' | 'output'>>();

// A transition names protocol methods: a misspelt one does not compile.
export const misspeltTransition: JobTransition = {
  by: 'user',
  // @ts-expect-error: 'jobs.retri' is not a method of the table.
  methods: ['jobs.retri'],
  from: { dead: ['queued'] },
  refusal: null,
};
