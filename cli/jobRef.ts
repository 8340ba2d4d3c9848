/**
 * A job named on the command line by its whole id, or by the end of it: the views (and
 * `spool jobs`) show a job's last 8 characters, since a UUIDv7 begins with its creation time and
 * jobs enqueued together share their first characters. `jobs.get` takes only whole ids, so an
 * end is looked up with `jobs.list { idSuffix, limit: 2 }`, which says whether it names one job.
 */
import type { SpoolClient } from '../shared/client/client';
import { readJobId } from '../shared/domain/present';
import { CliError } from './errors';

/** The whole id of the job `text` names; text that is neither an id nor an id's end is returned as typed, for the daemon to refuse. */
export async function resolveJobId(client: SpoolClient, text: string): Promise<string> {
  const read = readJobId(text);
  if (read.kind !== 'end') return text;
  const typed = read.suffix;
  const { jobs } = await client.call('jobs.list', { idSuffix: typed, limit: 2 });
  const [first, second] = jobs;
  if (first === undefined) throw new CliError(`No job id ends in ${typed}. List jobs with \`spool jobs\`.`);
  if (second !== undefined) throw new CliError(`More than one job id ends in ${typed}: give more of the id (spool jobs shows them).`);
  return first.id;
}
