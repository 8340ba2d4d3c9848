/**
 * The daemon's workflow methods as the CLI calls them, typed by shared/protocol/workflows.ts.
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

export async function listWorkflows(client: SpoolClient): Promise<WorkflowsListResult> {
  return (await client.callUnchecked('workflows.list', {})) as WorkflowsListResult;
}

export async function startRun(client: SpoolClient, params: WorkflowRunParams): Promise<WorkflowRunStarted> {
  return (await client.callUnchecked('workflows.run', params)) as WorkflowRunStarted;
}

export async function listRuns(client: SpoolClient, params: WorkflowRunsParams): Promise<WorkflowRunsResult> {
  return (await client.callUnchecked('workflows.runs', params)) as WorkflowRunsResult;
}

export async function getRun(client: SpoolClient, id: string): Promise<WorkflowRunDetail> {
  return (await client.callUnchecked('workflows.get', { id })) as WorkflowRunDetail;
}

export async function cancelRun(client: SpoolClient, id: string): Promise<WorkflowRunActionResult> {
  return (await client.callUnchecked('workflows.cancel', { id })) as WorkflowRunActionResult;
}

export async function retryRun(client: SpoolClient, id: string): Promise<WorkflowRunActionResult> {
  return (await client.callUnchecked('workflows.retry', { id })) as WorkflowRunActionResult;
}
