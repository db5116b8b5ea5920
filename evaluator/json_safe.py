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


def needs_json_safe(value) -> bool:
    """Whether `json_safe` would change anything: a non-finite float or a tuple somewhere inside. About a third
    of the walk's cost (it builds nothing), so a result that needs nothing is used as it is: the live editor
    makes a fresh one on every keystroke, and hardly any holds such a value."""
    kind = type(value)
    if kind is dict:
        value = value.values()
    elif kind is float:
        return not math.isfinite(value)
    elif kind is not list:  # a tuple, or a subclass json_safe rebuilds as the plain type
        return isinstance(value, (float, dict, list, tuple))
    for item in value:
        if type(item) not in _LEAVES and needs_json_safe(item):
            return True
    return False
