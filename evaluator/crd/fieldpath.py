"""A rule's `fieldPath` checked against the schema (apiextensions `ValidFieldPath`).

The path is a JSON path of `.name` and `['quoted name']` steps, each naming a property or a key of an
`additionalProperties` map; the result is the path in `field.Path` form (`a.b[key]`) or the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.crd import structural as st

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class FieldPathResult:
    path: str = ""
    error: str | None = None
    schema: Mapping[str, Any] | None = None


def _tokens(text: str) -> list[str]:
    """bufio.Scanner with ValidFieldPath's split function: delimiters `.`, `[`, `]`; quoted runs kept whole."""
    out = []
    pos = 0
    while pos < len(text):
        data = text[pos:]
        end = len(data)
        for i, ch in enumerate(data):
            if data[0] == "'":
                if i > 0 and ch == "'" and data[i - 1] != "\\":
                    end = i + 1
                    break
                continue
            if ch in ".[]":
                end = 1 if i == 0 else i
                break
        out.append(data[:end])
        pos += end
    return out


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            repl = _ESCAPES.get(text[i + 1])
            if repl is None:
                raise ValueError(f"invalid escape char {text[i : i + 2]}")
            out.append(repl)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def valid_field_path(path: str, schema: Mapping[str, Any], allow_array_notation: bool = True) -> FieldPathResult:
    parts: list[str] = []
    current: Mapping[str, Any] | None = schema
    tokens = _tokens(path)
    i = 0

    def step(name: str) -> str | None:
        nonlocal current
        node = current or st.EMPTY
        props = st.properties(node)
        if props is not None:
            parts.append(("." if parts else "") + name)
            if name not in props:
                return "does not refer to a valid field"
            current = st.node(props[name])
            return None
        extra = st.additional_properties(node)
        if extra is not None:
            parts.append(f"[{name}]")
            current = extra
            return None
        return "does not refer to a valid field"

    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok == "[":
            if not allow_array_notation:
                return FieldPathResult(error="array notation is not allowed")
            if i >= len(tokens):
                return FieldPathResult(error="unexpected end of JSON path")
            tok = tokens[i]
            i += 1
            if len(tok) < 2 or tok[0] != "'" or tok[-1] != "'":
                return FieldPathResult(error=f"expected single quoted string but got {tok}")
            try:
                name = _unescape(tok[1:-1])
            except ValueError as e:
                return FieldPathResult(error=f"invalid string literal: {e}")
            error = step(name)
            if error:
                return FieldPathResult(error=error)
            if i >= len(tokens):
                return FieldPathResult(error="unexpected end of JSON path")
            tok = tokens[i]
            i += 1
            if tok != "]":
                return FieldPathResult(error=f"expected ] but got {tok}")
        elif tok == ".":
            if i >= len(tokens):
                return FieldPathResult(error="unexpected end of JSON path")
            tok = tokens[i]
            i += 1
            error = step(tok)
            if error:
                return FieldPathResult(error=error)
        else:
            return FieldPathResult(error=f"expected [ or . but got: {tok}")
    return FieldPathResult(path="".join(parts), schema=current)
