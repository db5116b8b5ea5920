"""List and map literals: element types (Kubernetes' homogeneous-literal rule), optional entries, folding."""

from __future__ import annotations

from collections.abc import Mapping

from lark import Tree

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError
from evaluator.cel.nodes import Fn, Node, const_node, first_token
from evaluator.cel.runtime import Ctx
from evaluator.cel.types import DYN, FREE, Type, join, list_of, map_of
from evaluator.cel.values import MixedKeyMap, Optional, map_delete, map_put


def flatten(t: Tree | None, rule: str) -> list[Tree]:
    items: list[Tree] = []
    while t is not None and t.data == rule:
        kids = [c for c in t.children if isinstance(c, Tree)]
        if len(kids) == 2 and kids[0].data == rule:
            items.append(kids[1])
            t = kids[0]
        else:
            items.append(kids[0])
            t = None
    items.reverse()
    return items


def compile_list(c, t: Tree) -> Node:
    elems_tree = next((c for c in t.children if isinstance(c, Tree)), None)
    parts: list[tuple[Node, bool]] = []
    for item in flatten(elems_tree, "listelems"):
        item = _optional_form(item, "listelem")
        if item.data == "listelem_opt":
            parts.append((c.compile(item.children[1]), True))
        else:
            parts.append((c.compile(item), False))
    elem_type = c.homogeneous(
        [
            (n, n.type.params[0] if opt and n.type.params else n.type, item)
            for (n, opt), item in zip(parts, flatten(elems_tree, "listelems"))
        ]
    )
    fns = [(n.fn, opt) for n, opt in parts]
    if not any(opt for _, opt in fns):
        plain = [f for f, _ in fns]

        def make_list(ctx: Ctx) -> list:
            ctx.cost += 10
            return [f(ctx) for f in plain]
    else:

        def make_list(ctx: Ctx) -> list:
            ctx.cost += 10
            out = []
            for f, opt in fns:
                v = f(ctx)
                if opt:
                    if type(v) is not Optional:
                        raise CELEvalError("no such overload")
                    if v.has_value:
                        out.append(v.value)
                else:
                    out.append(v)
            return out

    node = Node(make_list, list_of(elem_type))
    return c.fold(node, [n for n, _ in parts], free=True) if parts else const_node([], list_of(elem_type))


def homogeneous(c, items: list[tuple[Node, Type, Tree]]) -> Type:
    """The element type of an aggregate literal; mixed types are an error in Kubernetes, else dyn."""
    current: Type | None = None
    for node, t, tree in items:
        if current is None:
            current = t
            continue
        joined = join(current, t)
        if joined is None:
            if c.env.check and c.env.homogeneous_literals and c.exempt_depth == 0:
                shown = f"expected type '{current}' but found '{t}'".replace("null_type", "null")
                raise c.fail(shown, first_token(tree))
            return DYN
        current = joined
    return current or FREE  # an empty literal's element: a type variable later uses bind


def _optional_form(item: Tree, rule: str) -> Tree:
    """A list element or map entry as its `?`-marked form when it is one (`[?x]`, `{?k: v}`)."""
    first = item.children[0]
    if item.data == rule and isinstance(first, Tree) and first.data == rule + "_opt":
        return first
    return item


_MAP_KEY_TYPES = ("int", "uint", "string", "bool", "dyn")


def compile_map(c, t: Tree) -> Node:
    inits = next((c for c in t.children if isinstance(c, Tree)), None)
    entries: list[tuple[Node, Node, bool, list[Tree]]] = []
    for item in flatten(inits, "mapinits"):
        item = _optional_form(item, "mapinit")
        kids = [c for c in item.children if isinstance(c, Tree)]
        entries.append((c.compile(kids[0]), c.compile(kids[1]), item.data == "mapinit_opt", kids))
    key_type = c.homogeneous([(k, k.type, trees[0]) for k, _, _, trees in entries])
    val_type = c.homogeneous(
        [(v, v.type.params[0] if opt and v.type.params else v.type, trees[1]) for _, v, opt, trees in entries]
    )
    if c.env.check:
        for k, _, _, trees in entries:
            if k.type.name not in _MAP_KEY_TYPES and not k.type.is_param:
                raise c.fail(f"unsupported map key type: {k.type}", first_token(trees[0]))
    if not entries:
        return const_node({}, map_of(key_type, val_type))
    node = Node(_map_builder([(k.fn, v.fn, opt) for k, v, opt, _ in entries]), map_of(key_type, val_type))
    return c.fold(node, [n for k, v, _, _ in entries for n in (k, v)], free=True)


def _map_builder(fns: list[tuple[Fn, Fn, bool]]) -> Fn:
    def make_map(ctx: Ctx) -> Mapping:
        ctx.cost += 30
        out: dict | MixedKeyMap = {}
        for kf, vf, opt in fns:
            key = kf(ctx)
            ops.check_map_key(key)
            value = vf(ctx)
            if opt:
                if type(value) is not Optional:
                    raise CELEvalError("no such overload")
                if not value.has_value:
                    map_delete(out, key)  # cel-go's evalMap deletes the key an earlier entry set
                    continue
                value = value.value
            out = map_put(out, key, value)  # as cel-go: a repeated key keeps its last value, no error
        return out

    return make_map
