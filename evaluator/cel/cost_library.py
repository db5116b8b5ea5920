"""Estimated cost of function calls: cel-go's built-in rules (checker/cost.go functionCost) and Kubernetes'
`library.CostEstimator.EstimateCallCost`. Returns the call's own cost (arguments are added by the caller)
and records result sizes where cel-go does; None means "one unit".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from lark import Tree

from evaluator.cel.cost_estimate import (
    REGEX_FACTOR,
    TRAVERSAL,
    U64,
    Estimator,
    add,
    factor,
    mul,
    union,
)

_ONE = (1, 1)
_O1 = {
    "serviceAccount",
    "path",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
    "allowed",
    "reason",
    "error",
    "errored",
    "masked",
    "prefixLength",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "format.named",
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "major",
    "minor",
    "patch",
    "getScheme",
    "getHostname",
    "getHost",
    "getPort",
    "getEscapedPath",
    "getQuery",
}


def _literal_int(e: Estimator, t: Tree) -> int | None:
    t = e.strip(t)
    if t.data == "literal" and t.children[0].type == "INT_LIT":
        try:
            return int(str(t.children[0]), 0)
        except ValueError:
            return None
    return None


def _element_size(e: Estimator, target: Tree) -> tuple[tuple[int, int] | None, Any]:
    """Kubernetes' listElementNode: the size of a list's items, known only through a schema path."""
    tt = e.type_of(target)
    if tt.name != "list" or not tt.params:
        return None, None
    path = e.path(target)
    if not path:
        return None, None
    size = e.size_of(path + ["@items"])
    return (size if size is not None else (0, U64)), tt.params[0]


Cost = tuple[int, int]
CallEstimator = Callable[[Estimator, Tree, str, "Tree | None", list[Tree]], "Cost | None"]


def estimate_call(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    estimator = _ESTIMATORS.get(name)
    return estimator(e, t, name, target, args) if estimator is not None else None


# --- the estimators, one per function (or family); each returns None when its overload does not apply --


def _constant(cost: Cost) -> CallEstimator:
    return lambda e, t, name, target, args: cost


def _scan_only_arg(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    """One pass over the single argument (selectors, startsWith/endsWith)."""
    return factor(e.size_or_unknown(args[0]), TRAVERSAL) if len(args) == 1 else None


def _scan_first_arg(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    """One pass over the first argument (the parsers: cidr(), quantity(), semver(), isIP()...)."""
    return factor(e.size_or_unknown(args[0]), TRAVERSAL) if args else None


def _list_scan(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    """isSorted/sum/max/min/indexOf/lastIndexOf/includes: each element compared once."""
    if target is None:
        return None
    el_size, el_type = _element_size(e, target)
    if el_type is not None:
        el_cost = _ONE
        if el_type.name in ("string", "bytes"):
            el_cost = add(el_cost, factor(el_size, TRAVERSAL))
        return mul(e.size_or_unknown(target), el_cost)
    if name == "includes":
        return mul(e.size_or_unknown(target), _ONE)
    return factor(e.size_or_unknown(target), TRAVERSAL)


def _same_size_of_arg(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    """url(s), jsonpatch.escapeKey(s): the result is as long as the argument."""
    if len(args) != 1:
        return None
    sz = e.size_or_unknown(args[0])
    e.sizes[id(t)] = sz
    return factor(sz, TRAVERSAL)


def _same_size_of_target(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    """lowerAscii/upperAscii/substring/trim: the result is at most as long as the string."""
    if target is None:
        return None
    sz = e.size_or_unknown(target)
    e.sizes[id(t)] = sz
    return factor(sz, TRAVERSAL)


def _replace_call(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    return _replace(e, t, target, args) if target is not None and len(args) >= 2 else None


def _split(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if target is None:
        return None
    sz = e.size_or_unknown(target)
    top = sz[1]
    if len(args) > 1:
        n = _literal_int(e, args[1])
        if n is not None:
            top = n % 2**64
    e.sizes[id(t)] = (0, top)
    return factor(sz, 2 * TRAVERSAL)


def _join(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if target is None:
        return None
    list_size = e.size_or_unknown(target)
    el_size, el_type = _element_size(e, target)
    sz = mul(list_size, el_size) if el_type is not None else (0, 0)
    if args:
        sep = e.size_or_unknown(args[0])
        seps = (max(list_size[0] - 1, 0), max(list_size[1] - 1, 0))
        sz = add(sz, mul(sep, seps))
    e.sizes[id(t)] = sz
    return factor(sz, TRAVERSAL)


def _find(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if target is None or not args:
        return None
    cost = _regex_cost(e, target, args[0])
    e.sizes[id(t)] = (0, e.size_or_unknown(target)[1])
    return cost


def _ip(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if not args:
        return None
    return _ONE if target is not None else factor(e.size_or_unknown(args[0]), TRAVERSAL)


def _ip_is_canonical(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    return factor(e.size_or_unknown(args[0]), 2 * TRAVERSAL) if args else None


def _contains_address(base: Cost) -> CallEstimator:
    """containsIP/containsCIDR: a fixed comparison, plus parsing the argument when it is a string."""

    def estimate(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
        if not args:
            return None
        if e.type_of(args[0]).name == "string":
            return add(base, factor(e.size_or_unknown(args[0]), TRAVERSAL))
        return base

    return estimate


def _validate(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    return factor(factor(e.size_or_unknown(args[0]), TRAVERSAL), 128 * REGEX_FACTOR) if args else None


def _regex_cost(e: Estimator, text: Tree, pattern: Tree) -> Cost:
    str_cost = factor(add(e.size_or_unknown(text), (1, 1)), TRAVERSAL)
    return mul(str_cost, factor(e.size_or_unknown(pattern), REGEX_FACTOR))


def _matches(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if target is not None and len(args) == 1:
        return _regex_cost(e, target, args[0])
    if target is None and len(args) == 2:
        return _regex_cost(e, args[0], args[1])
    return None


def _contains(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    if target is None or len(args) != 1 or e.type_of(target).name != "string":
        return None
    return mul(factor(e.size_or_unknown(target), TRAVERSAL), factor(e.size_or_unknown(args[0]), TRAVERSAL))


def _format(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    return factor(e.size_or_unknown(target), TRAVERSAL) if target is not None else None


def _conversion(source: str, result_size: Callable[[Cost], Cost]) -> CallEstimator:
    """bytes(string), string(bytes), strings.quote(s): one pass, the result's size derived from the argument's."""

    def estimate(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
        if len(args) != 1 or (source and e.type_of(args[0]).name != source):
            return None
        sz = e.size_or_unknown(args[0])
        e.sizes[id(t)] = result_size(sz)
        return factor(sz, TRAVERSAL)

    return estimate


def _sets(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> Cost | None:
    return mul(e.size_or_unknown(args[0]), e.size_or_unknown(args[1])) if len(args) == 2 else None


_ESTIMATORS: dict[str, CallEstimator] = {
    # Kubernetes' library.CostEstimator
    "check": _constant((350000, 350000)),
    **dict.fromkeys(_O1, _constant(_ONE)),
    **dict.fromkeys(("fieldSelector", "labelSelector"), _scan_only_arg),
    **dict.fromkeys(("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"), _list_scan),
    **dict.fromkeys(("url", "jsonpatch.escapeKey"), _same_size_of_arg),
    **dict.fromkeys(("lowerAscii", "upperAscii", "substring", "trim"), _same_size_of_target),
    "replace": _replace_call,
    "split": _split,
    "join": _join,
    **dict.fromkeys(("find", "findAll"), _find),
    **dict.fromkeys(("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver"), _scan_first_arg),
    "ip": _ip,
    "ip.isCanonical": _ip_is_canonical,
    "containsIP": _contains_address(factor((8, 32), TRAVERSAL)),
    "containsCIDR": _contains_address(add(add(factor((8, 32), TRAVERSAL), factor((4, 16), TRAVERSAL)), _ONE)),
    "validate": _validate,
    # cel-go's own rules
    **dict.fromkeys(("startsWith", "endsWith"), _scan_only_arg),
    "matches": _matches,
    "contains": _contains,
    "format": _format,
    "bytes": _conversion("string", lambda sz: (sz[0], min(sz[1] * 4, U64))),
    "string": _conversion("bytes", lambda sz: (sz[0] // 4, sz[1])),
    "strings.quote": _conversion("", lambda sz: (sz[0] + 2, min(sz[1] * 2 + 2, U64))),
    **dict.fromkeys(("sets.contains", "sets.equivalent", "sets.intersects"), _sets),
}


def _replace_bound(length: int, needle: int, no_growth: bool) -> tuple[int, int]:
    """One bound of replace()'s (replacements, characters retained) for a string of `length`."""
    if needle == 0:
        return (length + 1 if length < U64 else length), length
    if no_growth:
        return 0, length
    return math.ceil(length / needle), 0


def _replace(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> Cost:
    sz = e.size_or_unknown(target)
    to_replace = e.size_or_unknown(args[0])
    replace_with = e.size_or_unknown(args[1])
    low_count, low_retained = _replace_bound(sz[0], to_replace[1], to_replace[1] <= replace_with[0])
    high_count, high_retained = _replace_bound(sz[1], to_replace[0], replace_with[1] <= to_replace[0])
    e.sizes[id(t)] = add(mul((low_count, high_count), replace_with), (low_retained, high_retained))
    return factor(sz, 2 * TRAVERSAL)


__all__ = ["estimate_call", "union"]
