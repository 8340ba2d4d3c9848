#!/usr/bin/env python3
"""A Spool worker in Python 3 with only the standard library, on the Python client module
(packages/python/spool_client.py: newline-delimited JSON-RPC 2.0 over the Unix socket or TLS).

    python3 examples/python-worker.py --queue text [--kind upper] [--max-jobs N]
    spool enqueue text --kind upper --payload '{"text": "hello"}'
    spool enqueue text --kind sleep --payload '{"seconds": 30}'

For each job it: claims it (`jobs.claim`, long-polling so an idle worker sends one request
every few seconds), heartbeats to keep its lease (`jobs.heartbeat`, which also says whether a
cancel was requested; a `sleep` job heartbeats every second while it waits, and stops if it
was cancelled), logs a line (`jobs.log`) and completes it with a result (`jobs.complete`), or
fails it (`jobs.fail`; `permanent` for a payload that can never work).

Stopping: Ctrl-C or SIGTERM lets the running job finish and claims no more (a job that a claim
already waiting brings is handed back with `jobs.release`); a second one stops at once and hands
the running job back with `jobs.release`, so it runs again without waiting for its lease to run
out and without using up an attempt.

The socket is found like every Spool client finds it: $SPOOL_SOCKET, else
$XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock.

A daemon over the network (`spool daemon --listen`) is reached over TLS, like every Spool client
reaches it: --endpoint tls://HOST:PORT ($SPOOL_ENDPOINT), a token (--token-file, $SPOOL_TOKEN_FILE
or $SPOOL_TOKEN), and the server's certificate checked by its fingerprint (--tls-fingerprint,
$SPOOL_TLS_FINGERPRINT, as `spool daemon status` shows it) or a CA (--tls-ca, $SPOOL_TLS_CA);
never unverified. The first call on the connection is then `auth.login`.
"""
import argparse
import json
import os
import signal
import ssl
import sys
import time
from pathlib import Path

# The client module lives in packages/python; copy spool_client.py beside your worker, or put its
# folder on PYTHONPATH, to use it elsewhere.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "packages" / "python"))
from spool_client import LEASE_LOST, Client, ConfigError, NoDaemon, RpcError, default_socket_path, tls_target  # noqa: E402


class Cancelled(Exception):
    pass


class BadPayload(Exception):
    """A payload this worker can never handle: the job fails for good, without retries."""


KINDS = ["upper", "reverse", "sleep"]


def handle(spool: Client, job, ids):
    """The work itself. Raise BadPayload for a payload that can never succeed."""
    kind, payload = job["kind"], job["payload"]
    if kind == "sleep":
        seconds = payload.get("seconds") if isinstance(payload, dict) else None
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
            raise BadPayload('the payload must be {"seconds": N}')
        # A long job heartbeats so its lease does not run out (three times per lease), and
        # learns of a cancel from the answer.
        every = min(1.0, job["timeoutMs"] / 3000)
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return {"slept": seconds}
            time.sleep(min(every, left))
            if spool.heartbeat(ids["id"], ids["workerId"]):
                raise Cancelled()
    if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
        raise BadPayload('the payload must be {"text": "..."}')
    if kind == "upper":
        return {"text": payload["text"].upper()}
    if kind == "reverse":
        return {"text": payload["text"][::-1]}
    raise BadPayload(f"this worker does not know the kind {kind!r}")


class Stop:
    """The first SIGINT/SIGTERM asks for a graceful stop; the second stops at once."""

    def __init__(self):
        self.requested = False
        self.last = None
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self.on_signal)

    def on_signal(self, signum, frame):
        name = signal.Signals(signum).name
        self.last = signum
        # os.write, not print: a signal may land while the main code is inside a print.
        if self.requested:
            os.write(2, f"second {name}: stopping now\n".encode())
            raise KeyboardInterrupt()
        self.requested = True
        os.write(2, f"{name} received: finishing the running job, if any, then exiting (send it again to stop now)\n".encode())

    def exit_status(self):
        # As a shell reports a process the (last) signal ended: 128 + its number.
        return 128 + (self.last or signal.SIGINT)


def release(socket_path, ids, reason):
    """Hands a held job back, on a new connection (the old one may be cut off mid-request),
    waiting at most a few seconds: the worker is exiting."""
    try:
        with Client(socket_path, timeout=5) as spool:
            spool.release(ids["id"], ids["workerId"], reason)
        print(f"job {ids['id']} handed back: it runs again without using up an attempt", file=sys.stderr)
    except RpcError as error:
        if error.code == LEASE_LOST:
            print(f"job {ids['id']} had already ended", file=sys.stderr)
        else:
            print(f"could not hand job {ids['id']} back ({error}); it runs again once its lease runs out", file=sys.stderr)
    except (NoDaemon, OSError) as error:
        print(f"could not hand job {ids['id']} back ({error}); it runs again once its lease runs out", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description="A Spool worker using only the Python standard library.")
    parser.add_argument("--socket", default=default_socket_path())
    parser.add_argument("--endpoint", help="a daemon over TLS, tls://HOST:PORT (default $SPOOL_ENDPOINT)")
    parser.add_argument("--token-file", help="the token for --endpoint (default $SPOOL_TOKEN_FILE, or $SPOOL_TOKEN)")
    parser.add_argument("--tls-fingerprint", help="the daemon certificate's sha256 fingerprint (default $SPOOL_TLS_FINGERPRINT)")
    parser.add_argument("--tls-ca", help="a CA certificate file that signed the daemon's (default $SPOOL_TLS_CA)")
    parser.add_argument("--queue", action="append", help="queue to take jobs from (repeatable; default all)")
    parser.add_argument("--kind", action="append", help=f"kind to take (repeatable; default {', '.join(KINDS)})")
    parser.add_argument("--max-jobs", type=int, default=0, help="exit after this many jobs (0 = run until Ctrl-C)")
    args = parser.parse_args()

    # Signals are handled from the start, so a Ctrl-C while connecting stops quietly too.
    stop = Stop()
    try:
        target = tls_target(args.endpoint, args.token_file, args.tls_fingerprint, args.tls_ca) or args.socket
        spool = Client(target)
    except (ConfigError, NoDaemon, RpcError, ssl.SSLError) as error:
        sys.exit(str(error))
    status = spool.status()
    worker_id = spool.register_worker("python-worker example", kinds=args.kind or KINDS, queues=args.queue or [])
    print(f"python worker {worker_id} connected to Spool {status['version']} at {spool.where}", file=sys.stderr)

    done = 0
    held = None  # the ids of the job this worker holds the lease of, while it runs one
    try:
        while not stop.requested and (args.max_jobs == 0 or done < args.max_jobs):
            claimed = spool.claim(worker_id, kinds=args.kind or KINDS, queues=args.queue or [])
            for job in claimed:
                held = ids = {"id": job["id"], "workerId": worker_id}
                if stop.requested:
                    # The claim was already waiting when the stop came: hand the job straight back.
                    spool.release(job["id"], worker_id, "the worker was stopping when the claim returned")
                    held = None
                    continue
                try:
                    if spool.heartbeat(job["id"], worker_id):
                        raise Cancelled()
                    result = handle(spool, job, ids)
                    spool.log(job["id"], worker_id, [f"{job['kind']}: {json.dumps(result)}"])
                    spool.complete(job["id"], worker_id, result)
                    print(f"job {job['id']} completed: {json.dumps(result)}", file=sys.stderr)
                except Cancelled:
                    # A job whose cancel was requested ends cancelled when its worker fails it.
                    spool.fail(job["id"], worker_id, "cancelled")
                    print(f"job {job['id']} cancelled", file=sys.stderr)
                except BadPayload as error:
                    spool.fail(job["id"], worker_id, str(error), permanent=True)
                    print(f"job {job['id']} failed for good: {error}", file=sys.stderr)
                except RpcError as error:
                    if error.code != LEASE_LOST:
                        raise
                    # Its lease ran out (or the job was deleted): another worker may have it now.
                    print(f"job {job['id']}: lost its lease ({error}); leaving it", file=sys.stderr)
                held = None
                done += 1
    except KeyboardInterrupt:
        if held is not None:
            release(target, held, "the python worker was stopped")
        spool.close()
        sys.exit(stop.exit_status())
    spool.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
