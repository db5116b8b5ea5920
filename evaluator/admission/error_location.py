"""Where in the user's text an error about an expression belongs.

An error names the document and the field (``spec.validations[0].expression``); a CEL compile error also
names a line and column inside the expression (cel-go's ``<input>:L:C:``). Through the document's
source map (source_map.py) that becomes ``line``/``column`` of the offending character in the file, and
``endLine``/``endColumn`` (exclusive) of the token there. A runtime error (cel-go reports no position)
points at the expression's first line. A document given as an object has no text: the location keeps
only its path and says ``located: false``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evaluator.admission.positions import canonical_path
from evaluator.admission.source_map import value_offset

_CEL_POINT = re.compile(r"<input>:(\d+):(\d+):")
_MISMATCHED = re.compile(r"(?:mismatched input|token recognition error at:) '(.+?)'")
_WORD = re.compile(r"[A-Za-z0-9_]+|[=!<>&|]+")  # an identifier or number, or an operator


def expression_point(message: Any) -> tuple[int, int] | None:
    """The first (line, column) cel-go's text names inside the expression (1-based), if any."""
    if not isinstance(message, str):
        return None
    found = _CEL_POINT.search(message)
    return (int(found.group(1)), int(found.group(2))) if found else None


def locate(
    document: Any, path: str | None, message: Any = None, *, point: tuple[int, int] | None = None
) -> dict[str, Any]:
    """``document.location(path)`` refined to the character an expression error is about."""
    where = document.location(path) if hasattr(document, "location") else {}
    scalars = getattr(document, "scalars", None)
    scalar = scalars.get(canonical_path(path)) if scalars and path else None
    if scalar is None or not isinstance(scalar.value, str):
        return where
    value = scalar.value
    point = point or expression_point(message)
    offset = _offset(value, point) if point else None
    if offset is not None and offset >= len(value.rstrip()):  # at the end (<EOF>): just after the last token
        offset = len(value.rstrip())
    if offset is None:  # no position inside the expression: its first line
        offset = len(value) - len(value.lstrip())
        length = max(1, len(value[offset:].split("\n", 1)[0].rstrip()))
    else:
        length = _token_length(value, offset, message)
    start = scalar.value_position(offset) if value else None
    if start is None:
        line, column = scalar.first_character()
        return {**where, "line": line, "column": column}
    last = scalar.value_position(min(offset + length, len(value)) - 1) if offset < len(value) else start
    out = {**where, "line": start[0], "column": start[1]}
    if last is not None and last >= start:
        out["endLine"], out["endColumn"] = last[0], last[1] + 1
    return out


def _offset(value: str, point: tuple[int, int]) -> int | None:
    return value_offset(value, *point)


def _token_length(value: str, offset: int, message: Any) -> int:
    """The length of the token cel-go's error is about: the quoted input of a syntax error, else the word
    or comparison/logical operator at the position, else one character."""
    quoted = _MISMATCHED.search(message) if isinstance(message, str) else None
    if quoted and value.startswith(quoted.group(1), offset):
        return len(quoted.group(1))
    word = _WORD.match(value, offset)
    return len(word.group(0)) if word else 1


def point_of(value: Any, offset: int) -> tuple[int, int] | None:
    """(line, column), 1-based, of ``offset`` in the string ``value``."""
    if not isinstance(value, str):
        return None
    offset = max(0, min(offset, len(value)))
    return value.count("\n", 0, offset) + 1, offset - (value.rfind("\n", 0, offset) + 1) + 1


def value_at(data: Any, path: str) -> Any:
    """The value at a field path (``spec.rules[0].validate.message``) of plain data, or None."""
    from evaluator.admission.positions import split_path

    for part in split_path(path):
        if part.startswith("["):
            index = part[1:-1]
            data = data[int(index)] if isinstance(data, list) and index.isdigit() and int(index) < len(data) else None
        else:
            data = data.get(part) if isinstance(data, Mapping) else None
    return data


def where(error: Mapping[str, Any]) -> str:
    """` in <text 0> at line 3, column 7 (spec.validations[0].expression)`: where another error is."""
    parts = [
        f"in {error['source']}" if error.get("source") else "",
        f"at line {error['line']}, column {error['column']}" if error.get("line") and error.get("column") else "",
        f"({error['path']})" if error.get("path") else "",
    ]
    return "".join(" " + p for p in parts if p)


def pointer(error: Mapping[str, Any]) -> dict[str, Any]:
    """Where an error is, for another entry that refers to it (the editor links to it)."""
    return {k: error[k] for k in ("document", "source", "line", "column", "path") if error.get(k) is not None}


_PLACE = ("document", "source", "item", "line", "column", "endLine", "endColumn", "located")


def locate_diagnostics(report: dict, locate_field: Any) -> None:
    """Add `location` to each type-check diagnostic with a fieldRef and a position inside its expression;
    ``locate_field(path=..., point=...)`` is the policy's located() (loading.py)."""
    for diagnostic in report.get("diagnostics") or ():
        field = diagnostic.get("fieldRef")
        if field and diagnostic.get("line"):
            found = locate_field(path=field, point=(diagnostic["line"], diagnostic.get("column") or 1))
            diagnostic["location"] = {k: found[k] for k in _PLACE if k in found}
