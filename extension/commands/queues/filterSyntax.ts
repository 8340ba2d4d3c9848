/**
 * The Queues filter's syntax, "state:dead,retrying kind:shell some text": any part, any order;
 * words without a key are looked for in payloads and errors. Pure, for the command and its tests.
 */
import { GROUPS, isGroupName, type JobViewFilter } from '../../views/queues/text';

/** Reads a filter; an unknown state is refused with the states there are. */
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
