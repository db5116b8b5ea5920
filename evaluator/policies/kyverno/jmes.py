"""JMESPath as Kyverno runs it (kyverno/go-jmespath fork): a missing map key is a NotFoundError that
propagates through plain paths but is swallowed by functions, pipes, projections, comparisons and
or/and/not; ordering comparisons only hold between numbers."""

from __future__ import annotations

import functools

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


class JMESPathError(Exception):
    """Compile or runtime error, with Kyverno-like text."""


@functools.lru_cache(maxsize=2048)
def _compile(expression: str):
    return jmespath.compile(expression)


_FUNCTIONS = KyvernoFunctions()
# one interpreter: it holds nothing of a search but its options and the visit methods it has looked up
_INTERPRETER = _Interpreter(visitor.Options(custom_functions=_FUNCTIONS))


def search(expression: str, data: object) -> object:
    """Evaluate; raises NotFoundError (missing key on the main path) or JMESPathError."""
    try:
        parsed = _compile(expression)
    except jexc.JMESPathError as err:
        raise JMESPathError(_syntax_message(err)) from None
    try:
        return _INTERPRETER.visit(parsed.parsed, data)
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
