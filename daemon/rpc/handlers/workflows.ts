/**
 * Handlers of workflows.*: the engine validates and does the work (daemon/engine/ops/workflows.ts);
 * `workflows.changed` follows from the job changes the work makes (see EventHub.workflowTouched).
 */
import type { HandlerGroup, Services } from './types';

type WorkflowMethods = 'workflows.list' | 'workflows.run' | 'workflows.runs' | 'workflows.get' | 'workflows.cancel' | 'workflows.retry';

export function workflowHandlers(s: Services): HandlerGroup<WorkflowMethods> {
  const { engine } = s;
  return {
    'workflows.list': async (params) => ({ workflows: await engine.listWorkflows(params) }),
    'workflows.run': (params) => engine.runWorkflow(params),
    'workflows.runs': (params) => engine.listWorkflowRuns(params),
    'workflows.get': (params) => engine.getWorkflowRun(params),
    'workflows.cancel': (params) => engine.cancelWorkflowRun(params),
    'workflows.retry': (params) => engine.retryWorkflowRun(params),
  };
}
