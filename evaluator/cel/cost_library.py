"""Estimated cost of function calls: cel-go's built-in rules (checker/cost.go functionCost) and Kubernetes'
`library.CostEstimator.EstimateCallCost`. Returns the call's own cost (arguments are added by the caller)
and records result sizes where cel-go does; None means "one unit".
"""

from __future__ import annotations

import math
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


def estimate_call(e: Estimator, t: Tree, name: str, target: Tree | None, args: list[Tree]) -> tuple[int, int] | None:
    size = e.size_or_unknown
    if name == "check":
        return (350000, 350000)
    if name in _O1:
        return _ONE
    if name in ("fieldSelector", "labelSelector") and len(args) == 1:
        return factor(size(args[0]), TRAVERSAL)
    if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes") and target is not None:
        el_size, el_type = _element_size(e, target)
        if el_type is not None:
            el_cost = _ONE
            if el_type.name in ("string", "bytes"):
                el_cost = add(el_cost, factor(el_size, TRAVERSAL))
            return mul(size(target), el_cost)
        if name == "includes":
            return mul(size(target), _ONE)
        return factor(size(target), TRAVERSAL)
    if name in ("url", "jsonpatch.escapeKey") and len(args) == 1:
        sz = size(args[0])
        e.sizes[id(t)] = sz
        return factor(sz, TRAVERSAL)
    if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        sz = size(target)
        e.sizes[id(t)] = sz
        return factor(sz, TRAVERSAL)
    if name == "replace" and target is not None and len(args) >= 2:
        return _replace(e, t, target, args)
    if name == "split" and target is not None:
        sz = size(target)
        top = sz[1]
        if len(args) > 1:
            n = _literal_int(e, args[1])
            if n is not None:
                top = n % 2**64
        e.sizes[id(t)] = (0, top)
        return factor(sz, 2 * TRAVERSAL)
    if name == "join" and target is not None:
        list_size = size(target)
        el_size, el_type = _element_size(e, target)
        sz = mul(list_size, el_size) if el_type is not None else (0, 0)
        if args:
            sep = size(args[0])
            seps = (max(list_size[0] - 1, 0), max(list_size[1] - 1, 0))
            sz = add(sz, mul(sep, seps))
        e.sizes[id(t)] = sz
        return factor(sz, TRAVERSAL)
    if name in ("find", "findAll") and target is not None and args:
        sz = size(target)
        str_cost = factor(add(sz, (1, 1)), TRAVERSAL)
        regex_cost = factor(size(args[0]), REGEX_FACTOR)
        e.sizes[id(t)] = (0, sz[1])
        return mul(str_cost, regex_cost)
    if name in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
        return factor(size(args[0]), TRAVERSAL)
    if name == "ip" and args:
        if target is not None:
            return _ONE
        return factor(size(args[0]), TRAVERSAL)
    if name == "ip.isCanonical" and args:
        return factor(size(args[0]), 2 * TRAVERSAL)
    if name == "containsIP" and args:
        cost = factor((8, 32), TRAVERSAL)
        if e.type_of(args[0]).name == "string":
            cost = add(cost, factor(size(args[0]), TRAVERSAL))
        return cost
    if name == "containsCIDR" and args:
        cost = add(add(factor((8, 32), TRAVERSAL), factor((4, 16), TRAVERSAL)), _ONE)
        if e.type_of(args[0]).name == "string":
            cost = add(cost, factor(size(args[0]), TRAVERSAL))
        return cost
    if name == "validate" and args:
        return factor(factor(size(args[0]), TRAVERSAL), 128 * REGEX_FACTOR)
    # cel-go's own rules
    if name in ("startsWith", "endsWith") and len(args) == 1:
        return factor(size(args[0]), TRAVERSAL)
    if name == "matches":
        if target is not None and len(args) == 1:
            str_cost = factor(add(size(target), (1, 1)), TRAVERSAL)
            return mul(str_cost, factor(size(args[0]), REGEX_FACTOR))
        if target is None and len(args) == 2:
            str_cost = factor(add(size(args[0]), (1, 1)), TRAVERSAL)
            return mul(str_cost, factor(size(args[1]), REGEX_FACTOR))
    if name == "contains" and target is not None and len(args) == 1 and e.type_of(target).name == "string":
        return mul(factor(size(target), TRAVERSAL), factor(size(args[0]), TRAVERSAL))
    if name == "format" and target is not None:
        return factor(size(target), TRAVERSAL)
    if name == "bytes" and len(args) == 1 and e.type_of(args[0]).name == "string":
        sz = size(args[0])
        e.sizes[id(t)] = (sz[0], min(sz[1] * 4, U64))
        return factor(sz, TRAVERSAL)
    if name == "string" and len(args) == 1 and e.type_of(args[0]).name == "bytes":
        sz = size(args[0])
        e.sizes[id(t)] = (sz[0] // 4, sz[1])
        return factor(sz, TRAVERSAL)
    if name == "strings.quote" and len(args) == 1:
        sz = size(args[0])
        e.sizes[id(t)] = (sz[0] + 2, min(sz[1] * 2 + 2, U64))
        return factor(sz, TRAVERSAL)
    if name in ("sets.contains", "sets.equivalent", "sets.intersects") and len(args) == 2:
        return mul(size(args[0]), size(args[1]))
    return None


def _replace(e: Estimator, t: Tree, target: Tree, args: list[Tree]) -> tuple[int, int]:
    sz = e.size_or_unknown(target)
    to_replace = e.size_or_unknown(args[0])
    replace_with = e.size_or_unknown(args[1])
    count = [0, 0]
    retained = [0, 0]
    if to_replace[0] == 0:
        count[1] = sz[1] + 1 if sz[1] < U64 else sz[1]
        retained[1] = sz[1]
    elif replace_with[1] <= to_replace[0]:
        count[1] = 0
        retained[1] = sz[1]
    else:
        count[1] = math.ceil(sz[1] / to_replace[0])
    if to_replace[1] == 0:
        count[0] = sz[0] + 1 if sz[0] < U64 else sz[0]
        retained[0] = sz[0]
    elif to_replace[1] <= replace_with[0]:
        count[0] = 0
        retained[0] = sz[0]
    else:
        count[0] = math.ceil(sz[0] / to_replace[1])
    e.sizes[id(t)] = add(mul(tuple(count), replace_with), tuple(retained))
    return factor(sz, 2 * TRAVERSAL)


__all__ = ["estimate_call", "union"]
