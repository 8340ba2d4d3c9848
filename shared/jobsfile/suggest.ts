/**
 * "Did you mean …": the known name closest to a misspelt one, for unknown fields, time zones,
 * templates, queues and parameters. Edit distance (insert, delete, replace, and swapping two
 * neighbours, the commonest slip of a typist), case-insensitive.
 */

/** The candidate closest to `word`, or undefined when none is close enough to be a typo of it. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  // A third of the word, at least 2 edits: "concurency" → "concurrency", but "foo" ≠ "cron".
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    if (c === lower) return candidate;
    if (Math.abs(c.length - lower.length) >= bestDistance) continue;
    const d = distance(lower, c, bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance between `a` and `b`, giving up (returning `stop`) once past it. */
function distance(a: string, b: string, stop: number): number {
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

let zones: readonly string[] | undefined;

/** Every IANA zone the runtime knows, plus "UTC" (which Intl lists under Etc/ names only). */
export function knownTimezones(): readonly string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zones;
}
