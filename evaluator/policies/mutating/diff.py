"""Differences between objects: the JSON Patch an AdmissionReview response would carry, and semantic equality.

`semantic_equal` is apimachinery's `equality.Semantic.DeepEqual` on decoded objects: a field that is
absent, null, an empty list, an empty map or a zero scalar is the same Go zero value. The patch is RFC
6902 as computed by the `jsonpatch` package (stefankoegl/python-json-patch), base64-encoded the way an
AdmissionReview carries it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import jsonpatch


def semantic_form(value: Any) -> Any:
    """`value` with every zero value removed from maps (the form two semantically equal objects share)."""
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            child = semantic_form(child)
            if (
                child is None
                or child == {}
                or child == []
                or child == ""
                or child is False
                or (type(child) in (int, float) and child == 0)
            ):
                continue
            out[key] = child
        return out
    if isinstance(value, list):
        return [semantic_form(v) for v in value]
    return value


def semantic_equal(a: Any, b: Any) -> bool:
    return _strict_equal(semantic_form(a), semantic_form(b))


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def _json_same(a: Any, b: Any) -> bool:
    """Whether `a` and `b` are certainly the same JSON (True only when the `jsonpatch` diff of them is empty:
    scalars of one type and value, `-0.0` apart; any other pair is left to the diff)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return len(a) == len(b) and all(k in b and _json_same(v, b[k]) for k, v in a.items())
    if kind is list:
        return len(a) == len(b) and all(_json_same(x, y) for x, y in zip(a, b))
    if kind is str or kind is int or kind is bool:
        return bool(a == b)
    if kind is float:
        return bool(a == b) and (a != 0 or repr(a) == repr(b))
    return False


class _PrunedDiff(jsonpatch.DiffBuilder):
    """`jsonpatch`'s diff, without walking subtrees that both documents have unchanged (they give no
    operation, so the patch is the same; the walk with a `json.dumps` per scalar was most of its cost)."""

    def _compare_values(self, path: Any, key: Any, src: Any, dst: Any) -> None:
        if not _json_same(src, dst):
            super()._compare_values(path, key, src, dst)  # type: ignore[misc]


def json_patch_between(before: Any, after: Any) -> list[dict]:
    """The RFC 6902 operations that turn `before` into `after` (those of `jsonpatch.make_patch`)."""
    if before is None or after is None:
        return [] if before == after else [{"op": "replace", "path": "", "value": after}]
    if _PRUNED:  # what JsonPatch.from_diff does, with the pruned builder
        builder = _PrunedDiff(before, after, jsonpatch.JsonPatch.json_dumper)
        builder._compare_values((), None, before, after)
        return list(jsonpatch.JsonPatch(jsonpatch._json_copy(list(builder.execute()))).patch)  # type: ignore[attr-defined]
    return list(jsonpatch.make_patch(before, after).patch)


# the pruned builder relies on the diff's internals of the jsonpatch version it was checked against
_PRUNED = hasattr(jsonpatch, "_json_copy") and hasattr(jsonpatch.DiffBuilder, "_compare_values")


def encode_patch(operations: list[dict]) -> str:
    """The base64 text of the patch as AdmissionReview `response.patch` carries it."""
    text = json.dumps(operations, separators=(",", ":"), ensure_ascii=False)
    return base64.b64encode(text.encode()).decode()
