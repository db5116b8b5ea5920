"""Runtime building blocks of compiled programs: logic, selection, indexing, calls and their costs.

Kept apart from the compiler so the closures that run on every evaluation are easy to read and profile.
"""

from __future__ import annotations


import math
from collections.abc import Mapping
from typing import Any, Callable

from evaluator.cel import operators as ops
from evaluator.cel.errors import CELEvalError, long_number_message
from evaluator.cel.registry import Overload
from evaluator.cel.runtime import Ctx, actual_size
from evaluator.cel.values import LIST_TYPES, OPTIONAL_NONE, Optional, UInt, type_name

Fn = Callable[[Ctx], Any]


def key_repr(key: Any) -> str:
    if type(key) is str:
        return key
    if type(key) is bool:
        return "true" if key else "false"
    return str(int(key))


def charged_const(value: Any, cost: int) -> Fn:
    """A precomputed call on constants that still charges its cost at each evaluation."""

    def const(ctx: Ctx) -> Any:
        ctx.cost += cost
        return value

    return const


def unary_call(impl: Callable[[Any], Any], f: Fn) -> Fn:
    def unary(ctx: Ctx) -> Any:
        ctx.cost += 1
        return impl(f(ctx))

    return unary


_OPAQUE_CACHE: dict[int, tuple[int, frozenset[str]]] = {}


def opaque_types(registry) -> frozenset[str]:
    """Names of the library types (`net.IP`, `kubernetes.Quantity` …) usable as type identifiers."""
    count = len(registry.names())
    cached = _OPAQUE_CACHE.get(id(registry))
    if cached is not None and cached[0] == count:
        return cached[1]
    names = set()
    for fname in registry.names():
        for o in registry.overloads(fname):
            for t in (*o.params, o.result):
                if any(c.isupper() for c in t.name.rsplit(".", 1)[-1]) and not t.is_param:
                    names.add(t.name)
    result = frozenset(names)
    _OPAQUE_CACHE[id(registry)] = (count, result)
    return result


def eq_cost(a: Any, b: Any) -> int:
    """cel-go: equality traverses the smaller operand at 0.1 a unit (so scalars cost 1)."""
    return math.ceil(min(actual_size(a), actual_size(b)) * 0.1)


def order_cost(a: Any, b: Any) -> int:
    """cel-go: ordering strings or bytes is a traversal of the smaller one; other types cost 1."""
    ta = type(a)
    if (ta is str or ta is bytes) and type(b) is ta:
        return math.ceil(min(len(a), len(b)) * 0.1)
    return 1


def logic(fns: list[Fn], is_or: bool) -> Fn:
    """`||` / `&&` over n terms with CEL's commutative error absorption."""
    decisive = is_or

    def run(ctx: Ctx) -> Any:
        error: CELEvalError | None = None
        for f in fns:
            try:
                v = f(ctx)
            except CELEvalError as e:
                if error is None:
                    error = e
                continue
            if v is decisive:
                return decisive
            if v is not (not decisive):
                if error is None:
                    error = CELEvalError("no such overload")
        if error is not None:
            raise error
        return not decisive

    return run


def slot_reader(slot: int, cost: int) -> Fn:
    if not cost:
        return lambda ctx: ctx.slots[slot]

    def read_slot(ctx: Ctx) -> Any:
        ctx.cost += cost
        return ctx.slots[slot]

    return read_slot


def var_reader(name: str, cost: int) -> Fn:
    def read(ctx: Ctx) -> Any:
        ctx.cost += cost
        try:
            return ctx.act[name]
        except KeyError:
            raise CELEvalError(f"no such attribute: {name}") from None

    return read


def relative_attribute(tf: Fn) -> Fn:
    """cel-go's evalAttr over a relative attribute: its observation costs SelectAndIdentCost (1), charged
    after the operand is evaluated, whether or not that fails."""

    def relative(ctx: Ctx) -> Any:
        try:
            value = tf(ctx)
        except CELEvalError:
            ctx.cost += 1
            raise
        ctx.cost += 1
        return value

    return relative


def make_select(tf: Fn, field: str, alt: str | None, optional: bool) -> Fn:
    """`tf.field` (`tf.?field` when optional). A chain of plain selects (`object.spec.template`) becomes one
    closure that walks plain dicts directly, charging one unit a step as the steps would; at the first step
    that is not a plain present key it goes on step by step (same values, errors and cost)."""
    steps = ((field, alt),)
    base = tf
    chain = getattr(tf, "_select_chain", None)
    if chain is not None and not optional:
        base, steps = chain[0], chain[1] + steps

    def select_step(ctx: Ctx, obj: Any, field: str, alt: str | None, optional: bool) -> Any:
        # cel-go observes (charges 1 for) a step that can miss (`.?f`, or any step after an optional one)
        # only when it finds something: a step onto optional.none() or that finds nothing costs nothing.
        if type(obj) is Optional:
            if not obj.has_value:
                return obj
            inner = obj.value
            if type(inner) is dict or isinstance(inner, Mapping) or hasattr(inner, "cel_select"):
                result = _select_value(inner, field, alt, True)
            else:
                # `.?f` on a present null or scalar finds nothing (refQualify's presence test); a plain `.f`
                # there is no such key (cel-spec optionals/map_null_entry_no_such_key)
                result = _qualify_other(inner, field, optional)
        elif optional:
            result = _select_value(obj, field, alt, True)
        else:
            ctx.cost += 1
            return _select_value(obj, field, alt, False)
        if type(result) is not Optional or result.has_value:
            ctx.cost += 1
        return result

    if optional:

        def select_optional(ctx: Ctx) -> Any:
            return select_step(ctx, tf(ctx), field, alt, True)

        return select_optional

    names = tuple(name for name, _ in steps)
    count = len(steps)

    def select(ctx: Ctx) -> Any:
        obj = base(ctx)
        walked = 0
        for name in names:
            if type(obj) is not dict or name not in obj:
                ctx.cost += walked
                for name, alt_name in steps[walked:]:
                    obj = select_step(ctx, obj, name, alt_name, False)
                return obj
            obj = obj[name]
            walked += 1
        ctx.cost += count
        return obj

    if count == 1:

        def select(ctx: Ctx) -> Any:  # `x.f`, the commonest: one step
            obj = base(ctx)
            if type(obj) is dict and field in obj:
                ctx.cost += 1
                return obj[field]
            return select_step(ctx, obj, field, alt, False)

    select._select_chain = (base, steps)  # type: ignore[attr-defined]
    return select


def _select_value(obj: Any, field: str, alt: str | None, optional: bool) -> Any:
    if type(obj) is dict or hasattr(obj, "__getitem__") and hasattr(obj, "keys"):
        try:
            v = obj[field]
        except KeyError:
            if alt is not None:
                try:
                    v = obj[alt]
                except KeyError:
                    pass
                else:
                    return Optional(v) if optional else v
            if optional:
                return OPTIONAL_NONE
            raise CELEvalError(f"no such key: {field}") from None
        return Optional(v) if optional else v
    selector = getattr(obj, "cel_select", None)
    if selector is not None:
        return selector(field)
    return _qualify_other(obj, field, optional)


def _qualify_other(obj: Any, key: Any, optional: bool) -> Any:
    """Selecting from something that is neither map nor object, as cel-go's refQualify does: a list wants a
    number; anything else (null, a scalar) has no such key, so `.?f` is optional.none() and has() false."""
    if type(obj) in LIST_TYPES:
        raise CELEvalError(f"unsupported index type '{type_name(key)}' in list")
    if optional:
        return OPTIONAL_NONE
    raise CELEvalError(f"no such key: {key_repr(key) if type(key) is not float else key}")


def make_index(tf: Fn, kf: Fn, optional: bool) -> Fn:
    def index(ctx: Ctx) -> Any:
        obj = tf(ctx)
        key = kf(ctx)
        if type(obj) is Optional:  # as select_step: a step that can miss costs 1 only when it finds something
            if not obj.has_value:
                return obj
            inner = obj.value
            if inner is None or type(inner) in (bool, int, float, str, bytes, UInt):
                result = _qualify_other(inner, key, optional)
            else:
                result = _index_value(inner, key, True)
        elif optional:
            result = _index_value(obj, key, True)
        else:
            ctx.cost += 1
            return _index_value(obj, key, False)
        if type(result) is not Optional or result.has_value:
            ctx.cost += 1
        return result

    return index


def _index_value(obj: Any, key: Any, optional: bool) -> Any:
    t = type(obj)
    if t in LIST_TYPES:
        if type(key) is not int:
            key = _list_position(key)
        if 0 <= key < len(obj):
            return Optional(obj[key]) if optional else obj[key]
        if optional:
            return OPTIONAL_NONE
        raise CELEvalError(f"index out of bounds: {key}")
    if t is dict or (hasattr(obj, "keys") and hasattr(obj, "__getitem__")):
        if type(key) not in _MAP_KEY_TYPES:
            raise CELEvalError("unsupported key type")
        found, v = ops.map_lookup(obj, key)
        if found:
            return Optional(v) if optional else v
        if optional:
            return OPTIONAL_NONE
        raise CELEvalError(f"no such key: {key_repr(key) if type(key) is not float else key}")
    return _qualify_other(obj, key, optional)


_MAP_KEY_TYPES = frozenset((str, int, bool, float, UInt))


def _list_position(key: Any) -> int:
    """A list index that is not an int: a uint, or a double with an integral value; anything else is refused."""
    kt = type(key)
    if kt is float:
        if not key.is_integer():
            raise CELEvalError(f"unsupported index value {key}")
        return int(key)
    if kt is not UInt:
        raise CELEvalError(f"unsupported index type '{type_name(key)}' in list")
    return int(key)


def make_call(name: str, overloads: list[Overload], fns: list[Fn]) -> Fn:
    if len(overloads) == 1:
        o = overloads[0]
        impl, accepts, cost = o.impl, o.accepts, o.cost
        if len(fns) == 1:
            f0 = fns[0]

            def call1(ctx: Ctx) -> Any:
                try:
                    a = f0(ctx)
                except CELEvalError:
                    _charge_failed(ctx, cost, (ERROR_ARG,))
                    raise
                if not accepts((a,)):
                    raise CELEvalError(_no_overload(name, (a,)))
                result = _invoke(impl, (a,))
                _charge(ctx, cost, (a,), result)
                return result

            return call1

        if len(fns) == 2:
            f0, f1 = fns

            def call2(ctx: Ctx) -> Any:
                a0 = _UNSET
                try:
                    a0 = f0(ctx)
                    args = (a0, f1(ctx))
                except CELEvalError:
                    _finish_args(ctx, [] if a0 is _UNSET else [a0], fns, cost)
                    raise
                if not accepts(args):
                    raise CELEvalError(_no_overload(name, args))
                result = _invoke(impl, args)
                _charge(ctx, cost, args, result)
                return result

            return call2

    # A failed argument: a single overload's own cost; overloads differ only by type: the call's default cost, 1.
    failure_cost = overloads[0].cost if len(overloads) == 1 else None

    def dispatch(ctx: Ctx) -> Any:
        done: list[Any] = []
        try:
            for f in fns:
                done.append(f(ctx))
        except CELEvalError:
            _finish_args(ctx, done, fns, failure_cost)
            raise
        args = tuple(done)
        for o in overloads:
            if o.accepts(args):
                result = _invoke(o.impl, args)
                _charge(ctx, o.cost, args, result)
                return result
        raise CELEvalError(_no_overload(name, args))

    return dispatch


def _finish_args(ctx: Ctx, done: list[Any], fns: list[Fn], cost: Any) -> None:
    """After argument `len(done)` failed: cel-go evaluates every argument of a strict call before looking
    at errors, then charges the call with the failed ones as error values."""
    args = [*done, ERROR_ARG]
    for f in fns[len(args) :]:
        try:
            args.append(f(ctx))
        except CELEvalError:
            args.append(ERROR_ARG)
    _charge_failed(ctx, cost, tuple(args))


def _charge_failed(ctx: Ctx, cost: Any, args: tuple) -> None:
    if cost is None or type(cost) is int:
        ctx.cost += 1 if cost is None else cost
        return
    try:
        ctx.cost += cost(args, ERROR_ARG)
    except Exception:  # a size-based estimator that cannot size an error value: cel-go's default, 1
        ctx.cost += 1


def _no_overload(name: str, args: tuple) -> str:
    return f"no such overload: {name}({', '.join(type_name(a) for a in args)})"


def _invoke(impl: Callable[..., Any], args: tuple) -> Any:
    try:
        return impl(*args)
    except CELEvalError:
        raise
    except RecursionError:
        raise CELEvalError("max recursion depth exceeded") from None
    except (TypeError, AttributeError, ValueError, KeyError, IndexError, OverflowError, ZeroDivisionError) as e:
        raise CELEvalError(long_number_message(e) or f"{type(e).__name__}: {e}") from None


def _charge(ctx: Ctx, cost: Any, args: tuple, result: Any) -> None:
    if cost is None:
        ctx.cost += 1
    elif type(cost) is int:
        ctx.cost += cost
    else:
        ctx.cost += cost(args, result)
        if ctx.cost > ctx.limit:
            ctx.check()


class _ErrorArg:
    """A failed operand as cel-go's cost tracker sees it: an error value, whose actualSize is 1."""

    __slots__ = ()


ERROR_ARG = _ErrorArg()
_UNSET = object()


def _failed_operands(ctx: Ctx, a: Any, rf: Fn, cost: Callable[[Any, Any], int]) -> None:
    """cel-go evaluates both operands of a strict operator before looking at errors, and its cost tracker
    charges the call even when an operand failed: evaluate the right one if the left failed, and charge."""
    b = ERROR_ARG
    if a is _UNSET:
        a = ERROR_ARG
        try:
            b = rf(ctx)
        except CELEvalError:
            pass
    ctx.cost += cost(a, b)


def binary_op(name: str, impl: Callable[[Any, Any], Any] | None, lf: Fn, rf: Fn, right_const: Any) -> Fn:
    """The closure of a binary operator, charging cel-go's cost for it (`right_const` is the right operand's
    constant value, or NOT_CONSTANT)."""
    if name == "@in" and type(right_const) is list:
        # OptOptimize turns membership in a constant list into a set test, with no call cost.
        items = right_const

        def member(ctx: Ctx) -> Any:
            return ops.contains(items, lf(ctx))

        return member
    make, failed_cost = _BINARY.get(name, _BINARY["*"])
    return make(lf, rf, impl, failed_cost)


# Each strict binary operator's closure is generated from one line of _OPERATORS: cel-go's cost of the call and
# its result, as expressions of the operands `a` and `b` (`impl` is the registry's implementation). The cost
# expression is inlined in the closure (the hot path of every expression) and is also, as a function, what a
# call with a failed operand is charged (the failed operand then being ERROR_ARG), unless a third item says
# otherwise.
_TEMPLATE = """
def make(lf, rf, impl, failed_cost):
    def fn(ctx):
        a = _UNSET
        try:
            a = lf(ctx)
            b = rf(ctx)
        except CELEvalError:
            _failed_operands(ctx, a, rf, failed_cost)
            raise
        ctx.cost += {cost}
        return {result}
    return fn
"""
# Strings and bytes: a traversal of both; numbers and lists: 1. With a failed operand, the other one tells.
_ADD_COST = "math.ceil((actual_size(a) + actual_size(b)) * 0.1) if (t := type(a)) is str or t is bytes else 1"
_ADD_COST_FAILED = _ADD_COST.replace("type(a)", "type(b if a is ERROR_ARG else a)")
_OPERATORS = {
    "_==_": ("eq_cost(a, b)", "ops.equals(a, b)"),
    "_!=_": ("eq_cost(a, b)", "not ops.equals(a, b)"),
    "@in": ("actual_size(b) if type(b) in LIST_TYPES else 1", "ops.contains(b, a)"),
    **dict.fromkeys(("_<_", "_<=_", "_>_", "_>=_"), ("order_cost(a, b)", "impl(a, b)")),
    "_+_": (_ADD_COST, "impl(a, b)", _ADD_COST_FAILED),
    "*": ("1", "impl(a, b)"),  # every other operator
}


def _generate(name: str, cost: str, result: str, failed: str = "") -> tuple[Callable[..., Fn], Callable[..., int]]:
    """Compiled once at import from the module's own constants above (never from anything a user wrote), so
    the hot path runs one flat closure per operator instead of two extra calls."""
    scope = dict(_TEMPLATE_NAMES)
    exec(compile(_TEMPLATE.format(cost=cost, result=result), f"<binary operator {name}>", "exec"), scope)
    return scope["make"], eval(f"lambda a, b: {failed or cost}", dict(_TEMPLATE_NAMES))


# What the generated code may read.
_TEMPLATE_NAMES: dict[str, Any] = {
    "CELEvalError": CELEvalError,
    "ERROR_ARG": ERROR_ARG,
    "LIST_TYPES": LIST_TYPES,
    "_UNSET": _UNSET,
    "_failed_operands": _failed_operands,
    "actual_size": actual_size,
    "eq_cost": eq_cost,
    "math": math,
    "ops": ops,
    "order_cost": order_cost,
}


_BINARY = {name: _generate(name, *spec) for name, spec in _OPERATORS.items()}
