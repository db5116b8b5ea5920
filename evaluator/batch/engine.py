"""Run objects through a policy set as CREATE requests: `chunks`, `run_chunk`, `explain`.

The policy set is compiled once per process and kept by the content hash of the documents and the
Kubernetes version (`compiled`), so a worker that runs many chunks of one job -- or of several jobs with
the same policies -- compiles once. `run_chunk` is the batch path (`Simulation.run(trace=False,
full=False)`), keeping a small `Row` per object; `explain` recomputes one object's full result (traces,
AdmissionReview, audit event) for a drill-down.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, TypeVar

from evaluator.batch.rows import Row, row_of
from evaluator.simulation import Simulation

__all__ = [
    "chunks",
    "run_chunk",
    "explain",
    "compiled",
    "documents_key",
    "request_for",
    "object_name",
    "with_namespaces",
]

T = TypeVar("T")
CACHE_SIZE = 4  # policy sets kept compiled per process

_cache: OrderedDict[str, Simulation] = OrderedDict()
_lock = threading.Lock()


def chunks(objects: Sequence[T], size: int) -> list[list[T]]:
    """`objects` cut in order into lists of `size` (the last one shorter)."""
    if size < 1:
        raise ValueError("chunk size must be at least 1")
    return [list(objects[i : i + size]) for i in range(0, len(objects), size)]


def documents_key(documents: Any, kubernetes_version: str | None = None) -> str:
    """The content hash a compiled policy set is cached under."""
    text = documents if isinstance(documents, str) else json.dumps(documents, sort_keys=True, default=repr)
    return hashlib.sha256(f"{kubernetes_version or ''}\0{text}".encode()).hexdigest()


def compiled(documents: Any, kubernetes_version: str | None = None) -> Simulation:
    """The `Simulation` of `documents`, compiled once per process (least recently used of CACHE_SIZE)."""
    key = documents_key(documents, kubernetes_version)
    with _lock:
        simulation = _cache.get(key)
        if simulation is not None:
            _cache.move_to_end(key)
            return simulation
    simulation = Simulation(documents, kubernetes_version=kubernetes_version)
    with _lock:
        _cache[key] = simulation
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return simulation


def with_namespaces(documents: list[Any], objects: Sequence[Any]) -> list[Any]:
    """`documents` with the Namespace objects among `objects` that they do not define: a dump's namespaces
    carry the labels namespaceSelectors read (the objects are still admitted, as every other one)."""
    defined = {_namespace_name(d) for d in documents}
    added = []
    for obj in objects:
        name = _namespace_name(obj)
        if name and name not in defined:
            defined.add(name)
            added.append(obj)
    return list(documents) + added


def _namespace_name(obj: Any) -> str | None:
    if not isinstance(obj, dict) or obj.get("kind") != "Namespace" or obj.get("apiVersion") != "v1":
        return None
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else None


def request_for(index: int, obj: Any) -> dict[str, Any]:
    """The CREATE request an object of the batch is admitted as (a stable uid per index)."""
    return {"uid": f"batch-{index}", "operation": "CREATE", "object": obj}


def object_name(index: int, obj: Any) -> str:
    """The name a batch object's own errors go by: `Kind namespace/name` (`Kind name` when cluster-scoped),
    or `object N` (its place in the batch, from 1) when it has no kind or name."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return f"object {index + 1}"
    name = meta.get("name") or meta.get("generateName")
    kind = obj.get("kind")
    if not (isinstance(kind, str) and kind and isinstance(name, str) and name):
        return f"object {index + 1}"
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def run_chunk(
    documents: Any, objects: Sequence[Any], *, start: int = 0, kubernetes_version: str | None = None
) -> list[Row]:
    """One row per object; `start` is the index of the first object in the whole batch."""
    simulation = compiled(documents, kubernetes_version)
    rows = []
    for index, obj in enumerate(objects, start):
        result = simulation.run(request_for(index, obj), trace=False, full=False, request_name=object_name(index, obj))
        rows.append(row_of(index, obj, result))
    return rows


def explain(documents: Any, obj: Any, *, index: int = 0, kubernetes_version: str | None = None) -> dict[str, Any]:
    """The full `simulate` result (traces included) for the object at `index` of a batch."""
    return compiled(documents, kubernetes_version).run(request_for(index, obj), request_name=object_name(index, obj))
