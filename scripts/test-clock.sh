#!/usr/bin/env bash
# Runs the test suites under libfaketime at instants where a test that reads the wall clock's
# date, hour or zone would break:
#   evening   21:30 UTC, when a fire time's date in Europe/Paris is already tomorrow
#   new-year  31 December 23:59:30 UTC, so the date, month and year change during the run
#   dst       28 March 2027 01:59 in Europe/Paris (TZ set too), an hour before summer time begins
# The clock is shifted by an offset (faketime's "+Ns"), not set to a fixed start, so every process
# a test starts (daemons, the CLI) shares the test's clock instead of starting over.
# Usage: bash scripts/test-clock.sh [evening|new-year|dst ...] [-- levels]   (default: all three; unit conformance integration)
# Needs Debian's faketime (`apt-get install faketime`).
set -euo pipefail
cd "$(dirname "$0")/.."

instants=()
levels=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; levels=("$@"); break ;;
    *) instants+=("$1"); shift ;;
  esac
done
[ ${#instants[@]} -gt 0 ] || instants=(evening new-year dst)
[ ${#levels[@]} -gt 0 ] || levels=(unit conformance integration)

if ! command -v faketime >/dev/null 2>&1; then
  echo "test-clock: faketime is missing; install it with: apt-get install faketime" >&2
  exit 1
fi

status=0
for instant in "${instants[@]}"; do
  zone=UTC
  case "$instant" in
    evening) target="$(date -u +%Y-%m-%d) 21:30:00 UTC" ;;
    new-year) target="$(date -u +%Y)-12-31 23:59:30 UTC" ;;
    dst) target="2027-03-28 00:59:00 UTC"; zone=Europe/Paris ;;
    *) echo "test-clock: unknown instant '$instant' (evening, new-year or dst)" >&2; exit 2 ;;
  esac
  offset=$(( $(date -u -d "$target" +%s) - $(date -u +%s) ))
  echo "== tests at $target (TZ=$zone, clock offset ${offset}s): ${levels[*]}"
  sign="+"; [ "$offset" -lt 0 ] && sign=""
  if ! TZ="$zone" faketime -f "${sign}${offset}s" node test/run.mjs "${levels[@]}"; then
    echo "== FAILED at $target" >&2
    status=1
  fi
done
exit $status
