"""Placeholder wiring for the static cost estimate of CRD rules (filled by evaluator/cel/cost_estimate.py)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable


def estimate_for_schema(schema: Mapping[str, Any], is_resource_root: bool) -> Callable | None:
    return None
