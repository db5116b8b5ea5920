"""A replay item: one admission request of an impact run, plain JSON so it can go to any worker.

`{"index": n, "request": {...}, "line": 12 | None, "time": "2026-12-01T10:00:00.123456Z" | None,
"auditID": str | None, "notes": [str]}`: `request` is what `simulate` takes (an AdmissionRequest, partial is
fine); `line` locates it in its source (the audit log line, or the document of a dump); `time` is when the
API server received it (audit logs); `notes` say what the replay had to assume (an old object it could not
find). `object_items(objects)` makes the items of a dump: each object a CREATE, as `batch` admits it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NotRequired, TypedDict

from evaluator.batch.engine import request_for
from evaluator.batch.rows import mapping_at

__all__ = ["Item", "Identity", "object_items", "identity"]


class Item(TypedDict):
    index: int
    request: dict[str, Any]
    line: int | None
    time: str | None
    auditID: NotRequired[str | None]
    notes: NotRequired[list[str]]


class Identity(TypedDict):
    operation: str
    subResource: str
    apiVersion: str
    kind: str
    namespace: str
    name: str
    user: str
    dryRun: bool


def object_items(objects: Iterable[Any], start: int = 0) -> Iterator[Item]:
    """Each object of a dump as a CREATE (the request `batch` admits it as: uid `batch-<index>`)."""
    for index, obj in enumerate(objects, start):
        yield {"index": index, "request": request_for(index, obj), "line": None, "time": None}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def identity(request: Mapping[str, Any]) -> Identity:
    """What the summary groups a request by, read from the request as given (no inference run twice): the
    object (oldObject for a DELETE) gives kind and apiVersion; name and namespace are the request's when
    given, else the object's; the user is `userInfo.username` ("" when not given)."""
    obj = request.get("object")
    old = request.get("oldObject")
    operation = _text(request.get("operation")) or ("DELETE" if obj is None and old is not None else "CREATE")
    source = obj if isinstance(obj, Mapping) and not (operation == "DELETE" and isinstance(old, Mapping)) else old
    source = source if isinstance(source, Mapping) else {}
    meta = mapping_at(source, "metadata")
    kind = mapping_at(request, "kind")
    user = mapping_at(request, "userInfo")
    name = request.get("name")
    namespace = request.get("namespace")
    api_version = _text(source.get("apiVersion"))
    if not api_version and kind:
        group, version = _text(kind.get("group")), _text(kind.get("version"))
        api_version = f"{group}/{version}" if group else version
    return {
        "operation": operation,
        "subResource": _text(request.get("subResource")),
        "apiVersion": api_version,
        "kind": _text(kind.get("kind")) or _text(source.get("kind")),
        "namespace": namespace if isinstance(namespace, str) else _text(meta.get("namespace")),
        "name": (name if isinstance(name, str) and name else "")
        or _text(meta.get("name"))
        or _text(meta.get("generateName")),
        "user": _text(user.get("username")),
        "dryRun": request.get("dryRun") is True,
    }
