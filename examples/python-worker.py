#!/usr/bin/env python3
"""A Spool worker in Python 3 with only the standard library (socket + json).

It speaks the daemon's protocol directly: newline-delimited JSON-RPC 2.0 over the Unix socket.

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
import hashlib
import json
import os
import re
import signal
import socket
import ssl
import sys
import time


def default_socket_path():
    if os.environ.get("SPOOL_SOCKET"):
        return os.path.abspath(os.environ["SPOOL_SOCKET"])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "spool", "spool.sock")
    return os.path.join(os.path.expanduser("~"), ".spool", "spool.sock")


LEASE_LOST = 1011  # the error code when this worker no longer holds the job


def tls_target(args):
    """The daemon over TLS that the flags or the environment name, or None for the Unix socket."""
    endpoint = args.endpoint or os.environ.get("SPOOL_ENDPOINT")
    if not endpoint:
        return None
    match = re.fullmatch(r"tls://(?:\[([^\]]+)\]|([^:/\[\]]+)):(\d{1,5})/?", endpoint.strip())
    if not match:
        sys.exit(f'The endpoint "{endpoint}" is not tls://HOST:PORT. Spool speaks only TLS over the network.')
    host, port = match.group(1) or match.group(2), int(match.group(3))
    token_file = args.token_file or os.environ.get("SPOOL_TOKEN_FILE")
    if token_file:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
    else:
        token = os.environ.get("SPOOL_TOKEN", "").strip()
    if not token:
        sys.exit(f"{endpoint} needs a token: pass --token-file FILE or set SPOOL_TOKEN.")
    fingerprint = args.tls_fingerprint or os.environ.get("SPOOL_TLS_FINGERPRINT")
    ca = args.tls_ca or os.environ.get("SPOOL_TLS_CA")
    if not fingerprint and not ca:
        sys.exit(f"Refusing to connect to {endpoint} without checking who answers: pass --tls-fingerprint "
                 "(SPOOL_TLS_FINGERPRINT), as `spool daemon status` shows it, or --tls-ca FILE (SPOOL_TLS_CA).")
    if fingerprint:
        hexdigits = re.sub(r"^sha256(?: fingerprint)?[:=]", "", fingerprint.strip(), flags=re.I).replace(":", "").lower()
        if not re.fullmatch(r"[0-9a-f]{64}", hexdigits):
            sys.exit(f'The TLS fingerprint "{fingerprint}" is not sha256: and 64 hex digits.')
        fingerprint = "sha256:" + hexdigits
    return {"host": host, "port": port, "token": token, "fingerprint": fingerprint, "ca": ca, "label": f"tls://{host}:{port}"}


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error.get("message", "unknown error"))
        self.code = error.get("code")
        self.data = error.get("data") or {}


class NoDaemon(Exception):
    pass


class Spool:
    """One connection; one request at a time, so each answer is the next line with our id."""

    def __init__(self, path, timeout=None):
        """`path`: the Unix socket, or a TLS target from tls_target()."""
        if isinstance(path, dict):
            self.sock = self._connect_tls(path, timeout)
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            try:
                self.sock.connect(path)
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                raise NoDaemon(f"No Spool daemon at {path}. Start one with `spool daemon --detach`.")
        self.reader = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.next_id = 0
        if isinstance(path, dict):
            self.call("auth.login", {"token": path["token"]})

    @staticmethod
    def _connect_tls(target, timeout):
        try:
            raw = socket.create_connection((target["host"], target["port"]), timeout=timeout or 10)
        except ConnectionRefusedError:
            raise NoDaemon(f"No Spool daemon at {target['label']} (connection refused).")
        if target["ca"]:
            # The CA checks the chain and the host name.
            context = ssl.create_default_context(cafile=target["ca"])
        else:
            # A self-signed certificate has no chain to check: its fingerprint is compared
            # below, after the handshake and before a byte of the protocol is sent.
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        sock = context.wrap_socket(raw, server_hostname=target["host"])
        if target["fingerprint"]:
            presented = "sha256:" + hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()
            if presented != target["fingerprint"]:
                sock.close()
                raise NoDaemon(f"The server at {target['label']} presented a certificate with fingerprint {presented}, "
                               f"not the expected {target['fingerprint']}; nothing was sent.")
        sock.settimeout(timeout)
        return sock

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


class Cancelled(Exception):
    pass


class BadPayload(Exception):
    """A payload this worker can never handle: the job fails for good, without retries."""


KINDS = ["upper", "reverse", "sleep"]


def handle(spool, job, ids):
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
            if spool.call("jobs.heartbeat", ids)["cancelRequested"]:
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
        spool = Spool(socket_path, timeout=5)
        try:
            spool.call("jobs.release", dict(ids, reason=reason))
        finally:
            spool.close()
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
    target = tls_target(args) or args.socket
    where = target["label"] if isinstance(target, dict) else target
    try:
        spool = Spool(target)
    except (NoDaemon, RpcError, ssl.SSLError) as error:
        sys.exit(str(error))
    status = spool.call("daemon.status")
    worker = spool.call("workers.register", {
        "name": "python-worker example",
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "queues": args.queue or [],
        "kinds": args.kind or KINDS,
        "concurrency": 1,
    })["worker"]
    worker_id = worker["id"]
    print(f"python worker {worker_id} connected to Spool {status['version']} at {where}", file=sys.stderr)

    done = 0
    held = None  # the ids of the job this worker holds the lease of, while it runs one
    try:
        while not stop.requested and (args.max_jobs == 0 or done < args.max_jobs):
            claimed = spool.call("jobs.claim", {
                "workerId": worker_id,
                "queues": args.queue or [],
                "kinds": args.kind or KINDS,
                "max": 1,
                "waitMs": 5000,
            })["jobs"]
            for job in claimed:
                held = ids = {"id": job["id"], "workerId": worker_id}
                if stop.requested:
                    # The claim was already waiting when the stop came: hand the job straight back.
                    spool.call("jobs.release", dict(ids, reason="the worker was stopping when the claim returned"))
                    held = None
                    continue
                try:
                    if spool.call("jobs.heartbeat", ids)["cancelRequested"]:
                        raise Cancelled()
                    result = handle(spool, job, ids)
                    spool.call("jobs.log", dict(ids, lines=[f"{job['kind']}: {json.dumps(result)}"]))
                    spool.call("jobs.complete", dict(ids, result=result))
                    print(f"job {job['id']} completed: {json.dumps(result)}", file=sys.stderr)
                except Cancelled:
                    # A job whose cancel was requested ends cancelled when its worker fails it.
                    spool.call("jobs.fail", dict(ids, error="cancelled"))
                    print(f"job {job['id']} cancelled", file=sys.stderr)
                except BadPayload as error:
                    spool.call("jobs.fail", dict(ids, error=str(error), permanent=True))
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
