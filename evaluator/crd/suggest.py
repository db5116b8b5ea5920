"""Which `maxItems` brings an over-budget rule under the API server's estimated-cost limit.

The estimate of a rule grows with the sizes the API server must assume for lists and maps without
`maxItems`/`maxProperties`. We bound every such list and map in the schema by the same N and search the
largest N for which the rule (times its cardinality) fits the per-rule budget. None: no N is enough (the
cost comes from unbounded strings, which need `maxLength`, or from the rule itself).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from evaluator.crd.definition import PER_EXPRESSION_LIMIT, estimated_costs

_LIMIT_SEARCH = 1 << 20


def _bounded(schema: Any, n: int, depth: int = 0) -> None:
    if not isinstance(schema, dict) or depth > 64:
        return
    if schema.get("type") == "array" and "maxItems" not in schema:
        schema["maxItems"] = n
    if (
        schema.get("type") == "object"
        and isinstance(schema.get("additionalProperties"), dict)
        and "maxProperties" not in schema
    ):
        schema["maxProperties"] = n
    for key in ("items", "additionalProperties"):
        _bounded(schema.get(key), n, depth + 1)
    for prop in (schema.get("properties") or {}).values() if isinstance(schema.get("properties"), dict) else ():
        _bounded(prop, n, depth + 1)


def _cost(schema: Mapping[str, Any], n: int, rule_path: str, root: str) -> int | None:
    trial = copy.deepcopy(dict(schema))
    _bounded(trial, n)
    for entry in estimated_costs(trial, root):
        if entry["path"] == rule_path:
            return entry["estimatedCost"]
    return None


def suggest_max_items(schema: Mapping[str, Any], rule_path: str, root: str = "openAPIV3Schema") -> int | None:
    """The largest maxItems/maxProperties (for every list and map without one) that keeps the rule at
    `rule_path` within budget, or None when even 0 would not."""
    low_cost = _cost(schema, 0, rule_path, root)
    if low_cost is None or low_cost > PER_EXPRESSION_LIMIT:
        return None
    low, high = 0, _LIMIT_SEARCH
    if (_cost(schema, high, rule_path, root) or 0) <= PER_EXPRESSION_LIMIT:
        return high
    while high - low > 1:
        middle = (low + high) // 2
        cost = _cost(schema, middle, rule_path, root)
        if cost is not None and cost <= PER_EXPRESSION_LIMIT:
            low = middle
        else:
            high = middle
    return low
