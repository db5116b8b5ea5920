"""Defaulting an AdmissionRequest once: its `object` as decoded and its `oldObject` as stored.

The API server defaults what it decodes from the client, and objects it reads from storage are defaulted
when they are decoded too, so both sides of an UPDATE (and the old object of a DELETE) are seen defaulted.
This runs once per request, before any policy, never per policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.k8s.defaulting import defaulted_copy

SIDES = ("object", "oldObject")


def default_request(request: Mapping[str, Any]) -> tuple[Mapping[str, Any], dict[str, list[str]]]:
    """(request with defaulted objects, {"object": paths, "oldObject": paths}); the input is not changed."""
    paths: dict[str, list[str]] = {"object": [], "oldObject": []}
    result = request
    for side in SIDES:
        value = request.get(side)
        if value is None:  # nothing to default (a CREATE's oldObject, a DELETE's object)
            continue
        defaulted, side_paths = defaulted_copy(value)
        if side_paths:
            if result is request:
                result = {**request}
            result[side] = defaulted
            paths[side] = side_paths
    return result, paths
