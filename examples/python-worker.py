#!/usr/bin/env python3
"""A Spool worker in Python 3 with only the standard library (socket + json).

It speaks the daemon's protocol directly: newline-delimited JSON-RPC 2.0 over the Unix socket.

    python3 examples/python-worker.py --queue text --kind upper [--max-jobs N]
    spool enqueue text --kind upper --payload '{"text": "hello"}'

For each job it: claims it (`jobs.claim`, long-polling so an idle worker sends one request
every few seconds), heartbeats to keep its lease (`jobs.heartbeat`, which also says whether a
cancel was requested), logs a line (`jobs.log`) and completes it with a result
(`jobs.complete`), or fails it (`jobs.fail`; `permanent` for a payload that can never work).

The socket is found like every Spool client finds it: $SPOOL_SOCKET, else
$XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock.
"""
import argparse
import json
import os
import socket
import sys


def default_socket_path():
    if os.environ.get("SPOOL_SOCKET"):
        return os.path.abspath(os.environ["SPOOL_SOCKET"])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "spool", "spool.sock")
    return os.path.join(os.path.expanduser("~"), ".spool", "spool.sock")


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error.get("message", "unknown error"))
        self.code = error.get("code")
        self.data = error.get("data") or {}


class Spool:
    """One connection; one request at a time, so each answer is the next line with our id."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            sys.exit(f"No Spool daemon at {path}. Start one with `spool daemon --detach`.")
        self.reader = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        self.sock.sendall((json.dumps(request) + "\n").encode("utf-8"))
        while True:
            line = self.reader.readline()
            if not line:
                raise ConnectionError("the daemon closed the connection")
            message = json.loads(line)
            # Notifications (no id) only come after events.subscribe, which this worker never
            # sends; skip any anyway.
            if message.get("id") != self.next_id:
                continue
            if "error" in message:
                raise RpcError(message["error"])
            return message["result"]

    def close(self):
        self.reader.close()
        self.sock.close()


def handle(kind, payload):
    """The work itself. Raise ValueError for a payload that can never succeed."""
    if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
        raise ValueError('the payload must be {"text": "..."}')
    if kind == "upper":
        return {"text": payload["text"].upper()}
    if kind == "reverse":
        return {"text": payload["text"][::-1]}
    raise ValueError(f"this worker does not know the kind {kind!r}")


def main():
    parser = argparse.ArgumentParser(description="A Spool worker using only the Python standard library.")
    parser.add_argument("--socket", default=default_socket_path())
    parser.add_argument("--queue", action="append", help="queue to take jobs from (repeatable; default all)")
    parser.add_argument("--kind", action="append", help="kind to take (repeatable; default upper and reverse)")
    parser.add_argument("--max-jobs", type=int, default=0, help="exit after this many jobs (0 = run until Ctrl-C)")
    args = parser.parse_args()

    spool = Spool(args.socket)
    status = spool.call("daemon.status")
    worker = spool.call("workers.register", {
        "name": "python-worker example",
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "queues": args.queue or [],
        "kinds": args.kind or ["upper", "reverse"],
        "concurrency": 1,
    })["worker"]
    worker_id = worker["id"]
    print(f"python worker {worker_id} connected to Spool {status['version']} at {args.socket}", file=sys.stderr)

    done = 0
    try:
        while args.max_jobs == 0 or done < args.max_jobs:
            claimed = spool.call("jobs.claim", {
                "workerId": worker_id,
                "queues": args.queue or [],
                "kinds": args.kind or ["upper", "reverse"],
                "max": 1,
                "waitMs": 5000,
            })["jobs"]
            for job in claimed:
                ids = {"id": job["id"], "workerId": worker_id}
                beat = spool.call("jobs.heartbeat", ids)
                if beat["cancelRequested"]:
                    spool.call("jobs.fail", dict(ids, error="cancelled before it started"))
                    continue
                try:
                    result = handle(job["kind"], job["payload"])
                except ValueError as error:
                    spool.call("jobs.fail", dict(ids, error=str(error), permanent=True))
                    print(f"job {job['id']} failed for good: {error}", file=sys.stderr)
                else:
                    spool.call("jobs.log", dict(ids, lines=[f"{job['kind']}: {json.dumps(result)}"]))
                    spool.call("jobs.complete", dict(ids, result=result))
                    print(f"job {job['id']} completed: {json.dumps(result)}", file=sys.stderr)
                done += 1
    except KeyboardInterrupt:
        pass
    finally:
        spool.close()


if __name__ == "__main__":
    main()
