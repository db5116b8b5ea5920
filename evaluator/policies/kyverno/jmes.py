"""JMESPath as Kyverno runs it (kyverno/go-jmespath fork): a missing map key is a NotFoundError that
propagates through plain paths but is swallowed by functions, pipes, projections, comparisons and
or/and/not; ordering comparisons only hold between numbers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import jmespath
from jmespath import exceptions as jexc
from jmespath import visitor

from .jmes_functions import KyvernoFunctions


class NotFoundError(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(f'Unknown key "{key}" in path')
        self.key = key


def _num(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class _Interpreter(visitor.TreeInterpreter):
    def _soft(self, node, value):
        """Visit where Kyverno swallows a missing key: it gives null, not an error."""
        try:
            return self.visit(node, value)
        except NotFoundError:
            return None

    def visit_field(self, node, value):
        if isinstance(value, dict):
            key = node["value"]
            if key in value:
                return value[key]
            raise NotFoundError(key)
        return None

    def visit_comparator(self, node, value):
        left = self._soft(node["children"][0], value)
        right = self._soft(node["children"][1], value)
        op = node["value"]
        if op in ("eq", "ne"):
            eq = self.COMPARATOR_FUNC["eq"](left, right)
            return eq if op == "eq" else not eq
        if not (_num(left) and _num(right)):
            return None
        return self.COMPARATOR_FUNC[op](left, right)

    def visit_function_expression(self, node, value):
        args = [self._soft(child, value) for child in node["children"]]
        return self._functions.call_function(node["value"], args)

    def _collect(self, node, elements):
        """A projection's right side over each element (read lazily), nulls dropped."""
        collected = []
        for element in elements:
            current = self._soft(node, element)
            if current is not None:
                collected.append(current)
        return collected

    def visit_filter_projection(self, node, value):
        base = self._soft(node["children"][0], value)
        if not isinstance(base, list):
            return None
        condition = node["children"][2]
        return self._collect(node["children"][1], (e for e in base if self._is_true(self._soft(condition, e))))

    def visit_flatten(self, node, value):
        try:
            return super().visit_flatten(node, value)
        except NotFoundError:
            return None

    def visit_multi_select_dict(self, node, value):
        if value is None:
            return None
        return {child["value"]: self._soft(child, value) for child in node["children"]}

    def visit_multi_select_list(self, node, value):
        if value is None:
            return None
        return [self._soft(child, value) for child in node["children"]]

    def visit_or_expression(self, node, value):
        matched = self._soft(node["children"][0], value)
        if self._is_false(matched):
            matched = self._soft(node["children"][1], value)
        return matched

    def visit_and_expression(self, node, value):
        matched = self._soft(node["children"][0], value)
        if self._is_false(matched):
            return matched
        return self.visit(node["children"][1], value)

    def visit_not_expression(self, node, value):
        matched = self._soft(node["children"][0], value)
        return self._is_false(matched)

    def visit_pipe(self, node, value):
        result = value
        for child in node["children"]:
            result = self._soft(child, result)
        return result

    def visit_projection(self, node, value):
        base = self._soft(node["children"][0], value)
        if not isinstance(base, list):
            return None
        return self._collect(node["children"][1], base)

    def visit_value_projection(self, node, value):
        base = self._soft(node["children"][0], value)
        if not isinstance(base, dict):
            return None
        return self._collect(node["children"][1], base.values())

    def _is_false(self, value):
        return value == "" or value == [] or value == {} or value is None or value is False


# --- an expression compiled to closures ---
#
# A policy's expressions are searched once per object (a batch) or keystroke: each node of the parsed
# expression becomes a closure once, so a search no longer dispatches on every node's type. Each closure
# answers exactly as `_Interpreter` visits its node (the Kyverno rules above: where a missing key is
# swallowed, where it propagates); node kinds seldom searched (slices, expression references) are left to the
# interpreter.

Program = Callable[[object], object]


def compiled(node: dict) -> Program:
    """`lambda value: _INTERPRETER.visit(node, value)`, compiled."""
    make = _COMPILERS.get(node["type"])
    return make(node) if make is not None else functools.partial(_INTERPRETER.visit, node)


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
    if op not in _Interpreter.COMPARATOR_FUNC:
        return functools.partial(_INTERPRETER.visit, node)
    left, right = (_soft(child) for child in node["children"])
    equals, compare = _Interpreter.COMPARATOR_FUNC["eq"], _Interpreter.COMPARATOR_FUNC[op]

    def comparator(value):
        a, b = left(value), right(value)
        if op in ("eq", "ne"):
            eq = equals(a, b)
            return eq if op == "eq" else not eq
        if not (_num(a) and _num(b)):
            return None
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
