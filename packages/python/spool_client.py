"""A Spool client for Python 3.9+, with only the standard library.

It speaks the daemon's protocol: newline-delimited JSON-RPC 2.0 over the Unix socket, or over TLS
to a daemon started with `spool daemon --listen` (with a token, and the server's certificate
checked by its fingerprint or a CA; never unverified).

    from spool_client import Client

    with Client.connect() as spool:                     # $SPOOL_ENDPOINT over TLS, else the socket
        job = spool.enqueue("text", "upper", {"text": "hello"})
        print(spool.get_job(job["id"])["job"]["state"])

`Client.call(method, params)` reaches every method of docs/protocol.md; the helpers below are the
common ones with their fields named. A refusal raises RpcError with the daemon's code, message and
data (data["field"] names the field it refused).

The socket is found like every Spool client finds it: $SPOOL_SOCKET, else
$XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import ssl
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

__all__ = [
    "Client",
    "TlsTarget",
    "RpcError",
    "NoDaemon",
    "ConfigError",
    "LEASE_LOST",
    "default_socket_path",
    "tls_target",
]

#: The error code when a worker no longer holds the job it names (its lease ran out, or it was deleted).
LEASE_LOST = 1011

Json = Any
Params = Mapping[str, Json]


def default_socket_path(env: Optional[Mapping[str, str]] = None) -> str:
    """The daemon's socket: $SPOOL_SOCKET, else $XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock."""
    env = os.environ if env is None else env
    if env.get("SPOOL_SOCKET"):
        return os.path.abspath(env["SPOOL_SOCKET"])
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "spool", "spool.sock")
    return os.path.join(os.path.expanduser("~"), ".spool", "spool.sock")


class RpcError(Exception):
    """The daemon refused a call: `code` is the protocol's error code, `data` its details."""

    def __init__(self, error: Mapping[str, Json]) -> None:
        super().__init__(error.get("message", "unknown error"))
        self.code: Optional[int] = error.get("code")
        self.data: Dict[str, Json] = dict(error.get("data") or {})


class NoDaemon(Exception):
    """Nothing answers where the daemon should be (or a TLS peer is not the expected one)."""


class ConfigError(Exception):
    """The connection settings are incomplete or malformed; the message says what to pass."""


@dataclass(frozen=True)
class TlsTarget:
    """A daemon over the network: where, the token to log in with, and how to check its certificate."""

    host: str
    port: int
    token: str
    fingerprint: Optional[str] = None
    ca: Optional[str] = None

    @property
    def label(self) -> str:
        return f"tls://{self.host}:{self.port}"


def tls_target(
    endpoint: Optional[str] = None,
    token_file: Optional[str] = None,
    fingerprint: Optional[str] = None,
    ca: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> Optional[TlsTarget]:
    """The daemon over TLS that the arguments or the environment name ($SPOOL_ENDPOINT with
    $SPOOL_TOKEN_FILE or $SPOOL_TOKEN, and $SPOOL_TLS_FINGERPRINT or $SPOOL_TLS_CA), or None for
    the Unix socket."""
    env = os.environ if env is None else env
    endpoint = endpoint or env.get("SPOOL_ENDPOINT")
    if not endpoint:
        return None
    match = re.fullmatch(r"tls://(?:\[([^\]]+)\]|([^:/\[\]]+)):(\d{1,5})/?", endpoint.strip())
    if not match:
        raise ConfigError(f'The endpoint "{endpoint}" is not tls://HOST:PORT. Spool speaks only TLS over the network.')
    host, port = match.group(1) or match.group(2), int(match.group(3))
    token_file = token_file or env.get("SPOOL_TOKEN_FILE")
    if token_file:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
    else:
        token = env.get("SPOOL_TOKEN", "").strip()
    if not token:
        raise ConfigError(f"{endpoint} needs a token: pass a token file or set SPOOL_TOKEN.")
    fingerprint = fingerprint or env.get("SPOOL_TLS_FINGERPRINT")
    ca = ca or env.get("SPOOL_TLS_CA")
    if not fingerprint and not ca:
        raise ConfigError(
            f"Refusing to connect to {endpoint} without checking who answers: pass the daemon's TLS fingerprint "
            "(SPOOL_TLS_FINGERPRINT), as `spool daemon status` shows it, or a CA file (SPOOL_TLS_CA)."
        )
    if fingerprint:
        hexdigits = re.sub(r"^sha256(?: fingerprint)?[:=]", "", fingerprint.strip(), flags=re.I).replace(":", "").lower()
        if not re.fullmatch(r"[0-9a-f]{64}", hexdigits):
            raise ConfigError(f'The TLS fingerprint "{fingerprint}" is not sha256: and 64 hex digits.')
        fingerprint = "sha256:" + hexdigits
    return TlsTarget(host=host, port=port, token=token, fingerprint=fingerprint, ca=ca)


Target = Union[str, TlsTarget]


class Client:
    """One connection to the daemon; one request at a time, so each answer is the next line with our id."""

    def __init__(self, target: Target, timeout: Optional[float] = None) -> None:
        """`target`: the Unix socket's path, or a TlsTarget (then the first call is auth.login)."""
        self.target = target
        if isinstance(target, TlsTarget):
            self._sock = _connect_tls(target, timeout)
        else:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(timeout)
            try:
                self._sock.connect(target)
            except (FileNotFoundError, ConnectionRefusedError):
                self._sock.close()
                raise NoDaemon(f"No Spool daemon at {target}. Start one with `spool daemon --detach`.") from None
        self._reader = self._sock.makefile("r", encoding="utf-8", newline="\n")
        self._next_id = 0
        if isinstance(target, TlsTarget):
            self.call("auth.login", {"token": target.token})

    @classmethod
    def connect(cls, socket_path: Optional[str] = None, timeout: Optional[float] = None) -> "Client":
        """The daemon the environment names: $SPOOL_ENDPOINT over TLS, else `socket_path` or the default socket."""
        return cls(tls_target() or socket_path or default_socket_path(), timeout)

    @property
    def where(self) -> str:
        """The daemon's address, for messages."""
        return self.target.label if isinstance(self.target, TlsTarget) else self.target

    def call(self, method: str, params: Optional[Params] = None) -> Json:
        """Calls any method of the protocol and returns its result; raises RpcError when refused."""
        self._next_id += 1
        request = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": dict(params or {})}
        self._sock.sendall((json.dumps(request) + "\n").encode("utf-8"))
        while True:
            line = self._reader.readline()
            if not line:
                raise ConnectionError("the daemon closed the connection")
            message = json.loads(line)
            # Notifications (no id) only come after events.subscribe; skip them here.
            if message.get("id") != self._next_id:
                continue
            if "error" in message:
                raise RpcError(message["error"])
            return message["result"]

    # The common methods, with their fields named.

    def status(self) -> Dict[str, Json]:
        return self.call("daemon.status")

    def enqueue(self, queue: str, kind: str, payload: Json = None, **options: Json) -> Dict[str, Json]:
        """Enqueues one job and returns it. `options` are jobs.enqueue's other fields
        (priority, delayMs, runAt, maxAttempts, tags, idempotencyKey…)."""
        return self.call("jobs.enqueue", {"queue": queue, "kind": kind, "payload": payload, **options})["job"]

    def get_job(self, job_id: str) -> Dict[str, Json]:
        """{"job": …, "runs": [one per attempt]}."""
        return self.call("jobs.get", {"id": job_id})

    def list_jobs(self, **filters: Json) -> List[Dict[str, Json]]:
        """One page of jobs (queue, states, kind, tag, search, order, limit…)."""
        return self.call("jobs.list", filters)["jobs"]

    def register_worker(self, name: str, kinds: Sequence[str], queues: Sequence[str] = (), concurrency: int = 1) -> str:
        """Registers this process as a worker; returns its id for claims."""
        worker = self.call("workers.register", {
            "name": name,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "queues": list(queues),
            "kinds": list(kinds),
            "concurrency": concurrency,
        })["worker"]
        return worker["id"]

    def claim(self, worker_id: str, kinds: Sequence[str], queues: Sequence[str] = (), max_jobs: int = 1, wait_ms: int = 5000) -> List[Dict[str, Json]]:
        """Claims up to `max_jobs`, waiting up to `wait_ms` for one to be due."""
        return self.call("jobs.claim", {"workerId": worker_id, "queues": list(queues), "kinds": list(kinds), "max": max_jobs, "waitMs": wait_ms})["jobs"]

    def heartbeat(self, job_id: str, worker_id: str) -> bool:
        """Extends the lease; returns whether a cancel was requested."""
        return bool(self.call("jobs.heartbeat", {"id": job_id, "workerId": worker_id})["cancelRequested"])

    def log(self, job_id: str, worker_id: str, lines: Sequence[str]) -> None:
        self.call("jobs.log", {"id": job_id, "workerId": worker_id, "lines": list(lines)})

    def complete(self, job_id: str, worker_id: str, result: Json = None) -> None:
        self.call("jobs.complete", {"id": job_id, "workerId": worker_id, "result": result})

    def fail(
        self,
        job_id: str,
        worker_id: str,
        error: str,
        permanent: bool = False,
        retry_at_ms: Optional[int] = None,
        exit_code: Optional[int] = None,
        http_status: Optional[int] = None,
    ) -> None:
        """Fails the attempt. `retry_at_ms` (epoch ms) sets when the next attempt starts instead of the backoff."""
        params: Dict[str, Json] = {"id": job_id, "workerId": worker_id, "error": error, "permanent": permanent}
        if retry_at_ms is not None:
            params["retryAt"] = retry_at_ms
        if exit_code is not None:
            params["exitCode"] = exit_code
        if http_status is not None:
            params["httpStatus"] = http_status
        self.call("jobs.fail", params)

    def snooze(self, job_id: str, worker_id: str, delay_ms: int) -> None:
        """Puts a held job off for `delay_ms`: it runs again then without using up an attempt."""
        self.call("jobs.snooze", {"id": job_id, "workerId": worker_id, "delayMs": delay_ms})

    def release(self, job_id: str, worker_id: str, reason: str) -> None:
        """Hands a held job back: it runs again without using up an attempt."""
        self.call("jobs.release", {"id": job_id, "workerId": worker_id, "reason": reason})

    def close(self) -> None:
        self._reader.close()
        self._sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connect_tls(target: TlsTarget, timeout: Optional[float]) -> socket.socket:
    try:
        raw = socket.create_connection((target.host, target.port), timeout=timeout or 10)
    except ConnectionRefusedError:
        raise NoDaemon(f"No Spool daemon at {target.label} (connection refused).") from None
    if target.ca:
        # The CA checks the chain and the host name.
        context = ssl.create_default_context(cafile=target.ca)
    else:
        # A self-signed certificate has no chain to check: its fingerprint is compared below,
        # after the handshake and before a byte of the protocol is sent.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    sock = context.wrap_socket(raw, server_hostname=target.host)
    if target.fingerprint:
        presented = "sha256:" + hashlib.sha256(sock.getpeercert(binary_form=True) or b"").hexdigest()
        if presented != target.fingerprint:
            sock.close()
            raise NoDaemon(
                f"The server at {target.label} presented a certificate with fingerprint {presented}, "
                f"not the expected {target.fingerprint}; nothing was sent."
            )
    sock.settimeout(timeout)
    return sock
