"""`ClusterError`: one failed read of a cluster, naming what was read (a kind or the connection) and why.

`reason` is one word a page or a script can branch on; `message` says it in a sentence."""

from __future__ import annotations

import json

__all__ = ["ClusterError", "REASONS"]

REASONS = (
    "config",  # no connection configured, or a kubeconfig/service account that cannot be used
    "unreachable",  # no answer: refused, DNS, TLS
    "timeout",  # a call, or the whole read, ran out of time
    "unauthorized",  # 401: the credentials were refused
    "forbidden",  # 403: RBAC forbids this read
    "not_found",  # 404: no such kind or object
    "not_allowed",  # the playground's allow-list does not name this kind (Secrets never)
    "invalid",  # a namespace, name or label selector the API server would refuse: never sent
    "too_large",  # more objects (or bytes) than the cap
    "failed",  # any other answer of the API server
)


class ClusterError(Exception):
    """`cannot read <what>: <detail>`; `what` names a kind (`deployments.apps`), `discovery` or `connection`."""

    def __init__(self, what: str, reason: str, detail: str, verb: str = "read"):
        self.what, self.reason, self.detail = what, reason, detail
        self.message = f"cannot {verb} {what}: {detail}"
        super().__init__(self.message)

    def to_dict(self) -> dict:
        return {"kind": self.what, "reason": self.reason, "message": self.message}


def from_exception(what: str, exc: BaseException) -> ClusterError:
    """The ClusterError of what the client raised while reading `what`."""
    if isinstance(exc, ClusterError):
        return exc
    status = getattr(exc, "status", None)
    if status:
        reason = {401: "unauthorized", 403: "forbidden", 404: "not_found"}.get(status, "failed")
        return ClusterError(what, reason, _status_text(exc))
    if _is_timeout(exc):
        return ClusterError(what, "timeout", "the cluster did not answer in time")
    return ClusterError(what, "unreachable", f"the cluster is unreachable ({_cause(exc)})")


def _status_text(exc: BaseException) -> str:
    """`403 Forbidden: <the Status message>`."""
    status, reason = getattr(exc, "status", None), getattr(exc, "reason", None)
    try:
        message = json.loads(getattr(exc, "body", None) or "{}").get("message")
    except (ValueError, AttributeError):
        message = None
    return f"{status} {reason or ''}".strip() + (f": {message}" if message else "")


def _chain(exc: BaseException):
    seen: BaseException | None = exc
    while seen is not None:
        yield seen
        seen = (
            getattr(seen, "reason", None)
            if isinstance(getattr(seen, "reason", None), BaseException)
            else (seen.__cause__ or seen.__context__)
        )


def _is_timeout(exc: BaseException) -> bool:
    import socket

    from urllib3.exceptions import NewConnectionError, TimeoutError as Urllib3Timeout

    # a refused connection is a NewConnectionError, which urllib3 derives from its ConnectTimeoutError
    chain = list(_chain(exc))
    if any(isinstance(e, (NewConnectionError, ConnectionRefusedError)) for e in chain):
        return False
    return any(isinstance(e, (Urllib3Timeout, socket.timeout, TimeoutError)) for e in chain)


def _cause(exc: BaseException) -> str:
    last = list(_chain(exc))[-1]
    return f"{type(last).__name__}: {last}"[:300]
