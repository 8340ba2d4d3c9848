/**
 * Errors in the editor's words. The daemon's messages are written for the terminal ("List
 * schedules with `spool schedules`"); in the editor the same facts point at the views and the
 * commands of the palette. The translation goes by error code and `data` (which name what is at
 * fault), never by matching the daemon's wording, so a reworded daemon message still reads right.
 * Pure of `vscode`, so it is unit-tested.
 */
import { ProtocolMismatchError } from '../shared/client/client';
import { DaemonNotRunningError } from '../shared/client/connection';
import { SpoolError, errorMessage } from '../shared/protocol/errors';
import { ErrorCode } from '../shared/protocol';
import { refusedByScope } from './daemon/tokenScope';

/** The message to show for `error` in the editor. */
export function editorMessage(error: unknown): string {
  if (error instanceof ProtocolMismatchError) return `${withoutCliHints(error.message)} Restart Daemon stops it and starts this extension's version.`;
  if (error instanceof DaemonNotRunningError) return `${withoutCliHints(error.message)} Run "Spool: Start Daemon" to start one.`;
  if (!(error instanceof SpoolError)) return errorMessage(error);
  const { data } = error;
  switch (error.code) {
    case ErrorCode.JobNotFound:
      return `No job with id ${data.id ?? ''}: it may have been deleted. The Queues view lists the jobs there are.`;
    case ErrorCode.QueueNotFound:
      return `No queue named "${data.queue ?? ''}". The Queues view lists the queues; a queue is created by its first job.`;
    case ErrorCode.ScheduleNotFound:
      return `No schedule named "${data.schedule ?? ''}": it may have been deleted. The Schedules view lists the schedules there are.`;
    case ErrorCode.Forbidden: {
      // A token's scope (data.scope) that does not allow the method: said in the editor's words,
      // not the protocol's ("may not call jobs.retry").
      const scope = data.scope;
      if (scope === 'read' || scope === 'worker' || scope === 'admin') return refusedByScope(scope, String(data.allowed ?? 'admin').split(/,\s*/));
      return withoutCliHints(error.message);
    }
    case ErrorCode.WorkerNotFound:
      return `No worker with id ${data.workerId ?? ''}: it may have stopped. The Workers view lists the workers connected now.`;
    default:
      return withoutCliHints(error.message);
  }
}

/**
 * A message without its sentences that send the reader to a `spool …` command, for the codes
 * above do not cover (the facts stay; the terminal instructions go).
 */
export function withoutCliHints(message: string): string {
  const kept = message
    .split(/(?<=\.)\s+/)
    .filter((sentence) => !/`spool(\s[^`]*)?`/.test(sentence))
    .join(' ')
    .replace(/;\s*[^;.]*`spool(\s[^`]*)?`[^;.]*/g, '');
  return kept.trim() === '' ? message : kept;
}
