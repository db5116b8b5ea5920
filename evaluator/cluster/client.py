"""`ReadOnlyClient`: the only way this project talks to a cluster, and it can only send GET.

It wraps the official `kubernetes` client's ApiClient (credentials, TLS, token refresh from a kubeconfig or a
pod's service account) and exposes one call, `get(path, query)`, whose HTTP method is fixed: no write verb
is reachable through it. Every call is bounded: a connect and a read timeout, no retries, a cap on the bytes
of one answer, and the deadline of the whole read it belongs to."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from evaluator.cluster.errors import ClusterError, from_exception

__all__ = ["Connection", "ReadOnlyClient", "cluster_label"]


@dataclass(frozen=True)
class Connection:
    """Where the cluster is and how much one read may cost. `in_cluster` uses the pod's service account;
    otherwise `kubeconfig` (and `context`, default its current one)."""

    kubeconfig: str = ""
    context: str | None = None
    in_cluster: bool = False
    timeout: float = 10.0  # seconds, per call (connect and read each)
    deadline: float = 60.0  # seconds, for a whole load (discovery, counts, lists)
    max_response_bytes: int = 32 * 1024 * 1024

    @property
    def label(self) -> str:
        """The cluster as origins name it: `in-cluster` or the kubeconfig context."""
        return "in-cluster" if self.in_cluster else (self.context or "")


def cluster_label(connection: Connection) -> str:
    """The name origins will carry, read from the kubeconfig (no call to the cluster); `kubeconfig` when the
    file cannot say."""
    if connection.label:
        return connection.label
    from kubernetes import config

    try:
        _, current = config.list_kube_config_contexts(connection.kubeconfig or None)
        return str(current["name"])
    except Exception:  # a missing or broken file: the load will say what is wrong with it
        return "kubeconfig"


class ReadOnlyClient:
    """GET only. Built lazily by `open()`; `close()` releases the connection pool."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self._api: Any = None
        self._started = time.monotonic()
        self.label = connection.label

    def open(self) -> ReadOnlyClient:
        from kubernetes import client as k8s_client, config  # only reading a cluster needs the client

        try:
            configuration = type.__call__(k8s_client.Configuration)
            if self.connection.in_cluster:
                config.load_incluster_config(client_configuration=configuration)
            else:
                # persist_config=False: even a refreshed token is never written back to the kubeconfig
                if not self.connection.context:  # name the cluster by the context actually used
                    _, current = config.list_kube_config_contexts(self.connection.kubeconfig or None)
                    self.label = current["name"]
                config.load_kube_config(
                    config_file=self.connection.kubeconfig or None,
                    context=self.connection.context,
                    client_configuration=configuration,
                    persist_config=False,
                )
            configuration.retries = 0  # a dead cluster answers once, within the timeout
            self._api = k8s_client.ApiClient(configuration=configuration)
        except Exception as exc:  # a missing file, an unknown context, not in a pod
            where = "the in-cluster service account" if self.connection.in_cluster else self.connection.kubeconfig
            raise ClusterError(where, "config", f"{type(exc).__name__}: {exc}", verb="use") from None
        return self

    def close(self) -> None:
        if self._api is not None:
            self._api.close()
            self._api = None

    def __enter__(self) -> ReadOnlyClient:
        return self.open() if self._api is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def remaining(self) -> float:
        return self.connection.deadline - (time.monotonic() - self._started)

    def get(self, path: str, query: list[tuple[str, Any]] | None = None, *, what: str = "") -> dict:
        """The JSON body of `GET path`; a ClusterError naming `what` (default the path) otherwise."""
        what = what or path
        left = self.remaining()
        if left <= 0:
            raise ClusterError(what, "timeout", f"the read took longer than {self.connection.deadline:g} s")
        timeout = min(self.connection.timeout, left)
        try:
            response = self._api.call_api(
                path,
                "GET",
                query_params=query or [],
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
                _return_http_data_only=True,
                _preload_content=False,
                _request_timeout=(timeout, timeout),
            )
            body = response.read(self.connection.max_response_bytes + 1, decode_content=True)
            response.release_conn()
        except Exception as exc:
            raise from_exception(what, exc) from None
        if len(body) > self.connection.max_response_bytes:
            raise ClusterError(
                what,
                "too_large",
                f"the answer is larger than {self.connection.max_response_bytes} bytes",
            )
        try:
            data = json.loads(body)
        except ValueError:
            raise ClusterError(what, "failed", "the answer is not JSON") from None
        return data if isinstance(data, dict) else {}
