"""CEL macros: has(), the comprehensions (one- and two-variable), optMap/optFlatMap and sortBy.

Each macro compiles its body with the iteration variables bound to slots of the evaluation context,
so an iteration costs a slot write, not a new activation. Costs follow cel-go's expansion of each macro
into a comprehension (loop condition, step and accumulator reads per iteration).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Callable

from lark import Token, Tree

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError
from evaluator.cel.grammar import unwrap
from evaluator.cel.nodes import Fn, Node, first_token
from evaluator.cel.runtime import Ctx
from evaluator.cel.tojson import key_text
from evaluator.cel.types import BOOL, DYN, INT, Type, list_of, map_of, optional_of
from evaluator.cel.values import LIST_TYPES, OPTIONAL_NONE, MixedKeyMap, Optional, map_insert


ACCUMULATOR_NAME = "__result__"  # cel-go's parser.AccumulatorName: an iteration variable may not shadow it


def _arg_location(t: Tree) -> Any:
    """Where cel-go locates an argument expression: a selection at its dot, a call at its parenthesis,
    anything else at its first token."""
    t = unwrap(t)
    if t.data in ("member_dot", "member_dot_opt"):
        return t.children[1]
    if t.data in ("member_dot_arg", "ident_arg", "dot_ident_arg"):
        paren = next((k for k in t.children if isinstance(k, Token) and k.type == "LPAREN"), None)
        if paren is not None:
            return paren
    return first_token(t)


def _var_name(c, t: Tree, at, not_simple: str = "argument must be a simple name") -> str:
    """The iteration variable of a macro, refused with cel-go's parser messages."""
    stripped = unwrap(t)
    if stripped.data != "ident":
        raise c.fail(not_simple, _arg_location(t))
    name = str(stripped.children[0])
    if name == ACCUMULATOR_NAME:
        raise c.fail("iteration variable overwrites accumulator variable", _arg_location(t))
    return name


def _simple_name(c, arg: Tree, what: str) -> str:
    """A macro's variable that need only be written as a name (the extension macros' check)."""
    stripped = unwrap(arg)
    if stripped.data != "ident":
        raise c.fail(f"{what} must be a simple identifier", _arg_location(arg))
    return str(stripped.children[0])


def _iteration_vars(c, first: Tree, second: Tree) -> list[str]:
    """The two variables of ext.TwoVarComprehensions (extractIterVars): names, then duplicates, then the
    accumulator, each refused at the argument cel-go names."""
    names = []
    for t in (first, second):
        stripped = unwrap(t)
        if stripped.data != "ident":
            raise c.fail("argument must be a simple name", _arg_location(t))
        names.append(str(stripped.children[0]))
    if names[0] == names[1]:
        raise c.fail(f"duplicate variable name: {names[0]}", _arg_location(second))
    for name, t in zip(names, (first, second)):
        if name == ACCUMULATOR_NAME:
            raise c.fail("iteration variable overwrites accumulator variable", _arg_location(t))
    return names


def _range(c, target_tree: Tree) -> Node:
    """The compiled range of a comprehension; cel-go's checker refuses one that is statically neither list, map
    nor dynamic (checkComprehension's notAComprehensionRange), at the range expression."""
    target = c.compile(target_tree)
    t = target.type
    if getattr(c, "reports_ranges_itself", False):  # the type checker records it and goes on checking
        return target
    if (
        c.env.check
        and t.name not in ("list", "map", "dyn", "any", "error")
        and not (len(t.name) == 1 and t.name.isupper())
    ):
        raise c.fail(
            f"expression of type '{t}' cannot be range of a comprehension (must be list, map, or dynamic)",
            _arg_location(target_tree),
        )
    return target


def _iterate(value: Any, two: bool):
    """Pairs (first, second) to bind: list → (elem) or (index, elem); map → (key) or (key, value)."""
    t = type(value)
    if t in LIST_TYPES:
        return enumerate(value) if two else value
    if t is dict or isinstance(value, Mapping):
        return value.items() if two else list(value.keys())
    raise CELEvalError(
        f"expression of type '{_tn(value)}' cannot be range of a comprehension (must be list, map, or dynamic)"
    )


def _binding_seconds(ctx: Ctx, rng: Any, slot: int) -> tuple[Iterator[Any], int]:
    """A two-variable range as its first variables, each binding its second one into `slot` as it comes, so
    the one-variable loop serves both; and the number of items."""
    pairs = _iterate(rng, True)
    slots = ctx.slots

    def firsts() -> Iterator[Any]:
        for first, second in pairs:
            slots[slot] = second
            yield first

    return firsts(), len(rng)


def _tn(v: Any) -> str:
    from evaluator.cel.values import type_name

    return type_name(v)


def _elem_types(range_type: Type, two: bool) -> tuple[Type, Type]:
    if range_type.name == "list" and range_type.params:
        return (INT, range_type.params[0]) if two else (range_type.params[0], DYN)
    if range_type.name == "map" and len(range_type.params) == 2:
        return (range_type.params[0], range_type.params[1]) if two else (range_type.params[0], DYN)
    return DYN, DYN


class _Bind:
    """Compile-time scope for iteration variables."""

    def __init__(self, c, names: list[str], types: tuple[Type, Type], at):
        self.c, self.names, self.types, self.at = c, names, types, at

    def __enter__(self) -> list[int]:
        scope = {}
        slots = []
        for name, t in zip(self.names, self.types):
            if name in scope:
                raise self.c.fail(f"duplicate variable name: {name}", self.at)
            slot = self.c.new_slot()
            scope[name] = (slot, t)
            slots.append(slot)
        self.c.scopes.append(scope)
        return slots

    def __exit__(self, *exc) -> None:
        self.c.scopes.pop()


def _tick(ctx: Ctx, units: int) -> None:
    """Charge an iteration; check the cost limit each time and the deadline every 100 iterations, as
    Kubernetes' InterruptCheckFrequency does."""
    ctx.cost += units
    ctx.ticks += 1
    if ctx.cost > ctx.limit or (ctx.deadline is not None and ctx.ticks % 100 == 0):
        ctx.check()


def _passes(ctx: Ctx, pf: Fn) -> bool:
    """The filter of a three-argument map or a transform: a bool, or the step fails."""
    keep = pf(ctx)
    if type(keep) is not bool:
        raise CELEvalError("no such overload")
    return keep


# --- quantifiers ---------------------------------------------------------------------------------
def _quantifier(kind: str) -> Callable:
    def compile_quantifier(c, target_tree: Tree, args: list[Tree], at) -> Any:
        two = len(args) == 3
        names = _iteration_vars(c, args[0], args[1]) if two else [_var_name(c, args[0], at)]
        target = _range(c, target_tree)
        with _Bind(c, names, _elem_types(target.type, two), at) as slots:
            body = c.compile(args[-1])
        c.require(body, BOOL, kind, at, [body])
        tf, bf = target.fn, body.fn
        s0 = slots[0]
        s1 = slots[1] if two else None

        def bind(ctx: Ctx, item: Any) -> None:
            if two:
                ctx.slots[s0], ctx.slots[s1] = item
            else:
                ctx.slots[s0] = item

        if kind == "all" or kind == "exists":
            decisive = kind == "exists"
            # cel-go's loop condition: @not_strictly_false(__result__) for all, (!__result__) for exists.
            cond_cost = 3 if decisive else 2

            step = cond_cost + 1

            def quantify(ctx: Ctx) -> Any:
                """All or exists, with binding and `_tick` inlined (the commonest macro)."""
                rng = tf(ctx)
                t = type(rng)
                if two:
                    items, count = _binding_seconds(ctx, rng, s1)
                else:
                    if t is list or t in LIST_TYPES:
                        items = rng if t is list else list(rng)
                    else:
                        items = list(_iterate(rng, False))
                    count = len(items)
                slots = ctx.slots
                error = None
                last = count - 1
                for i, item in enumerate(items):
                    slots[s0] = item
                    ctx.cost += step  # the loop condition, then the step's read of __result__
                    ctx.ticks += 1
                    if ctx.cost > ctx.limit or (ctx.deadline is not None and ctx.ticks % 100 == 0):
                        ctx.check()
                    try:
                        v = bf(ctx)
                    except CELEvalError as e:
                        error = error or e
                        continue
                    if v is decisive:
                        ctx.cost += (cond_cost if i < last else 0) + 1
                        return decisive
                    if type(v) is not bool:
                        error = error or CELEvalError("no such overload")
                ctx.cost += 1
                if error is not None:
                    raise error
                return not decisive

            return Node(quantify, BOOL)

        def exists_one(ctx: Ctx) -> Any:
            rng = _iterate(tf(ctx), two)
            count = 0
            for item in rng:
                bind(ctx, item)
                _tick(ctx, 0)
                v = bf(ctx)
                if v is True:
                    count += 1
                    ctx.cost += 2
                elif v is not False:
                    raise CELEvalError("no such overload")
            ctx.cost += 2
            return count == 1

        return Node(exists_one, BOOL)

    return compile_quantifier


# --- map / filter / transforms ---------------------------------------------------------------------
def _compile_map(c, target_tree: Tree, args: list[Tree], at) -> Any:
    name = _var_name(c, args[0], at, "argument is not an identifier")
    target = _range(c, target_tree)
    with _Bind(c, [name], _elem_types(target.type, False), at) as (slot,):
        pred = c.compile(args[1]) if len(args) == 3 else None
        body = c.compile(args[-1])
    tf, bf = target.fn, body.fn
    pf = pred.fn if pred is not None else None

    def map_(ctx: Ctx) -> list:
        rng = _iterate(tf(ctx), False)
        out = []
        for item in rng:
            ctx.slots[slot] = item
            _tick(ctx, 0)
            if pf is not None and not _passes(ctx, pf):
                continue
            out.append(bf(ctx))
            ctx.cost += 12
        ctx.cost += 1
        return out

    return Node(map_, list_of(body.type))


def _compile_filter(c, target_tree: Tree, args: list[Tree], at) -> Any:
    name = _var_name(c, args[0], at, "argument is not an identifier")
    target = _range(c, target_tree)
    elem_type = _elem_types(target.type, False)
    with _Bind(c, [name], elem_type, at) as (slot,):
        pred = c.compile(args[1])
    c.require(pred, BOOL, "filter", at, [pred])
    tf, pf = target.fn, pred.fn

    def filter_(ctx: Ctx) -> list:
        rng = _iterate(tf(ctx), False)
        out = []
        for item in rng:
            ctx.slots[slot] = item
            _tick(ctx, 0)
            keep = pf(ctx)
            if keep is True:
                out.append(item)
                ctx.cost += 13
            elif keep is not False:
                raise CELEvalError("no such overload")
        ctx.cost += 1
        return out

    return Node(filter_, list_of(elem_type[0]))


# cel-go's step of each transform: `__result__ + [e]` (12), `@mapInsert(__result__, k, e)` (3),
# `@mapInsert(__result__, e)` (2).
_TRANSFORM_STEP_COST = {"transformList": 12, "transformMap": 3, "transformMapEntry": 2}


def _compile_transform(kind: str) -> Callable:
    def compile_transform(c, target_tree: Tree, args: list[Tree], at) -> Any:
        names = _iteration_vars(c, args[0], args[1])
        target = _range(c, target_tree)
        with _Bind(c, names, _elem_types(target.type, True), at) as (s0, s1):
            pred = c.compile(args[2]) if len(args) == 4 else None
            body = c.compile(args[-1])
        tf, bf = target.fn, body.fn
        pf = pred.fn if pred is not None else None
        if pred is not None:
            # cel-go's step with a filter is `filter ? <step> : __result__`: the filter must be a bool
            result = _transform_type(kind, target, body)
            c.require(pred, BOOL, "_?_:_", at, [pred, Node(tf, result), Node(tf, result)])
        if kind == "transformMapEntry" and c.env.check and not body.type.is_dyn and body.type.name != "map":
            # cel-go's step is `@mapInsert(__result__, e)`, declared for (map(K, V), map(K, V)) only.
            shown = f"(map(dyn, dyn), {body.type})".replace("null_type", "null")
            raise c.fail(f"found no matching overload for '@mapInsert' applied to '{shown}'", at)

        def transform(ctx: Ctx) -> Any:
            rng = _iterate(tf(ctx), True)
            out_list: list = []
            out_map: dict | MixedKeyMap = {}
            for k, v in rng:
                ctx.slots[s0], ctx.slots[s1] = k, v
                _tick(ctx, 0)
                if pf is not None and not _passes(ctx, pf):
                    continue
                result = bf(ctx)
                ctx.cost += _TRANSFORM_STEP_COST[kind]
                if kind == "transformList":
                    out_list.append(result)
                elif kind == "transformMap":
                    out_map = map_insert(out_map, k, result)
                else:
                    if not isinstance(result, Mapping):
                        raise CELEvalError("no such overload")
                    for rk, rv in result.items():
                        if ops.map_lookup(out_map, rk)[0]:
                            raise CELEvalError(f"insert failed: key {key_text(rk)} already exists")
                        out_map = map_insert(out_map, rk, rv)
            ctx.cost += 1  # the result read of __result__
            return out_list if kind == "transformList" else out_map

        return Node(transform, _transform_type(kind, target, body))

    return compile_transform


def _transform_type(kind: str, target: Node, body: Node) -> Type:
    if kind == "transformList":
        return list_of(body.type)
    if kind == "transformMap":
        return map_of(_elem_types(target.type, True)[0], body.type)
    return body.type if body.type.name == "map" else map_of(DYN, DYN)


# --- optionals and sorting ---------------------------------------------------------------------------
def _compile_opt_map(flat: bool) -> Callable:
    def compile_opt(c, target_tree: Tree, args: list[Tree], at) -> Any:
        # cel-go's optMap/optFlatMap check only the name's form
        name = _simple_name(c, args[0], f"{'optFlatMap' if flat else 'optMap'}() variable name")
        target = c.compile(target_tree)
        inner = target.type.params[0] if target.type.name == "optional_type" and target.type.params else DYN
        with _Bind(c, [name], (inner, DYN), at) as (slot,):
            body = c.compile(args[1])
        tf, bf = target.fn, body.fn

        # cel-go expands `o.optMap(v, e)` to `o.hasValue() ? optional.of(<fold: v = o.value(), result e>)
        # : optional.none()` (optFlatMap without optional.of), so its runtime cost is that expansion's: the
        # target twice when present (its copy is re-evaluated), hasValue(), value(), optional.of/none(); the
        # fold's empty range is a constant and costs nothing.
        def opt_map(ctx: Ctx) -> Any:
            before = ctx.cost
            try:
                opt = tf(ctx)
            finally:
                target_cost = ctx.cost - before
                ctx.cost += 1  # hasValue()
            if type(opt) is not Optional:
                raise CELEvalError("no such overload")
            if not opt.has_value:
                ctx.cost += 1  # optional.none()
                return OPTIONAL_NONE
            ctx.cost += target_cost + 1  # the target's copy, then value()
            if ctx.cost > ctx.limit:
                ctx.check()
            ctx.slots[slot] = opt.value
            result = bf(ctx)
            if flat:
                if type(result) is not Optional:
                    raise CELEvalError("no such overload")
                return result
            ctx.cost += 1  # optional.of()
            return Optional(result)

        return Node(opt_map, body.type if flat else optional_of(body.type))

    return compile_opt


def _compile_sort_by(c, target_tree: Tree, args: list[Tree], at) -> Any:
    """cel-go expands `l.sortBy(x, key)` to `l.@sortByAssociatedKeys(l.map(x, key))`; so do we, cost included."""
    from evaluator.cel.library import lists

    name = _simple_name(c, args[0], "sortBy(var, ...) variable name")  # ext.Lists' sortByMacro: only the form
    target = _range(c, target_tree)
    elem = _elem_types(target.type, False)
    with _Bind(c, [name], elem, at) as (slot,):
        key = c.compile(args[1])
    tf, kf = target.fn, key.fn

    def sort_by(ctx: Ctx) -> list:
        items = tf(ctx)
        if type(items) not in LIST_TYPES:
            raise CELEvalError("no such overload")
        keys = []
        for item in items:
            ctx.slots[slot] = item
            _tick(ctx, 0)
            keys.append(kf(ctx))
            ctx.cost += 12
        result = lists.sort_by_keys(list(items), keys)
        # The expansion reads the bound `@__sortBy_input__` twice (the receiver of @sortByAssociatedKeys and
        # the map's range: one SelectAndIdentCost each), then the map's result (1), then the call.
        ctx.cost += 3 + lists.sort_by_cost((items, keys), result)
        return result

    return Node(sort_by, target.type if target.type.name == "list" else list_of(DYN))


_MEMBER = {
    ("all", 2): _quantifier("all"),
    ("all", 3): _quantifier("all"),
    ("exists", 2): _quantifier("exists"),
    ("exists", 3): _quantifier("exists"),
    ("exists_one", 2): _quantifier("exists_one"),
    ("exists_one", 3): _quantifier("exists_one"),
    ("existsOne", 2): _quantifier("exists_one"),
    ("existsOne", 3): _quantifier("exists_one"),
    ("map", 2): _compile_map,
    ("map", 3): _compile_map,
    ("filter", 2): _compile_filter,
    ("transformList", 3): _compile_transform("transformList"),
    ("transformList", 4): _compile_transform("transformList"),
    ("transformMap", 3): _compile_transform("transformMap"),
    ("transformMap", 4): _compile_transform("transformMap"),
    ("transformMapEntry", 3): _compile_transform("transformMapEntry"),
    ("transformMapEntry", 4): _compile_transform("transformMapEntry"),
    ("optMap", 2): _compile_opt_map(False),
    ("optFlatMap", 2): _compile_opt_map(True),
    ("sortBy", 2): _compile_sort_by,
}


# The member macros by name, read by every walker that must know which calls bind variables
# (crd.compilation's reference finder) or iterate a range (the checker's range check).
MEMBER_MACROS = frozenset(name for name, _ in _MEMBER)
# optMap/optFlatMap bind a variable but range over an optional, not a comprehension's list or map.
RANGE_MACROS = MEMBER_MACROS - {"optMap", "optFlatMap"}


def member_macro(name: str, nargs: int):
    return _MEMBER.get((name, nargs))


# --- has() -------------------------------------------------------------------------------------------
def _compile_has(c, args: list[Tree], at) -> Any:
    arg = unwrap(args[0])
    if arg.data != "member_dot":
        raise c.fail("invalid argument to has() macro", at)
    target = c.compile(arg.children[0])
    field_token = arg.children[2]
    field = str(field_token)
    if field_token.type == "QUOTED_IDENT":
        field, alt = field[1:-1], None
    else:
        from evaluator.cel.escaping import unescape_field

        alt = unescape_field(field)
    c.select_type(target.type, field, at, optional=False)  # has(x.f) checks x.f as a selection, at `(`
    tf = target.fn

    def has(ctx: Ctx) -> bool:
        obj = tf(ctx)  # Kubernetes sets PresenceTestHasCost(false): the test itself is free
        if type(obj) is dict or isinstance(obj, Mapping):
            return field in obj or (alt is not None and alt in obj)
        if type(obj) is Optional:
            if not obj.has_value:
                return False
            inner = obj.value
            if isinstance(inner, Mapping):
                return field in inner or (alt is not None and alt in inner)
        presence = getattr(obj, "cel_has", None)
        if presence is not None:
            return presence(field)
        if type(obj) in LIST_TYPES:  # cel-go's refQualify: a list wants a number
            raise CELEvalError("unsupported index type 'string' in list")
        return False  # null or a scalar: the field is not present (refQualify with presenceTest)

    return Node(has, BOOL)


def _compile_bind(c, args: list[Tree], at) -> Any:
    """cel-go's ext.Bindings: `cel.bind(name, init, body)` evaluates `init` once and `body` with `name` bound
    to it (expanded to a comprehension over an empty range whose accumulator is the variable). Only in
    environments whose registry declares `cel.bind` (Kyverno's CEL policies), as only they enable Bindings."""
    name = _simple_name(c, args[0], "cel.bind() variable name")
    init = c.compile(args[1])
    with _Bind(c, [name], (init.type, DYN), at) as (slot,):
        body = c.compile(args[2])
    inf, bf = init.fn, body.fn

    def bind(ctx: Ctx) -> Any:
        ctx.slots[slot] = inf(ctx)
        ctx.cost += 1  # the accumulator's read
        return bf(ctx)

    return Node(bind, body.type)


_GLOBAL = {("has", 1): _compile_has, ("cel.bind", 3): _compile_bind}


def global_macro(name: str, nargs: int):
    return _GLOBAL.get((name, nargs))
