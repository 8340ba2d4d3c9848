/**
 * What a job waits for, in words: the Queues view's row of a blocked job ("waiting for build
 * (running)", "waiting for 3 jobs: test ×3 (queued)"), and how a dependency's result reads in a
 * line ("{"artifact":"app-1.2.tgz"}" cut to fit). A dependency is named by its workflow step, or
 * by the end of its id when a workflow did not make it. Pure: the caller passes the records.
 */
import { TERMINAL_STATES, type Job, type JobDependency, type JobState } from '../../protocol/types';
import { shortId } from './ids';

/** How many names a row lists before "…": a tree row has room for a few. */
const LISTED = 3;

/** A dependency's name: its step, else the end of its id. */
export function dependencyName(dependency: Pick<JobDependency, 'id' | 'step'>): string {
  return dependency.step ?? shortId(dependency.id);
}

/**
 * What a blocked job waits for: the dependencies that have not ended, each by name and state,
 * those of one step in one state said once ("test ×3 (queued)"). Without the dependencies (they
 * could not be read) the counts the job carries: "waiting for 2 of 3 jobs".
 */
export function waitingForText(job: Pick<Job, 'waitingFor' | 'dependsOn'>, dependencies?: readonly Pick<JobDependency, 'id' | 'step' | 'state'>[]): string {
  const open = dependencies?.filter((d) => !TERMINAL_STATES.includes(d.state));
  if (open === undefined || open.length === 0) return `waiting for ${job.waitingFor} of ${job.dependsOn} job${job.dependsOn === 1 ? '' : 's'}`;
  const groups = new Map<string, { name: string; state: JobState; count: number }>();
  for (const d of open) {
    const name = dependencyName(d);
    const key = `${name}\0${d.state}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { name, state: d.state, count: 1 });
  }
  const said = [...groups.values()].map((g) => `${g.name}${g.count > 1 ? ` ×${g.count}` : ''} (${g.state})`);
  const list = said.length > LISTED ? `${said.slice(0, LISTED).join(', ')}, …` : said.join(', ');
  return open.length === 1 ? `waiting for ${list}` : `waiting for ${open.length} jobs: ${list}`;
}

/** A result in one line of JSON, cut to `max` characters with an ellipsis; "none" for null. */
export function resultLine(result: unknown, max = 80): string {
  if (result === null || result === undefined) return 'none';
  const text = JSON.stringify(result) ?? String(result);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
