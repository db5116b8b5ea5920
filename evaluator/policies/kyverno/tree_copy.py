"""`deep_copy`: `copy.deepcopy` for the JSON-like trees the Kyverno engine copies all the time.

The engine copies the request into every policy's context and the context at every rule (checkpoints), so
the copy is much of a batch run's time. Maps, lists and scalars are copied here without `copy.deepcopy`'s
per-value dispatch; anything else goes to `copy.deepcopy` with the same memo, so shared and recursive parts
(YAML anchors) come out shared and recursive as `copy.deepcopy` makes them.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

T = TypeVar("T")

_ATOMIC = frozenset((str, int, float, bool, type(None)))


def deep_copy(value: T) -> T:
    """A copy of `value` equal to `copy.deepcopy(value)`."""
    return _copy(value, {})


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is dict:
        done = memo.get(id(value))
        if done is not None:
            return done
        out: dict = {}
        memo[id(value)] = out
        for key, item in value.items():
            if type(key) is not str:
                key = copy.deepcopy(key, memo)
            out[key] = item if type(item) in _ATOMIC else _copy(item, memo)
        return out
    if kind is list:
        done = memo.get(id(value))
        if done is not None:
            return done
        items: list = []
        memo[id(value)] = items
        append = items.append
        for item in value:
            append(item if type(item) in _ATOMIC else _copy(item, memo))
        return items
    return copy.deepcopy(value, memo)
