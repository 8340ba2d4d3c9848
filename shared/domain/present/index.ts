/**
 * How Spool's records read, written once for the CLI, the extension and the language server, so
 * that the same queue reads the same in the tree, the code lens and `spool queues`: relative
 * times and fire times (time.ts), why a job is in its state (jobs.ts) and why a due one waits (waiting.ts), a queue's counts
 * (counts.ts), what a blocked job waits for (dependencies.ts), a workflow run's steps and counts (workflows.ts), typed job ids (ids.ts) and "did you mean" (suggest.ts); a plan's text is the jobs file's (shared/jobsfile/planText.ts). Pure:
 * no I/O, no `vscode`, no clock of its own.
 */
export { countColumns, countsText, delayedTotal, dueCount, queueText } from './counts';
export { dependencyName, resultLine, waitingForText } from './dependencies';
export { JOB_ID_END, readJobId, SHOWN_ID_LENGTH, shortId, WHOLE_JOB_ID, type JobIdText } from './ids';
export { endLine, failureText, firstLine, jobReason, nextAttemptText, runStatus, shownState, startsText, stateSentence, uniquenessText, type ShownState } from './jobs';
export { dueNoWorkerText, noWorkerText, waitingSentence, workersFor, type WaitingFacts } from './waiting';
export { closest, editDistance, typoLimit } from './suggest';
export { runCountsText, stepStateWord } from './workflows';
export { fireTime, fireTimesText, formatTimestamp, relativeTime, wallClockDiffers, type FireTimeOptions } from './time';
