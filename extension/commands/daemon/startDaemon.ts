/** Start the bundled daemon if none answers, and connect to it. */
import { command } from '../command';

export const startDaemon = command(
  'spool.daemon.start',
  async (ctx) => {
    await ctx.connection.start();
    return ctx.connection.state;
  },
  false,
);
