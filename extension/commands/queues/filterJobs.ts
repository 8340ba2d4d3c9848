/**
 * Filter the Queues view by state, kind and text: "state:dead kind:shell timeout" (any part,
 * any order). The tree narrows to the matches; the view's description and message say what is
 * filtered. Takes a filter string too.
 */
import * as vscode from 'vscode';
import { GROUPS, isGroupName, type JobViewFilter } from '../../views/queues/text';
import { command } from '../command';

export function parseFilter(text: string): JobViewFilter {
  const filter: JobViewFilter = {};
  const words: string[] = [];
  for (const part of text.trim().split(/\s+/).filter((p) => p !== '')) {
    const [key, value] = part.includes(':') ? [part.slice(0, part.indexOf(':')), part.slice(part.indexOf(':') + 1)] : ['', part];
    if (key === 'state') {
      const states = value.split(',').filter((s) => s !== '');
      const unknown = states.filter((s) => !isGroupName(s));
      if (unknown.length > 0) throw new Error(`Unknown state "${unknown.join(', ')}": use ${GROUPS.join(', ')}.`);
      filter.states = states.filter(isGroupName);
    } else if (key === 'kind') {
      filter.kind = value;
    } else {
      words.push(part);
    }
  }
  if (words.length > 0) filter.search = words.join(' ');
  return filter;
}

/** A filter written back in the syntax parseFilter reads, to start the input box from. */
export function filterText(filter: JobViewFilter): string {
  const parts: string[] = [];
  if (filter.states && filter.states.length > 0) parts.push(`state:${filter.states.join(',')}`);
  if (filter.kind) parts.push(`kind:${filter.kind}`);
  if (filter.search) parts.push(filter.search);
  return parts.join(' ');
}

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
              return error instanceof Error ? error.message : String(error);
            }
          },
        });
  if (text === undefined) return undefined;
  const filter = parseFilter(text);
  ctx.queues.setFilter(filter);
  return filter;
});
