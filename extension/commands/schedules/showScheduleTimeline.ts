/** Show Upcoming Fires: the dashboard, scrolled to the timeline of the schedules' fires in the next 24 hours. */
import { command } from '../command';

export const showScheduleTimeline = command('spool.schedules.showTimeline', async (ctx) => {
  await ctx.dashboard.open(undefined, true);
});
