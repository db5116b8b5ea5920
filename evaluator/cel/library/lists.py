"""List functions: Kubernetes' lists library (pkg/cel/library/lists.go, with `includes` of version 1)
and cel-go's ext.Lists at version 3 (slice, flatten, sort, sortBy's helper, distinct, reverse, lists.range).

cel-go chooses among the typed overloads of `sum`/`min`/`max`/`isSorted` at run time by the list's first
element, so the implementations look at the elements, not at the overload that was picked; only an
empty list takes the declared element type's zero for `sum`.

`sortBy` is a macro: `xs.sortBy(e, key)` must compile to `@sortByAssociatedKeys(xs', xs'.map(e, key))`
with `xs` evaluated once (cel-go binds it to `@__sortBy_input__`); `sort_by_keys` is that helper.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError, CostLimitError, _Abort, no_such_overload
from evaluator.cel.library.gosort import go_sort_slice
from evaluator.cel.registry import function
from evaluator.cel.values import LIST_TYPES, Duration, Timestamp, UInt

__all__ = [
    "is_sorted",
    "list_sum",
    "list_min",
    "list_max",
    "index_of",
    "last_index_of",
    "includes",
    "slice_",
    "flatten",
    "sort",
    "sort_by_keys",
    "distinct",
    "reverse",
    "lists_range",
    "traversal_cost",
    "SORT_BY_MACRO_ERROR",
    "SORT_BY_HELPER",
]

COMPARABLE = ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes")
SUMMABLE = {"int": 0, "uint": UInt(0), "double": 0.0, "duration": Duration(0)}
SORT_BY_HELPER = "@sortByAssociatedKeys"
SORT_BY_MACRO_ERROR = "sortBy can only be applied to a list, identifier, comprehension, call or select expression"

_COMPARER_TYPES = (int, UInt, float, str, bytes, bool, Duration, Timestamp)
_LIST_CREATE_BASE_COST = 10
_CALL_COST = 1
_PER_CALL_LIMIT = 1_000_000


def _comparable(v: Any) -> bool:
    return type(v) in _COMPARER_TYPES or hasattr(type(v), "cel_compare")


def _compare(a: Any, b: Any) -> int | None:
    """cel-go's Compare: -1/0/1, or None where it yields an error value (NaN, mixed types)."""
    try:
        return ops.order(a, b)
    except CELEvalError:
        return None


# --- costs ---
def traversal_cost(v: Any) -> int:
    """Kubernetes' traversalCost: floor(len * 0.1) per string/bytes, summed over lists and maps, else 1."""
    t = type(v)
    if t is str:
        return int(len(v.encode("utf-8", "surrogatepass")) * 0.1)
    if t is bytes:
        return int(len(v) * 0.1)
    if t in LIST_TYPES:
        return sum(traversal_cost(x) for x in v)
    if t is dict or isinstance(v, Mapping):
        return sum(traversal_cost(k) + traversal_cost(x) for k, x in v.items())
    return 1


def _k8s_list_cost(args: tuple, result: Any) -> int:
    return traversal_cost(args[0])


def _allocating(size: int, factor: float = 1.0) -> int:
    return int(size * factor) + _CALL_COST + _LIST_CREATE_BASE_COST


def _output_size_cost(args: tuple, result: Any) -> int:
    return _allocating(len(result) if isinstance(result, (list, tuple)) else 0)


def _flatten_cost(args: tuple, result: Any) -> int:
    depth = float(args[1]) if len(args) == 2 else 1.0
    return _allocating(len(args[0]), depth)


def _self_compare_cost(items: Any) -> int:
    size = len(items)
    factor = 2.0
    if size == 0:
        return _allocating(0, factor)
    if type(items[0]) in (str, bytes):
        factor += 0.1
    return _allocating(size * size, factor)


def _sort_cost(args: tuple, result: Any) -> int:
    return _self_compare_cost(args[0])


def sort_by_cost(args: tuple, result: Any) -> int:
    return _self_compare_cost(args[1])


# --- Kubernetes lists library ---
def _declare_templated(template: str, types: Any, impl: Callable, cost: Any) -> None:
    for t in types:
        function(template.format(t=t), cost=cost)(impl)


def is_sorted(items: list) -> bool:
    prev = None
    for i, item in enumerate(items):
        if not _comparable(item):
            raise no_such_overload()
        if i and _compare(prev, item) == 1:
            return False
        prev = item
    return True


def _extreme(name: str, prefer: int) -> Callable[[list], Any]:
    def pick(items: list) -> Any:
        if not items:
            raise CELEvalError(f"{name} called on empty list")
        result = items[0]
        if not _comparable(result):
            raise no_such_overload()
        for item in items[1:]:
            if not _comparable(item):
                raise no_such_overload()
            if _compare(result, item) == prefer:
                result = item
        return result

    pick.__name__ = f"list_{name}"
    return pick


list_min = _extreme("min", 1)
list_max = _extreme("max", -1)


def _summer(zero: Any) -> Callable[[list], Any]:
    def list_sum(items: list) -> Any:
        if not items:
            return zero
        first = items[0]
        start = next((z for z in SUMMABLE.values() if type(z) is type(first)), None)
        if start is None:
            raise no_such_overload()
        acc = start
        for item in items:
            acc = ops.add(acc, item)
        return acc

    return list_sum


list_sum = _summer(0)

_declare_templated("list({t}).isSorted() -> bool", COMPARABLE, is_sorted, _k8s_list_cost)
_declare_templated("list({t}).min() -> {t}", COMPARABLE, list_min, _k8s_list_cost)
_declare_templated("list({t}).max() -> {t}", COMPARABLE, list_max, _k8s_list_cost)
for _name, _zero in SUMMABLE.items():
    function(f"list({_name}).sum() -> {_name}", cost=_k8s_list_cost)(_summer(_zero))


@function("list(A).indexOf(A) -> int", cost=_k8s_list_cost)
def index_of(items: list, item: Any) -> int:
    for i, x in enumerate(items):
        if ops.equals(x, item):
            return i
    return -1


@function("list(A).lastIndexOf(A) -> int", cost=_k8s_list_cost)
def last_index_of(items: list, item: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if ops.equals(items[i], item):
            return i
    return -1


@function("dyn.includes(dyn) -> bool", cost=_k8s_list_cost)
def includes(target: Any, item: Any) -> bool:
    """Kubernetes lists library version 1 (1.37): membership for lists, equality for anything else."""
    if type(target) in LIST_TYPES:
        return any(ops.equals(x, item) for x in target)
    return ops.equals(target, item)


# --- cel-go ext.Lists (version 3) ---
@function("list(T).slice(int, int) -> list(T)", cost=_output_size_cost)
def slice_(items: list, start: int, end: int) -> list:
    if start < 0 or end < 0:
        raise CELEvalError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CELEvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        raise CELEvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


@function("list(list(T)).flatten() -> list(T)", "list(dyn).flatten(int) -> list(dyn)", cost=_flatten_cost)
def flatten(items: list, depth: int = 1) -> list:
    if depth < 0:
        raise CELEvalError("level must be non-negative")
    out: list = []
    for x in items:
        if (type(x) in LIST_TYPES) and depth > 0:
            out.extend(flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def sort_by_keys(items: list, keys: list) -> list:
    """cel-go's @sortByAssociatedKeys: order `items` by the comparable `keys` computed for them."""
    if len(items) != len(keys):
        raise CELEvalError(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys "
            f"list, but got {len(items)} and {len(keys)} elements respectively"
        )
    if not items:
        return list(items)
    first = keys[0]
    if not _comparable(first):
        raise CELEvalError("list elements must be comparable")
    if len(keys) > 1 and any(type(k) is not type(first) for k in keys):
        raise CELEvalError("list elements must have the same type")

    order = list(range(len(items)))
    go_sort_slice(order, lambda i, j: _compare(keys[i], keys[j]) == -1)  # Go's unstable order for ties
    return [items[i] for i in order]


_declare_templated("list(T).@sortByAssociatedKeys(list({t})) -> list(T)", COMPARABLE, sort_by_keys, sort_by_cost)


def sort(items: list) -> list:
    return sort_by_keys(items, items)


_declare_templated("list({t}).sort() -> list({t})", COMPARABLE, sort, _sort_cost)


@function("list(T).distinct() -> list(T)", cost=_sort_cost)
def distinct(items: list) -> list:
    unique: list = []
    for x in items:
        if not any(ops.equals(x, seen) for seen in unique):
            unique.append(x)
    return unique


@function("list(T).reverse() -> list(T)", cost=_output_size_cost)
def reverse(items: list) -> list:
    return list(reversed(items))


@function("lists.range(int) -> list(int)", cost=_output_size_cost)
def lists_range(n: int) -> list[int]:
    if n > _PER_CALL_LIMIT:
        # Its cost (n + 11) is over the per-call limit whatever follows: stop before allocating it.
        raise _Abort(CostLimitError("operation cancelled: actual cost limit exceeded"))
    return list(range(max(n, 0)))


del _name, _zero
