"""One mutation (a rule's, or one foreach element's) on a resource: `patchStrategicMerge` or
`patchesJson6902`, with Kyverno's statuses and texts (pkg/engine/mutate/mutation.go).

`apply_mutation` returns (status, patched resource, message): `pass` "resource patched", `skip` "no patches
applied" when nothing changed, `error` with Kyverno's wording ("failed to patch resource: ...").
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.policies.mutating.jsonpatch import PatchError, json_equal

from ..rule_validator import ERROR, PASS, SKIP
from . import anchored, json6902, merge

Outcome = tuple[str, Any, str]


class PatchFailed(Exception):
    """The patch did not apply; the message follows `failed to patch resource: `."""


def strategic_merge(resource: Any, overlay: Any) -> Any:
    """ProcessStrategicMergePatch: anchors resolved against the resource, then the merge. A failed
    conditional or global anchor leaves an empty patch (the resource unchanged)."""
    pattern = json.loads(json.dumps(overlay))
    try:
        anchored.preprocess(pattern, resource)
    except (anchored.ConditionFailed, anchored.GlobalConditionFailed):
        pattern = {}
    except Exception as err:
        raise PatchFailed(f"failed to preProcess rule: {err}") from None
    if not isinstance(pattern, dict):
        raise PatchFailed("failed to preProcess rule: wrong Node Kind for  expected: MappingNode")
    try:
        return merge.strategic_merge(resource, pattern)
    except merge.MergeError as err:
        raise PatchFailed(str(err)) from None


def apply_mutation(mutation: dict, resource: Any) -> Outcome:
    """A substituted mutation (`patchStrategicMerge` or `patchesJson6902`) on `resource`."""
    overlay = mutation.get("patchStrategicMerge")
    text = mutation.get("patchesJson6902")
    try:
        if overlay is not None:
            patched = strategic_merge(resource, overlay)
        elif text:
            if not isinstance(text, str):
                return ERROR, resource, "failed to patch resource: patchesJson6902 must be a string"
            patched = json6902.apply(resource, json6902.decode(text))
        else:
            return ERROR, resource, "empty mutate rule"
    except (PatchFailed, json6902.DecodeError, PatchError) as err:
        return ERROR, resource, f"failed to patch resource: {err}"
    if not isinstance(patched, dict):
        return ERROR, resource, "failed to unmarshal patched resource: Object 'Kind' is missing"
    if _json_equal(patched, resource):
        return SKIP, resource, "no patches applied"
    return PASS, patched, "resource patched"  # a new object, sharing with `resource` only what it left as it was


def _json_equal(patched: Any, resource: Any) -> bool:
    """`json_equal(patched, resource)`, without walking the maps and lists a strategic merge shared with the
    resource. A value is json_equal to itself unless it holds a NaN, which the JSON encoder refuses."""
    try:
        json.dumps(resource, allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # a NaN, or not JSON: compare every node
        return json_equal(patched, resource)
    return _shared_equal(patched, resource)


def _shared_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(_shared_equal(v, b[k]) for k, v in a.items())
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(_shared_equal(x, y) for x, y in zip(a, b))
    return json_equal(a, b)
