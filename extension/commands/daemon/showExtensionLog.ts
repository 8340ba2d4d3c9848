/** Show the extension's own log (a LogOutputChannel; its level follows "Developer: Set Log Level"). */
import { command } from '../command';

export const showExtensionLog = command(
  'spool.extension.showLog',
  (ctx) => {
    ctx.log.show(true);
  },
  false,
);
