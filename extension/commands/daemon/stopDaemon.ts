/** Ask the daemon to shut down gracefully; running jobs get its grace period to finish. */
import { command } from '../command';

export const stopDaemon = command('spool.daemon.stop', async (ctx) => {
  await ctx.connection.stop();
  return ctx.connection.state;
});
