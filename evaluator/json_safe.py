"""Make a result strictly JSON-serialisable before it leaves the engine (API, MCP server, CLI JSON)."""

from __future__ import annotations

import math

# proto3's JSON mapping spells non-finite doubles this way; JSON itself has no such numbers.
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
# Values returned as they are, tested by exact type first: a result is mostly text, and skipping the call for
# each of its strings halves the walk (the live editor runs it on every result).
_LEAVES = frozenset({str, int, bool, type(None)})


def json_safe(value):
    """Replace non-finite floats (which strict JSON cannot carry) by their proto3 JSON strings."""
    if type(value) in _LEAVES:
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return _NON_FINITE.get(value, value)
    if isinstance(value, dict):
        return {key: item if type(item) in _LEAVES else json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [item if type(item) in _LEAVES else json_safe(item) for item in value]
    return value
