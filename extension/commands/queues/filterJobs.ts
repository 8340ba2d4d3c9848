/**
 * Filter the Queues view by state, kind and text: "state:dead kind:shell timeout" (any part,
 * any order). The tree narrows to the matches; the view's description and message say what is
 * filtered. Takes a filter string too.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { filterText, parseFilter } from './filterSyntax';
import { errorMessage } from '../../../shared/protocol/errors';

export const filterJobs = command('spool.queues.filter', async (ctx, arg) => {
  const text =
    typeof arg === 'string'
      ? arg
      : await vscode.window.showInputBox({
          title: 'Spool: Filter Jobs',
          prompt: 'state:<state>[,<state>] kind:<kind> and/or text to find in payloads and errors. Empty clears the filter.',
          placeHolder: 'state:dead kind:shell timeout',
          // The filter in force, so that it can be adjusted rather than typed again.
          value: filterText(ctx.queues.filter),
          validateInput: (v) => {
            try {
              parseFilter(v);
              return null;
            } catch (error) {
              return errorMessage(error);
            }
          },
        });
  if (text === undefined) return undefined;
  const filter = parseFilter(text);
  ctx.queues.setFilter(filter);
  return filter;
});
