/**
 * The language service of `spool.jsonc`: pure functions from a document (and a snapshot of the
 * daemon's data) to LSP results, apart from the server's wiring (`lsp/server.ts`), as in
 * actions/languageservices. No I/O and no clock: the time a hover counts fire times from is
 * passed in. Bad input never throws: broken JSON gives diagnostics and fewer answers.
 */
export { codeActions } from './actions';
export { COMMANDS, enqueueTarget, scheduleJob, templateJob, workflowRunTarget, type EnqueueTarget } from './commands';
export { completion } from './completion';
export { diagnostics, SOURCE, type DiagnosticData } from './diagnostics';
export { analyze, offsetAt, type JobsDocument } from './document';
export { cronHover, fireTimes, hover, NEXT_RUNS, templateText, type FireTime } from './hover';
export { codeLenses } from './lenses';
export { liveCountsText, NO_LIVE_DATA, type LiveData, type LiveQueue } from './live';
export { definition, documentSymbols, references } from './navigation';
export { planOf, planText } from './plan';
