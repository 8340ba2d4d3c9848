/**
 * "Did you mean …": the known name closest to a misspelt one, for queues and methods on the
 * command line, and fields, time zones, templates, queues and parameters of the jobs file. Edit
 * distance (insert, delete, replace, and swapping two neighbours, the commonest slip of a
 * typist), case-insensitive.
 */

/**
 * The most edits a name may be from `word` to be taken for a typo of it: none up to three
 * characters, one from four, two from seven. Short names are left alone ("q2" is no typo of "q1",
 * nor "cap" of "cas": one letter of three is as likely another name), but for two neighbours
 * swapped ("evn" for "env", see `closest`); and a long word is not matched to a name that merely
 * shares half of it.
 */
export function typoLimit(word: string): number {
  return Math.min(2, Math.floor((word.length - 1) / 3));
}

/** The candidate closest to `word` (the first on ties), or undefined when none is close enough to be a typo of it. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  const limit = typoLimit(word);
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    if (c === lower) return candidate;
    if (limit === 0 && best === undefined && swapped(lower, c)) best = candidate;
    if (Math.abs(c.length - lower.length) >= bestDistance) continue;
    const d = editDistance(lower, c, bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Whether `a` is `b` with two neighbouring letters swapped: a typo even in a short name. */
function swapped(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** Optimal string alignment distance between `a` and `b`, giving up (returning `stop`) once past it. */
export function editDistance(a: string, b: string, stop = Infinity): number {
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (previous2[j - 2] ?? 0) + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= stop) return stop;
    previous2 = previous;
    previous = row;
  }
  return previous[b.length] ?? stop;
}
