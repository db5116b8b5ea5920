"""Kubernetes' JSONPatch library: `jsonpatch.escapeKey(string) -> string` (pkg/cel/library/jsonpatch.go).

It escapes a map key for use as one JSON Pointer token (RFC 6901): `~` becomes `~0` and `/` becomes
`~1`, so `"/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y")` addresses the label `k8s.io/x~y`.
"""

from __future__ import annotations

import math
from typing import Any

from evaluator.cel.registry import function

__all__ = ["escape_key"]


def _traversal_cost(args: tuple, result: Any) -> int:
    """A string traversal, as Kubernetes' cost estimator charges it: ceil(length * 0.1)."""
    return math.ceil(len(args[0]) * 0.1) if isinstance(args[0], str) else 1


@function("jsonpatch.escapeKey(string) -> string", cost=_traversal_cost)
def escape_key(key: str) -> str:
    # `~` first, so the `~` that `/` becomes is not escaped again (strings.NewReplacer does both in one pass).
    return key.replace("~", "~0").replace("/", "~1")
