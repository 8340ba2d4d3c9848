/**
 * A workflow run named on the command line by its whole id, or by a part of it long enough to be
 * unique: its beginning or its end (a run id is a UUIDv7 like a job's, so runs started together
 * share their first characters, and the CLI shows whole ids). `workflows.get` takes only whole
 * ids, so a part is looked up among the runs `workflows.runs` lists, newest first.
 */
import type { SpoolClient } from '../shared/client/client';
import { WHOLE_JOB_ID } from '../shared/domain/present';
import { CliError } from './errors';
import { listRuns } from './workflowCalls';

/** The shortest part of an id looked up: fewer characters name too many runs to be worth it. */
const MIN_PART = 4;
/** Pages of runs read at most while looking (500 each): beyond, the whole id is asked for. */
const MAX_PAGES = 20;

/** `text` as typed, lowercase and trimmed; refused when it cannot be (a part of) a run id. Checked before connecting. */
export function runIdText(text: string): string {
  const typed = text.trim().toLowerCase();
  if (WHOLE_JOB_ID.test(typed)) return typed;
  if (!/^[0-9a-f-]+$/.test(typed) || typed.length < MIN_PART || typed.length >= 36) {
    throw new CliError(`"${text}" is not a run id: give the whole id, or at least ${MIN_PART} of its first or last characters (spool workflows lists runs).`);
  }
  return typed;
}

/** The whole id of the run `text` names. */
export async function resolveRunId(client: SpoolClient, text: string): Promise<string> {
  const typed = runIdText(text);
  if (WHOLE_JOB_ID.test(typed)) return typed;
  const found = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await listRuns(client, { limit: 500, ...(cursor === null ? {} : { cursor }) });
    for (const run of result.runs) if (run.id.startsWith(typed) || run.id.endsWith(typed)) found.add(run.id);
    if (found.size > 1) throw new CliError(`More than one run id begins or ends with ${typed}: give more of the id (spool workflows lists runs).`);
    cursor = result.nextCursor;
    if (cursor === null) break;
  }
  const [id] = found;
  if (id === undefined) throw new CliError(`No run id begins or ends with ${typed}. List runs with \`spool workflows\`.`);
  return id;
}
