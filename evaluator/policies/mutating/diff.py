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


def json_patch_between(before: Any, after: Any) -> list[dict]:
    """The RFC 6902 operations that turn `before` into `after`."""
    if before is None or after is None:
        return [] if before == after else [{"op": "replace", "path": "", "value": after}]
    return list(jsonpatch.make_patch(before, after).patch)


def encode_patch(operations: list[dict]) -> str:
    """The base64 text of the patch as AdmissionReview `response.patch` carries it."""
    text = json.dumps(operations, separators=(",", ":"), ensure_ascii=False)
    return base64.b64encode(text.encode()).decode()
