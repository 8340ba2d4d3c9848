/**
 * The Queues view's state toggles ("Only Dead Jobs", "Only Running Jobs" in its title menu): on,
 * the tree shows only that state's groups (and only queues that have such jobs); on again, the
 * toggle is off. A kind or text filter in force is kept. VS Code draws no check mark for an
 * extension's command, so while a toggle is on the menu shows its twin, "✓ Only Dead Jobs",
 * which turns it off.
 */
import type { GroupName, JobViewFilter } from '../../views/queues/text';
import { command, type SpoolCommand } from '../command';

/** The filter after toggling "only `state`" on `filter`. */
export function toggleOnly(filter: JobViewFilter, state: GroupName): JobViewFilter {
  const on = filter.states?.length === 1 && filter.states[0] === state;
  const next: JobViewFilter = { ...filter };
  if (on) delete next.states;
  else next.states = [state];
  return next;
}

function onlyState(id: string, state: GroupName): SpoolCommand {
  return command(id, (ctx) => {
    const next = toggleOnly(ctx.queues.filter, state);
    ctx.queues.setFilter(next);
    return next;
  });
}

export const onlyDead = onlyState('spool.queues.onlyDead', 'dead');
export const onlyDeadOff = onlyState('spool.queues.onlyDeadOff', 'dead');
export const onlyRunning = onlyState('spool.queues.onlyRunning', 'running');
export const onlyRunningOff = onlyState('spool.queues.onlyRunningOff', 'running');
