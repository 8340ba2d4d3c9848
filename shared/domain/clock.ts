/** Words for a daemon's clock against the database server's (`daemon.status`'s clockSkewMs). */

/** Above this either way, a daemon's clock is out of step: the daemon warns, and the status says so. */
export const CLOCK_SKEW_WARN_MS = 1000;

/** "1.4 s ahead of" / "0.012 s behind": the words for a skew, before "the database server's". */
export function describeClockSkew(skewMs: number): string {
  const seconds = (Math.abs(skewMs) / 1000).toFixed(Math.abs(skewMs) < 100 ? 3 : 1);
  return skewMs >= 0 ? `${seconds} s ahead of` : `${seconds} s behind`;
}
