"""cel-go's ext.Sets: list membership tests with CEL's heterogeneous equality (`sets.contains([1], [1.0])`).

Cost is cel-go's tracker: 1 + floor(|a| * |b| * factor), factor 2 for `equivalent` (two containment passes).
"""

from __future__ import annotations

from typing import Any, Callable

from evaluator.cel.operators import equals
from evaluator.cel.registry import function

__all__ = ["sets_contains", "sets_equivalent", "sets_intersects"]


def _cost(factor: float) -> Callable[[tuple, Any], int]:
    def cost(args: tuple, result: Any) -> int:
        return 1 + int(len(args[0]) * len(args[1]) * factor)

    return cost


def _member(items: list, value: Any) -> bool:
    return any(equals(x, value) for x in items)


@function("sets.contains(list(T), list(T)) -> bool", cost=_cost(1))
def sets_contains(items: list, sub: list) -> bool:
    """Every element of `sub` is in `items`."""
    return all(_member(items, x) for x in sub)


@function("sets.equivalent(list(T), list(T)) -> bool", cost=_cost(2))
def sets_equivalent(a: list, b: list) -> bool:
    """Each list contains the other (duplicates and order do not matter)."""
    return sets_contains(a, b) and sets_contains(b, a)


@function("sets.intersects(list(T), list(T)) -> bool", cost=_cost(1))
def sets_intersects(a: list, b: list) -> bool:
    """At least one element in common."""
    return any(_member(b, x) for x in a)
