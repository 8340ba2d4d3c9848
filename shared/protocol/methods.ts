/**
 * THE table of Spool's methods: each method once, with its params and result types, who calls
 * it, whether its writes are group-committed, the errors it answers with, and its documentation.
 * `METHOD_NAMES`, `Methods`, the daemon's handler table and grouped set, the docs check and
 * docs/openrpc.json all derive from it, so that removing a method here, or adding one without a
 * handler, fails the build instead of a user.
 *
 * Methods marked `worker` take the `workerId` that claimed the job and are refused with
 * `LeaseLost` for anyone else.
 */
import { method, namesOf, type TypesOfMethod, type MethodInfo } from './define';
import type {
  ApplyProjectParams,
  ApplyProjectResult,
  BackupParams,
  BackupResult,
  BulkParams,
  BulkUpdateParams,
  BulkResult,
  CheckpointParams,
  CreateTokenParams,
  CreateTokenResult,
  ClaimParams,
  ClaimResult,
  CompleteManyParams,
  CompleteManyResult,
  CompleteParams,
  ConfigureQueueParams,
  CreateScheduleParams,
  DaemonStatus,
  DeleteQueueParams,
  DeletedResult,
  EnqueueBatchParams,
  EnqueueBatchResult,
  EnqueueParams,
  EnqueueResult,
  EnqueueTemplateParams,
  FailParams,
  HeartbeatParams,
  HeartbeatResult,
  JobIdParams,
  JobHistoryResult,
  DeleteJobParams,
  JobOutputParams,
  JobOutputResult,
  JobResult,
  JobWithRuns,
  ListJobsParams,
  ListJobsResult,
  LogParams,
  LoginParams,
  LoginResult,
  NoParams,
  Ok,
  PauseAllResult,
  ProgressParams,
  ProjectStateParams,
  ProjectStateResult,
  PurgeQueueParams,
  QueueGroupsParams,
  QueueGroupsResult,
  QueueNameParams,
  QueueResult,
  QueuesListResult,
  RegisterWorkerParams,
  ReleaseParams,
  SnoozeParams,
  ScheduleNameParams,
  ScheduleResult,
  SchedulesListResult,
  Stats,
  StatsHistoryParams,
  StatsHistoryResult,
  TemplateNameParams,
  TemplateResult,
  TemplatesListResult,
  TokenNameParams,
  TokensListResult,
  UpdateJobParams,
  UpdateScheduleParams,
  WorkerResult,
  WorkersListResult,
} from './messages';
import type { SubscribeParams, SubscribeResult, UnsubscribeParams } from './notifications';
import type {
  WorkflowRunActionResult,
  WorkflowRunDetail,
  WorkflowRunIdParams,
  WorkflowRunParams,
  WorkflowRunStarted,
  ScheduleTriggerResult,
  WorkflowRunsParams,
  WorkflowRunsResult,
  WorkflowsListResult,
} from './workflows';

/** Every method, in the order the docs and `spool rpc --help` list them. */
export const METHODS = {
  'daemon.status': method<NoParams, DaemonStatus>()({
    caller: 'both',
    scope: 'read',
    grouped: false,
    summary: 'The handshake: version, protocol version, uptime, paths and counters.',
    description: 'A client compares `protocolVersion` with its own and says clearly when they differ.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'daemon.pauseAll': method<NoParams, PauseAllResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Pause every queue: no job is claimed on any queue, by any daemon of the store, until daemon.resumeAll; running jobs go on.',
    description: 'Stored in the database, so it holds across restarts and across every daemon sharing a PostgreSQL database. Each queue keeps its own pause as well.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'daemon.resumeAll': method<NoParams, PauseAllResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'End daemon.pauseAll: queues hand out jobs again, except those paused on their own.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'daemon.shutdown': method<NoParams, Ok>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Graceful shutdown: stop claiming, let running jobs finish within the grace period.',
    description:
      'Answered before the shutdown starts. Until running built-in jobs have had their grace period, every connection is still answered; then each is closed after its last answer and the socket file is removed.',
    errors: ['InvalidParams'],
  }),
  'daemon.backup': method<BackupParams, BackupResult>()({
    caller: 'client',
    // It writes a file wherever the daemon may: the local user's call, never a token's.
    scope: 'local',
    grouped: false,
    summary: 'Write a consistent copy of the store to a file while the daemon runs, with a SHA-256 checksum beside it.',
    description:
      '`path` is absolute, on the daemon\'s machine; its folder must exist. The copy is written beside it under a temporary name and renamed into place, so `path` is either the old file or the whole new copy; the checksum goes to `path.sha256` in `sha256sum` format. Both are 0600. Writes go on during the copy (SQLite\'s online backup API); the copy holds what was committed when it finished. A store that cannot copy itself (PostgreSQL: use `pg_dump`) answers InvalidParams saying so.',
    errors: ['InvalidParams', 'StorageFull', 'ShuttingDown'],
  }),

  'jobs.enqueue': method<EnqueueParams, EnqueueResult>()({
    caller: 'both',
    scope: 'worker',
    grouped: true,
    summary: 'Enqueue one job; defaults come from its queue.',
    description:
      'Enqueues that arrive together are committed in one transaction (group commit); each still gets its own answer or error. A repeated idempotency key returns the existing job with `created: false`. With `unique`, an equal job within the window is returned instead (`reason: "unique"`); with `debounce`, a queued equal job gets the payload and a later start (`reason: "debounced"`); with `throttle`, equal jobs start at least that far apart (`reason: "throttled"`). See docs/flow-control.md.',
    errors: ['InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.enqueueBatch': method<EnqueueBatchParams, EnqueueBatchResult>()({
    caller: 'both',
    scope: 'worker',
    grouped: false,
    summary: 'Enqueue several jobs in one transaction: all or none.',
    errors: ['InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.get': method<JobIdParams, JobWithRuns>()({
    caller: 'both',
    scope: 'read',
    grouped: false,
    summary: 'A job and its runs, one per claim, oldest first.',
    errors: ['JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.history': method<JobIdParams, JobHistoryResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: "A job's state changes, oldest first: when, into which state, what caused it and who.",
    description:
      '`cause` is one of `enqueue`, `claim`, `complete`, `fail`, `retry`, `retry by user`, `cancel`, `hold`, `release`, `edit`, `run now`, `reaper`, `expire`, `schedule <name>`, `workflow <name>#<run>`, `apply`, `dependency`. `who` is the Unix user on the socket or the token\'s name over TLS, null for the daemon itself. Kept as long as the job. See docs/history.md.',
    errors: ['JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.list': method<ListJobsParams, ListJobsResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'A page of jobs matching a filter.',
    description: 'Pass `nextCursor` back as `cursor` with the same `order`; it is null on the last page.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.output': method<JobOutputParams, JobOutputResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: "A job's output lines after a sequence number.",
    errors: ['JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.cancel': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Cancel a job: queued or retrying at once, running cooperatively.',
    description:
      'A running built-in job is stopped at once; a remote worker learns of it from its next heartbeat (`cancelRequested: true`). A finished job answers InvalidState.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.retry': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Move a dead, cancelled or completed job back to queued with a fresh attempt budget.',
    description: 'The run history is kept.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.update': method<UpdateJobParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Change a job that has not started: blocked, queued (delayed or not), retrying or held.',
    description:
      'Priority, run time, payload, attempts, timeout, tags, weight, group (null: none); of a shell job its command, env and cwd, of an HTTP job its url, method, headers and body (each merged into the payload and checked as at enqueue). A job that started meanwhile answers InvalidState.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.runNow': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Make a delayed queued job, or a retrying one waiting out its backoff, due now.',
    description: 'Its state stays; the next claim of its queue may take it. A blocked, held, running or finished job answers InvalidState.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.pause': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Pause a running shell job: SIGSTOP to its process group; it stays running, its lease and timeout frozen.',
    description:
      'Only a shell job run by a daemon (not by a remote worker) can be paused. The daemon running it stops its processes when it hears of it: at once on the daemon that answered, at its next heartbeat on another daemon sharing a PostgreSQL database. A job that is not running, not a shell job of a daemon, or paused already answers InvalidState.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.resume': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Resume a paused job: SIGCONT to its process group; its lease and timeout run on from where they stood.',
    description: 'A job that is not running, or not paused, answers InvalidState.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.hold': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Put a waiting job (blocked, queued or retrying) on hold: it is never claimed until released with jobs.unhold.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.unhold': method<JobIdParams, JobResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Release a held job: blocked while a dependency has not ended, retrying when it has made attempts, else queued.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.delete': method<DeleteJobParams, DeletedResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Delete a job that is not running; with `cascade`, the jobs that depend on it too.',
    errors: ['JobNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.cancelMany': method<BulkParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Cancel jobs by ids, or by a filter over one queue.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.retryMany': method<BulkParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Retry jobs by ids, or by a filter over one queue.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.deleteMany': method<BulkParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Delete jobs by ids, or by a filter over one queue.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.updateMany': method<BulkUpdateParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Set the priority of jobs that have not started, by ids or by a filter (across every queue unless it names one).',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.holdMany': method<BulkParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Hold jobs by ids, or by a filter (across every queue unless it names one).',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.unholdMany': method<BulkParams, BulkResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Release held jobs by ids, or by a filter (across every queue unless it names one).',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),

  'jobs.claim': method<ClaimParams, ClaimResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: false,
    summary: 'Claim up to `max` jobs, long-polling up to `waitMs`.',
    description:
      'The jobs come back running and leased to `workerId`. A claim that finds nothing waits, and returns as soon as a job it may take is ready, or with no jobs when the wait ends.',
    errors: ['InvalidParams', 'ShuttingDown', 'StoreUnavailable'],
  }),
  'jobs.heartbeat': method<HeartbeatParams, HeartbeatResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: 'Extend the lease on a running job; says whether a cancel was requested.',
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.progress': method<ProgressParams, Ok>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: "Set a running job's progress (0..100) and message.",
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.checkpoint': method<CheckpointParams, Ok>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: 'Save JSON that a retry of this job resumes from.',
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.log': method<LogParams, Ok>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: "Append lines to a running job's output.",
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.complete': method<CompleteParams, JobResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: 'Finish a running job successfully, with an optional result.',
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.completeMany': method<CompleteManyParams, CompleteManyResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: "Finish several of a worker's running jobs successfully in one transaction; answers a count and the jobs that failed.",
    description:
      'Each job is completed as `jobs.complete` would complete it, with its own `result`. A job whose lease the worker does not hold (or an unknown id) is not completed and is listed in `failed` with its error; the others are. The completed jobs are not sent back.',
    errors: ['InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'jobs.fail': method<FailParams, JobResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: "Fail a running job's attempt: it retries after its backoff, or ends dead.",
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.release': method<ReleaseParams, JobResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: 'Hand a held job back unfinished; it runs again without using up an attempt.',
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'jobs.snooze': method<SnoozeParams, JobResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: true,
    summary: 'Put a held job off until later (delayMs or runAt); it runs again then without using up an attempt.',
    errors: ['LeaseLost', 'JobNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),

  'workers.register': method<RegisterWorkerParams, WorkerResult>()({
    caller: 'worker',
    scope: 'worker',
    grouped: false,
    summary: 'A remote worker announces itself; its leases go to the reaper when its connection closes.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'workers.list': method<NoParams, WorkersListResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'The built-in executors and the registered remote workers.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),

  'queues.list': method<NoParams, QueuesListResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Every queue, with its counts per state.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'queues.get': method<QueueNameParams, QueueResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'One queue.',
    errors: ['QueueNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'queues.groups': method<QueueGroupsParams, QueueGroupsResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: "A queue's groups with waiting or running jobs, by key, with their counts; with `atLimit`, only those whose jobs wait because the group is at its groupConcurrency.",
    errors: ['QueueNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'queues.configure': method<ConfigureQueueParams, QueueResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: "Change a queue's limits and defaults; creates the queue if it does not exist.",
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'queues.pause': method<QueueNameParams, QueueResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Stop handing out jobs of a queue; running ones finish. Creates the queue if it does not exist, so it can be paused before its first job.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'queues.resume': method<QueueNameParams, QueueResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Hand out jobs of a paused queue again.',
    errors: ['QueueNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'queues.purge': method<PurgeQueueParams, DeletedResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: "Delete a queue's jobs in the given states; running jobs are never purged.",
    errors: ['QueueNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'queues.delete': method<DeleteQueueParams, DeletedResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Delete a queue, and with `force` its jobs.',
    errors: ['QueueNotFound', 'InvalidState', 'InvalidParams', 'StoreUnavailable'],
  }),

  'schedules.list': method<NoParams, SchedulesListResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Every schedule.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'schedules.get': method<ScheduleNameParams, ScheduleResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'One schedule and its next fire times.',
    errors: ['ScheduleNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'schedules.create': method<CreateScheduleParams, ScheduleResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Create a schedule: a cron expression in a timezone, and the job it enqueues.',
    errors: ['InvalidParams', 'AlreadyExists', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'schedules.update': method<UpdateScheduleParams, ScheduleResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Change a schedule; a new cron expression or timezone recomputes the next tick.',
    errors: ['ScheduleNotFound', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'schedules.delete': method<ScheduleNameParams, DeletedResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Delete a schedule.',
    errors: ['ScheduleNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'schedules.trigger': method<ScheduleNameParams, ScheduleTriggerResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: "Enqueue the schedule's job now (or start a run of its workflow); the next tick is unchanged.",
    errors: ['ScheduleNotFound', 'WorkflowNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'schedules.enable': method<ScheduleNameParams, ScheduleResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Enable a schedule from now on: ticks that passed while disabled are not missed runs.',
    errors: ['ScheduleNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'schedules.disable': method<ScheduleNameParams, ScheduleResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Disable a schedule: it enqueues nothing until enabled.',
    errors: ['ScheduleNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),

  'project.state': method<ProjectStateParams, ProjectStateResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'What a jobs file is planned against: every queue, template, workflow and schedule, with its owner and last-applied value.',
    description:
      'Objects of every project and of none are listed: a plan needs them to tell creates from conflicts, and to list what is unmanaged. `spool plan` and the language server call it, then `planChanges` (shared/jobsfile).',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'project.apply': method<ApplyProjectParams, ApplyProjectResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: "Apply a project's jobs file: create, update and delete its queues, templates, workflows and schedules in one transaction.",
    description:
      'The daemon plans again inside the transaction, from what it holds, so two applies racing never create an object twice. All or nothing: an invalid declaration, a conflict (a declared name used by a hand-made object or another project), a queue to delete that holds jobs without `force`, or a plan that differs from `expected`, changes nothing. Objects no project owns are never touched. A changed cron takes its next fire time from now and never fires at once.',
    errors: ['InvalidParams', 'InvalidState', 'StoreUnavailable'],
  }),

  'templates.list': method<NoParams, TemplatesListResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Every template the applied jobs files declare.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'templates.get': method<TemplateNameParams, TemplateResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'One template.',
    errors: ['TemplateNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'templates.enqueue': method<EnqueueTemplateParams, EnqueueResult>()({
    caller: 'client',
    scope: 'worker',
    grouped: false,
    summary: "Enqueue a template's job, its `{{name}}` parameters filled from `params` and the template's defaults.",
    description: 'What `spool run` and the editor\'s "Enqueue" lens call. The job runs the template as last applied.',
    errors: ['TemplateNotFound', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),

  'workflows.list': method<NoParams, WorkflowsListResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Every workflow the applied jobs files declare, each with its last run.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'workflows.run': method<WorkflowRunParams, WorkflowRunStarted>()({
    caller: 'client',
    scope: 'worker',
    grouped: false,
    summary: 'Start a run of a workflow: every job of it created in one transaction, each waiting for the jobs of the steps it needs.',
    description:
      'Without `definition`, the workflow the daemon holds under `workflow` (applied from a jobs file). With it, the workflow as sent (read from a jobs file and not applied), checked as an apply checks it; its `name` must equal `workflow`. `params` are checked against the workflow\'s parameters (unknown names, missing values without a default, values not of their type are refused). A step with a matrix makes one job per combination; a step that needs it waits for all of them.',
    errors: ['WorkflowNotFound', 'InvalidParams', 'PayloadTooLarge', 'StoreUnavailable'],
  }),
  'workflows.runs': method<WorkflowRunsParams, WorkflowRunsResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Workflow runs, newest first, with their counts per job state; a page at a time.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),
  'workflows.get': method<WorkflowRunIdParams, WorkflowRunDetail>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'One workflow run with its steps and every job, with what each waits for.',
    errors: ['WorkflowRunNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'workflows.cancel': method<WorkflowRunIdParams, WorkflowRunActionResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Cancel every job of a run that has not ended; running ones are asked to stop.',
    description: 'The run ends `cancelled` once its last job has ended. `changed` counts the jobs cancelled or asked to stop; a run that has ended changes nothing.',
    errors: ['WorkflowRunNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),
  'workflows.retry': method<WorkflowRunIdParams, WorkflowRunActionResult>()({
    caller: 'client',
    scope: 'admin',
    grouped: false,
    summary: 'Run the failed and cancelled jobs of a run again, and the jobs that depend on them; succeeded jobs and their results are kept.',
    description:
      'The run is `running` again. A job cancelled because the condition it waited for could not hold (an `on: failed` cleanup after a success) stays cancelled when its dependencies are kept.',
    errors: ['WorkflowRunNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),

  'stats.get': method<NoParams, Stats>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Counts per queue and in total, and throughput over the last minute and hour.',
    errors: ['InvalidParams', 'StoreUnavailable'],
  }),

  'stats.history': method<StatsHistoryParams, StatsHistoryResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Per queue and per minute or hour: jobs enqueued, started, completed, failed, dead and cancelled, wait and run time percentiles, backlog and running.',
    description:
      '`from` and `to` are epoch ms, rounded down to the step; at most 10,080 steps per queue per call. A step with no activity may be absent: fill it with zeros and the last known backlog. Minutes are kept 7 days and hours 90 days by default (`spool daemon --history-minutes-days`, `--history-hours-days`); with `--no-history` nothing is kept and the answer has no points. See docs/history.md.',
    errors: ['QueueNotFound', 'InvalidParams', 'StoreUnavailable'],
  }),

  'events.subscribe': method<SubscribeParams, SubscribeResult>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Start receiving notifications on this connection.',
    description: 'Each notification carries the `subscriptionId` returned here.',
    errors: ['InvalidParams'],
  }),
  'auth.login': method<LoginParams, LoginResult>()({
    caller: 'both',
    scope: 'public',
    grouped: false,
    summary: 'Over TCP, the first call: present a token; the connection then has its scope.',
    description:
      'Only needed over TLS (`spool daemon --listen`); the Unix socket is the local user\'s and needs none. Any other call before it is answered Unauthorized, and a connection that has not logged in within a few seconds is closed. A wrong token is refused with Unauthorized and logged (without the token).',
    errors: ['InvalidParams', 'Unauthorized', 'StoreUnavailable'],
  }),
  'tokens.create': method<CreateTokenParams, CreateTokenResult>()({
    caller: 'client',
    scope: 'local',
    grouped: false,
    summary: 'Make an access token for clients over TCP; the token is in the answer, once.',
    description: 'The daemon keeps only its SHA-256. Only over the Unix socket: over TCP it is Forbidden.',
    errors: ['InvalidParams', 'AlreadyExists', 'Forbidden', 'StoreUnavailable'],
  }),
  'tokens.list': method<NoParams, TokensListResult>()({
    caller: 'client',
    scope: 'local',
    grouped: false,
    summary: 'Every access token: name, scope and creation time, never the token.',
    errors: ['InvalidParams', 'Forbidden', 'StoreUnavailable'],
  }),
  'tokens.revoke': method<TokenNameParams, Ok>()({
    caller: 'client',
    scope: 'local',
    grouped: false,
    summary: 'Delete an access token; connections logged in with it are closed.',
    errors: ['InvalidParams', 'Forbidden', 'StoreUnavailable'],
  }),

  'events.unsubscribe': method<UnsubscribeParams, Ok>()({
    caller: 'client',
    scope: 'read',
    grouped: false,
    summary: 'Stop a subscription made on this connection.',
    errors: ['InvalidParams'],
  }),
} as const satisfies Readonly<Record<string, MethodInfo>>;

/** The method table's type. */
export type MethodsTable = typeof METHODS;

/** A method's name. */
export type MethodName = keyof MethodsTable;

/** Every method: name → params and result. */
export type Methods = { [M in MethodName]: TypesOfMethod<MethodsTable[M]> };

/** What a method takes. */
export type ParamsOf<M extends MethodName> = Methods[M]['params'];

/** What a method answers. */
export type ResultOf<M extends MethodName> = Methods[M]['result'];

/** The methods whose writes are group-committed (`grouped: true` in the table). */
export type GroupedMethodName = { [M in MethodName]: MethodsTable[M]['grouped'] extends true ? M : never }[MethodName];

/** Every method name, in the table's order: for validation, completion scripts and tests. */
export const METHOD_NAMES: readonly MethodName[] = namesOf(METHODS);

/** The group-committed methods, from the table. */
export const GROUPED_METHOD_NAMES: readonly GroupedMethodName[] = METHOD_NAMES.filter(
  (name): name is GroupedMethodName => METHODS[name].grouped,
);
