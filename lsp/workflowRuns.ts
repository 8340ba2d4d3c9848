/**
 * The server's side of a workflow's "Run workflow" lens: the parameters an editor asks for
 * (`spool.workflowParams`), and the run itself (`spool.runWorkflow`), started on the daemon with
 * the workflow as the file declares it now (`definition`), so what runs is what the person sees.
 */
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import type { WorkflowParam } from '../shared/protocol/projects';
import type { WorkflowRunStarted } from '../shared/protocol/workflows';
import { isRecord } from '../shared/domain/records';
import type { DaemonData } from './daemonData';
import * as service from './service';

/** The workflow's declared parameters, for an editor to ask their values. */
export function workflowParams(doc: service.JobsDocument, name: string): { params: Record<string, WorkflowParam> } {
  const workflow = doc.parse.workflows.find((w) => w.name === name);
  if (workflow === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `The workflow "${name}" has errors or is not in the file; fix them first.`);
  return { params: workflow.params };
}

/** Starts a run; refuses a workflow with errors, bad values, and shell steps in an untrusted workspace (`untrusted`: the message). */
export async function runWorkflow(data: DaemonData, doc: service.JobsDocument, name: string, given: unknown, untrusted: string | null): Promise<WorkflowRunStarted> {
  const values: Record<string, string> = {};
  if (given !== undefined && given !== null) {
    if (!isRecord(given)) throw new ResponseError(ErrorCodes.InvalidParams, 'spool.runWorkflow takes the parameters as an object of name → value as its third argument.');
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, `The value of parameter "${k}" must be text (got ${typeof v}).`);
      values[k] = v;
    }
  }
  const target = service.workflowRunTarget(doc, name, values);
  if (!target.ok) throw new ResponseError(ErrorCodes.InvalidParams, target.message);
  if (untrusted !== null && target.value.workflow.steps.some((s) => s.kind === 'shell')) throw new ResponseError(ErrorCodes.InvalidRequest, untrusted);
  const result = await data.call('workflows.run', { workflow: name, params: target.value.params, definition: target.value.workflow });
  data.invalidate();
  return result;
}
