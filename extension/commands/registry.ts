/**
 * Every command, registered in one place. Each runs through one wrapper: a command that needs
 * the daemon says so plainly when there is none, and any failure is logged and shown with its
 * message (which says what to do) instead of a generic "command failed".
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../context';
import { ConnectFailedError, NotConnectedError } from '../daemon/connection';
import { errorMessage } from '../../shared/protocol/errors';
import type { SpoolCommand } from './command';
import { editorMessage } from '../errors';
import { forgetAccessToken, setAccessToken } from './daemon/accessToken';
import { restartDaemon } from './daemon/restartDaemon';
import { showDaemonLog } from './daemon/showDaemonLog';
import { showExtensionLog } from './daemon/showExtensionLog';
import { startDaemon } from './daemon/startDaemon';
import { stopDaemon } from './daemon/stopDaemon';
import { openDashboard } from './dashboard/openDashboard';
import { cancelJob } from './jobs/cancelJob';
import { copyJobId } from './jobs/copyJobId';
import { copyJobPayload } from './jobs/copyJobPayload';
import { deleteJob } from './jobs/deleteJob';
import { applyJobEdit } from './jobs/applyJobEdit';
import { editAndRequeue } from './jobs/editAndRequeue';
import { editJob } from './jobs/editJob';
import { holdJob } from './jobs/holdJob';
import { enqueueEdited } from './jobs/enqueueEdited';
import { enqueueFile } from './jobs/enqueueFile';
import { enqueueJob } from './jobs/enqueueJob';
import { goToJob } from './jobs/goToJob';
import { loadMore } from './jobs/loadMore';
import { openJobDetails } from './jobs/openJobDetails';
import { openJobJson } from './jobs/openJobJson';
import { retryAllDead } from './jobs/retryAllDead';
import { bulkMatching } from './jobs/bulkMatching';
import { releaseJob } from './jobs/releaseJob';
import { retryJob } from './jobs/retryJob';
import { runJobNow } from './jobs/runJobNow';
import { pauseJob, resumeJob } from './jobs/pauseJob';
import { showJobOutput } from './jobs/showJobOutput';
import { clearFilter } from './queues/clearFilter';
import { configureQueue } from './queues/configureQueue';
import { deleteQueue } from './queues/deleteQueue';
import { filterJobs } from './queues/filterJobs';
import { onlyDead, onlyDeadOff, onlyRunning, onlyRunningOff } from './queues/onlyState';
import { pauseQueue } from './queues/pauseQueue';
import { purgeQueue } from './queues/purgeQueue';
import { refreshQueues } from './queues/refreshQueues';
import { resumeQueue } from './queues/resumeQueue';
import { revealInJobsFile } from './revealInJobsFile';
import { createSchedule } from './schedules/createSchedule';
import { deleteSchedule } from './schedules/deleteSchedule';
import { disableSchedule } from './schedules/disableSchedule';
import { enableSchedule } from './schedules/enableSchedule';
import { filterSchedules } from './schedules/filterSchedules';
import { refreshSchedules } from './schedules/refreshSchedules';
import { runScheduleNow } from './schedules/runScheduleNow';
import { showScheduleTimeline } from './schedules/showScheduleTimeline';
import { filterWorkers } from './workers/filterWorkers';
import { refreshWorkers } from './workers/refreshWorkers';
import { cancelRun } from './workflows/cancelRun';
import { refreshWorkflows } from './workflows/refreshWorkflows';
import { retryRun } from './workflows/retryRun';
import { runWorkflow } from './workflows/runWorkflow';
import { showRun } from './workflows/showRun';

export const COMMANDS: readonly SpoolCommand[] = [
  startDaemon,
  setAccessToken,
  forgetAccessToken,
  stopDaemon,
  restartDaemon,
  showDaemonLog,
  showExtensionLog,
  refreshQueues,
  openDashboard,
  filterJobs,
  clearFilter,
  onlyDead,
  onlyDeadOff,
  onlyRunning,
  onlyRunningOff,
  pauseQueue,
  resumeQueue,
  purgeQueue,
  configureQueue,
  deleteQueue,
  enqueueJob,
  enqueueFile,
  retryJob,
  cancelJob,
  deleteJob,
  holdJob,
  releaseJob,
  runJobNow,
  pauseJob,
  resumeJob,
  editJob,
  applyJobEdit,
  openJobDetails,
  openJobJson,
  showJobOutput,
  copyJobId,
  copyJobPayload,
  editAndRequeue,
  enqueueEdited,
  goToJob,
  retryAllDead,
  bulkMatching,
  loadMore,
  refreshSchedules,
  showScheduleTimeline,
  filterSchedules,
  createSchedule,
  runScheduleNow,
  enableSchedule,
  disableSchedule,
  deleteSchedule,
  refreshWorkers,
  filterWorkers,
  revealInJobsFile,
  refreshWorkflows,
  runWorkflow,
  showRun,
  retryRun,
  cancelRun,
];

export function registerCommands(ctx: SpoolContext): vscode.Disposable[] {
  return COMMANDS.map((c) =>
    vscode.commands.registerCommand(c.id, async (...args: unknown[]) => {
      try {
        if (c.needsDaemon && ctx.connection.state !== 'connected') throw new NotConnectedError(ctx.connection.state);
        return await c.run(ctx, ...args);
      } catch (error) {
        const message = errorMessage(error);
        ctx.log.error(`${c.id} failed: ${message}`);
        // The connection has shown this one already, with Show Log and Open Settings.
        if (error instanceof ConnectFailedError) return undefined;
        if (error instanceof NotConnectedError && ctx.connection.state === 'disconnected') {
          void vscode.window.showErrorMessage(message, 'Start Daemon').then((choice) => {
            if (choice) void vscode.commands.executeCommand('spool.daemon.start');
          });
        } else {
          // The log keeps the daemon's own words; the user reads the editor's (no CLI commands).
          void vscode.window.showErrorMessage(editorMessage(error));
        }
        return undefined;
      }
    }),
  );
}
