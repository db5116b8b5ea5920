"""Reading a live cluster, read-only by construction: `ReadOnlyClient` can only send GET, `ClusterReader` reads
only allow-listed kinds (never Secrets), bounded in time (per call and per load) and size (caps, counted first).

Used by the CLI (`simulate --kubeconfig`, `batch --kubeconfig`) and the web app's "load from cluster"; it
never imports Django."""

from evaluator.cluster.client import Connection, ReadOnlyClient
from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import DEFAULT_ALLOWED, allowed_set
from evaluator.cluster.load import ObjectQuery, Selection, count, load, origin_of
from evaluator.cluster.reader import ClusterReader, Resource
from evaluator.cluster.sample import sample_request

__all__ = [
    "ClusterError",
    "ClusterReader",
    "Connection",
    "DEFAULT_ALLOWED",
    "ObjectQuery",
    "ReadOnlyClient",
    "Resource",
    "Selection",
    "allowed_set",
    "count",
    "load",
    "origin_of",
    "sample_request",
]
