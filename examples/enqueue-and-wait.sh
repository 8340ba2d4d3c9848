#!/usr/bin/env bash
# Enqueue shell jobs from a script, two ways, and wait for them to finish:
#   1. with `spool rpc` (any daemon method, JSON in, JSON out);
#   2. with raw JSON-RPC over the socket through socat (skipped, with a note, if socat is
#      missing: `apt-get install socat`).
# Waiting uses `spool logs -f`, which streams a job's output and returns when it has finished
# (exit status 0 if it completed, 1 if not); `spool job <id> --json` then tells how it ended.
# Exits 1 if any job did not complete.
#
#   examples/enqueue-and-wait.sh [queue]
#
# Environment: SPOOL_SOCKET (the daemon socket), SPOOL (how to run the CLI; default `spool`, or
# this checkout's bin/spool when `spool` is not on the PATH).
set -euo pipefail

queue="${1:-scripts}"
here="$(cd "$(dirname "$0")" && pwd)"
if [ -z "${SPOOL:-}" ]; then
  if command -v spool >/dev/null 2>&1; then SPOOL=spool; else SPOOL="node $here/../bin/spool"; fi
fi
sock="${SPOOL_SOCKET:-${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/spool/spool.sock}}"
sock="${sock:-$HOME/.spool/spool.sock}"

# The first "id" in an enqueue result is the job's id.
job_id() { sed -n 's/.*"job": *{ *"id": *"\([^"]*\)".*/\1/p; s/^ *"id": *"\([^"]*\)".*/\1/p' | head -n 1; }

ids=()

echo "== enqueue with spool rpc"
id=$($SPOOL rpc jobs.enqueue "{\"queue\":\"$queue\",\"kind\":\"shell\",\"payload\":{\"command\":\"echo hello from spool rpc\"}}" | job_id)
echo "enqueued $id"
ids+=("$id")

echo "== enqueue with raw JSON-RPC over the socket ($sock)"
if command -v socat >/dev/null 2>&1; then
  request="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"jobs.enqueue\",\"params\":{\"queue\":\"$queue\",\"kind\":\"shell\",\"payload\":{\"command\":\"echo hello from socat\"}}}"
  response=$(echo "$request" | socat -t 5 - "UNIX-CONNECT:$sock")
  id=$(echo "$response" | job_id)
  if [ -z "$id" ]; then
    echo "the daemon did not enqueue the job: $response" >&2
    exit 1
  fi
  echo "enqueued $id"
  ids+=("$id")
else
  echo "socat is not installed: skipping the raw socket part (apt-get install socat)"
fi

echo "== wait for ${#ids[@]} job(s)"
failed=0
for id in "${ids[@]}"; do
  $SPOOL logs -f "$id" || true   # its status says whether the job completed; the state below says how it ended
  state=$($SPOOL job "$id" --json | sed -n 's/^    "state": *"\([^"]*\)".*/\1/p' | head -n 1)
  echo "job $id: $state"
  [ "$state" = "completed" ] || failed=1
done
exit $failed
