"""A GeneratingPolicy's `generate[].template`: YAML documents describing resources, with CEL placeholders
`(( expression ))` when `interpolate: cel` (pkg/cel/policies/gpol/template).

A scalar that is one placeholder takes the expression's value (a map, a list...); a scalar mixing text and
placeholders is a string, each placeholder a scalar; `\\((` is a literal `((`. Placeholders are not allowed in
mapping keys. Every document must be a mapping. Compile and render errors keep Kyverno's wording.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from evaluator import cel as _cel


class TemplateError(Exception):
    pass


def scan(text: str) -> list[tuple[bool, str]]:
    """(is_expression, text) segments of a scalar."""
    segments: list[tuple[bool, str]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("\\((", i):
            literal.append("((")
            i += 3
            continue
        if text.startswith("((", i):
            expression, i = _placeholder(text, i)
            if literal:
                segments.append((False, "".join(literal)))
                literal = []
            segments.append((True, expression))
            continue
        literal.append(text[i])
        i += 1
    if literal:
        segments.append((False, "".join(literal)))
    return segments


def _placeholder(text: str, start: int) -> tuple[str, int]:
    depth, quote, i = 0, "", start + 2
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
            i += 1
            continue
        if c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth > 0:
                depth -= 1
            elif text.startswith("))", i):
                expression = text[start + 2 : i].strip()
                if not expression:
                    raise TemplateError(f"empty placeholder at offset {start}")
                return expression, i + 2
            else:
                raise TemplateError(f"unbalanced parenthesis in placeholder starting at offset {start}")
        i += 1
    raise TemplateError(f"unterminated placeholder starting at offset {start}")


def _has_placeholder(value: Any) -> bool:
    if isinstance(value, str):
        return "((" in value
    if isinstance(value, Mapping):
        return any(_has_placeholder(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_placeholder(v) for v in value)
    return False


@dataclass
class _Splice:
    expression: str
    program: Any


@dataclass
class _Interpolated:
    segments: list[tuple[bool, str, Any]]


class Template:
    """Compiled once; `render(run)` per evaluation, `run(program)` evaluating one placeholder."""

    def __init__(self, value: Any, interpolate: bool, compile_expression: Callable[[str], Any]):
        self.docs: list[Any] = []
        try:
            loaded = list(yaml.safe_load_all(value if isinstance(value, str) else ""))
        except yaml.YAMLError as err:
            raise TemplateError(f"failed to parse YAML: {err}") from None
        for doc in loaded:
            if doc is None:
                continue
            if not isinstance(doc, Mapping):
                raise TemplateError("document must be a mapping describing a resource")
            self.docs.append(self._compile(doc, compile_expression) if interpolate else doc)
        if not self.docs:
            raise TemplateError("template must contain at least one YAML document")

    def _compile(self, value: Any, compile_expression: Callable[[str], Any]) -> Any:
        if not _has_placeholder(value):
            return value
        if isinstance(value, Mapping):
            out = {}
            for key, item in value.items():
                if isinstance(key, str) and "((" in key:
                    raise TemplateError(
                        "placeholders are not supported in mapping keys; use a whole-value placeholder on the parent "
                        "field instead (e.g. `labels: (( variables.labels ))`)"
                    )
                out[key] = self._compile(item, compile_expression)
            return out
        if isinstance(value, list):
            return [self._compile(v, compile_expression) for v in value]
        segments = scan(value)
        expressions = [text for is_expr, text in segments if is_expr]
        if not expressions:
            return "".join(text for _, text in segments)
        if len(segments) == 1:
            return _Splice(expressions[0], compile_expression(expressions[0]))
        return _Interpolated(
            [(is_expr, text, compile_expression(text) if is_expr else None) for is_expr, text in segments]
        )

    def render(self, run: Callable[[Any], Any]) -> list[dict[str, Any]]:
        out = []
        for i, doc in enumerate(self.docs):
            try:
                rendered = _render(doc, run)
            except TemplateError as err:
                raise TemplateError(f"document {i + 1}: {err}") from None
            if not isinstance(rendered, dict):
                raise TemplateError(f"document {i + 1}: expected a mapping describing a resource")
            out.append(rendered)
        return out


def _native(value: Any) -> Any:
    return _cel.to_json(value)


def _render(node: Any, run: Callable[[Any], Any]) -> Any:
    if isinstance(node, _Splice):
        return _native(_evaluate(node.expression, node.program, run))
    if isinstance(node, _Interpolated):
        parts = []
        for is_expr, text, program in node.segments:
            if not is_expr:
                parts.append(text)
                continue
            value = _native(_evaluate(text, program, run))
            if isinstance(value, str):
                parts.append(value)
            elif isinstance(value, bool):
                parts.append("true" if value else "false")
            elif isinstance(value, (int, float)):
                parts.append(json.dumps(value))
            else:
                raise TemplateError(
                    f"placeholder {text!r} embedded in a string must evaluate to a scalar; use a whole-value "
                    "placeholder for structured results"
                )
        return "".join(parts)
    if isinstance(node, Mapping):
        out = {}
        for key, value in node.items():
            try:
                out[key] = _render(value, run)
            except TemplateError as err:
                raise TemplateError(f"field {json.dumps(str(key))}: {err}") from None
        return out
    if isinstance(node, list):
        return [_render(v, run) for v in node]
    return json.loads(json.dumps(node, default=str))


def _evaluate(expression: str, program: Any, run: Callable[[Any], Any]) -> Any:
    try:
        return run(program)
    except TemplateError:
        raise
    except Exception as err:
        message = getattr(err, "message", None) or str(err)
        raise TemplateError(f"failed to evaluate placeholder {json.dumps(expression)}: {message}") from None
