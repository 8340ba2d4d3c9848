/**
 * The daemon's workflow methods as the CLI calls them (shared/protocol/workflows.ts), one small
 * function each, so a command reads as what it does.
 */
import type { SpoolClient } from '../shared/client/client';
import type {
  WorkflowRunActionResult,
  WorkflowRunDetail,
  WorkflowRunParams,
  WorkflowRunStarted,
  WorkflowRunsParams,
  WorkflowRunsResult,
  WorkflowsListResult,
} from '../shared/protocol/workflows';

export function listWorkflows(client: SpoolClient): Promise<WorkflowsListResult> {
  return client.call('workflows.list');
}

export function startRun(client: SpoolClient, params: WorkflowRunParams): Promise<WorkflowRunStarted> {
  return client.call('workflows.run', params);
}

export function listRuns(client: SpoolClient, params: WorkflowRunsParams): Promise<WorkflowRunsResult> {
  return client.call('workflows.runs', params);
}

export function getRun(client: SpoolClient, id: string): Promise<WorkflowRunDetail> {
  return client.call('workflows.get', { id });
}

export function cancelRun(client: SpoolClient, id: string): Promise<WorkflowRunActionResult> {
  return client.call('workflows.cancel', { id });
}

export function retryRun(client: SpoolClient, id: string): Promise<WorkflowRunActionResult> {
  return client.call('workflows.retry', { id });
}
