"""JMESPath as Kyverno runs it (kyverno/go-jmespath fork): a missing map key is a NotFoundError that
propagates through plain paths but is swallowed by functions, pipes, projections, comparisons and
or/and/not; ordering comparisons only hold between numbers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import jmespath
from jmespath import exceptions as jexc
from jmespath import visitor

from .memos import Memo, remembered
from .jmes_functions import KyvernoFunctions


class NotFoundError(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(f'Unknown key "{key}" in path')
        self.key = key


def _num(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class _Interpreter(visitor.TreeInterpreter):
    """What jmespath's functions call back into for an expression reference (`sort_by(list, &key)`): a node
    is evaluated by its compiled form (`compiled`), which states Kyverno's rules; jmespath's own visits serve
    only the node kinds the compiler leaves to it (slices, expression references)."""

    def visit(self, node, value):
        return _node_program(node)(value)

    def visit_by_kind(self, node, value):
        """jmespath's own visit of `node`, by its kind (its children still go through `visit`)."""
        return super().visit(node, value)


# --- an expression compiled to closures ---
#
# A policy's expressions are searched once per object (a batch) or keystroke: each node of the parsed
# expression becomes a closure once, so a search never dispatches on a node's kind. The closures are where
# Kyverno's rules live (where a missing key is swallowed and where it propagates; ordering comparisons between
# numbers only; what counts as false); node kinds seldom searched (slices, expression references) are left
# to jmespath's own visits, whose children come back here.

Program = Callable[[object], object]


def compiled(node: dict) -> Program:
    """The closure that evaluates `node` as Kyverno does."""
    make = _COMPILERS.get(node["type"])
    return make(node) if make is not None else functools.partial(_INTERPRETER.visit_by_kind, node)


def _node_program(node: dict) -> Program:
    """`compiled(node)`, kept with the node for the callbacks of expression references."""
    return remembered(node, compiled, _programs)


_programs: Memo = {}


def _soft(node: dict) -> Program:
    """`_Interpreter._soft`: a missing key gives null."""
    run = compiled(node)

    def soft(value):
        try:
            return run(value)
        except NotFoundError:
            return None

    return soft


def _is_false(value) -> bool:
    return value == "" or value == [] or value == {} or value is None or value is False


def _field(node: dict) -> Program:
    key = node["value"]

    def field(value):
        if isinstance(value, dict):
            if key in value:
                return value[key]
            raise NotFoundError(key)
        return None

    return field


def _chain(node: dict) -> Program:
    """A subexpression or an index expression: each child on what the one before gave."""
    return _in_turn([compiled(child) for child in node["children"]])


def _pipe(node: dict) -> Program:
    """As a chain, but a missing key on either side of a pipe gives null."""
    return _in_turn([_soft(child) for child in node["children"]])


def _in_turn(steps: list[Program]) -> Program:
    def in_turn(value):
        for step in steps:
            value = step(value)
        return value

    return in_turn


def _index(node: dict) -> Program:
    position = node["value"]

    def index(value):
        if not isinstance(value, list):
            return None
        try:
            return value[position]
        except IndexError:
            return None

    return index


def _current(node: dict) -> Program:
    return lambda value: value


def _literal(node: dict) -> Program:
    literal = node["value"]
    return lambda value: literal


def _comparator(node: dict) -> Program:
    op = node["value"]
    functions = visitor.TreeInterpreter.COMPARATOR_FUNC
    left, right = (_soft(child) for child in node["children"])
    equals, compare = functions["eq"], functions.get(op)

    def comparator(value):
        a, b = left(value), right(value)
        if op in ("eq", "ne"):
            eq = equals(a, b)
            return eq if op == "eq" else not eq
        if not (_num(a) and _num(b)):
            return None
        if compare is None:  # not an operator the parser makes
            raise KeyError(op)
        return compare(a, b)

    return comparator


def _function(node: dict) -> Program:
    name = node["value"]
    arguments = [_soft(child) for child in node["children"]]
    call = _FUNCTIONS.call_function
    return lambda value: call(name, [argument(value) for argument in arguments])


def _collecting(node: dict, elements: Callable[[object], Iterable | None]) -> Program:
    """A projection: its right side over each element `elements` gives of the left side's value, nulls dropped."""
    right = _soft(node["children"][1])

    def projection(value):
        base = elements(value)
        if base is None:
            return None
        collected = []
        for element in base:
            current = right(element)
            if current is not None:
                collected.append(current)
        return collected

    return projection


def _projection(node: dict) -> Program:
    left = _soft(node["children"][0])

    def elements(value):
        base = left(value)
        return base if isinstance(base, list) else None

    return _collecting(node, elements)


def _value_projection(node: dict) -> Program:
    left = _soft(node["children"][0])

    def elements(value):
        base = left(value)
        return base.values() if isinstance(base, dict) else None

    return _collecting(node, elements)


def _filter_projection(node: dict) -> Program:
    left, condition = _soft(node["children"][0]), _soft(node["children"][2])

    def elements(value):
        base = left(value)
        if not isinstance(base, list):
            return None
        return (element for element in base if not _is_false(condition(element)))

    return _collecting(node, elements)


def _flatten(node: dict) -> Program:
    child = compiled(node["children"][0])

    def flatten(value):
        try:
            base = child(value)
        except NotFoundError:
            return None
        if not isinstance(base, list):
            return None
        merged = []
        for element in base:
            if isinstance(element, list):
                merged.extend(element)
            else:
                merged.append(element)
        return merged

    return flatten


def _multi_select_list(node: dict) -> Program:
    children = [_soft(child) for child in node["children"]]
    return lambda value: None if value is None else [child(value) for child in children]


def _multi_select_dict(node: dict) -> Program:
    pairs = [(pair["value"], _soft(pair["children"][0])) for pair in node["children"]]
    return lambda value: None if value is None else {key: child(value) for key, child in pairs}


def _or(node: dict) -> Program:
    left, right = (_soft(child) for child in node["children"])

    def or_(value):
        matched = left(value)
        return right(value) if _is_false(matched) else matched

    return or_


def _and(node: dict) -> Program:
    left, right = _soft(node["children"][0]), compiled(node["children"][1])

    def and_(value):
        matched = left(value)
        return matched if _is_false(matched) else right(value)

    return and_


def _not(node: dict) -> Program:
    child = _soft(node["children"][0])
    return lambda value: _is_false(child(value))


_COMPILERS: dict[str, Callable[[dict], Program]] = {
    "field": _field,
    "subexpression": _chain,
    "index_expression": _chain,
    "pipe": _pipe,
    "index": _index,
    "current": _current,
    "identity": _current,
    "literal": _literal,
    "comparator": _comparator,
    "function_expression": _function,
    "projection": _projection,
    "value_projection": _value_projection,
    "filter_projection": _filter_projection,
    "flatten": _flatten,
    "multi_select_list": _multi_select_list,
    "multi_select_dict": _multi_select_dict,
    "or_expression": _or,
    "and_expression": _and,
    "not_expression": _not,
}


class JMESPathError(Exception):
    """Compile or runtime error, with Kyverno-like text."""


@functools.lru_cache(maxsize=2048)
def _compile(expression: str):
    return jmespath.compile(expression)


@functools.lru_cache(maxsize=2048)
def _program(expression: str) -> Program:
    return compiled(_compile(expression).parsed)


_FUNCTIONS = KyvernoFunctions()
# one interpreter: it holds nothing of a search but its options and the visit methods it has looked up
_INTERPRETER = _Interpreter(visitor.Options(custom_functions=_FUNCTIONS))


def search(expression: str, data: object) -> object:
    """Evaluate; raises NotFoundError (missing key on the main path) or JMESPathError."""
    try:
        program = _program(expression)
    except jexc.JMESPathError as err:
        raise JMESPathError(_syntax_message(err)) from None
    try:
        return program(data)
    except NotFoundError:
        raise
    except JMESPathError:
        raise
    except jexc.JMESPathError as err:
        raise JMESPathError(str(err).replace("\n", " ")) from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError) as err:
        raise JMESPathError(str(err)) from None


def _syntax_message(err: Exception) -> str:
    msg = getattr(err, "msg", None) or str(err)
    return f"SyntaxError: {msg}".replace("\n", " ")


def check_syntax(expression: str) -> str | None:
    try:
        _compile(expression)
        return None
    except jexc.JMESPathError as err:
        return _syntax_message(err)
