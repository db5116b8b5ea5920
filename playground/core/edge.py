"""What every input path checks before the database or the engine sees a value: REST and WebSocket alike.

JSON is read strictly (no NaN/Infinity, integers within 64 bits, at most MAX_DEPTH levels) and every string
in it, keys included, must be storable text: no NUL character (PostgreSQL refuses it in text) and no lone
surrogate (it has no UTF-8 encoding). A problem is a ServiceError naming where it is (``path``), so the
client gets a 400 in the one error shape, never a 500 or a dropped socket.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from evaluator.k8s.json_kinds import json_kind

from playground.core.errors import ServiceError

MAX_DEPTH = 100  # far beyond any Kubernetes object, far below Python's recursion limit
INT_MIN = -(2**63)  # int64, the widest integer Kubernetes' JSON decoding keeps as an integer...
INT_MAX = 2**64 - 1  # ...and uint64, which CEL also has


def invalid(message: str, path: str | None = None, code: str = "invalid_request") -> ServiceError:
    return ServiceError(code, f"{path}: {message}" if path else message, 400, path=path)


def text_problem(value: str) -> str | None:
    """Why a string cannot be stored, or None."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid Unicode)"
    return None


def unstorable_at(value: str) -> tuple[int, int] | None:
    """(line, column), both from 1, of the first character of `value` that cannot be stored; None if none."""
    for offset, character in enumerate(value):
        if character == "\x00" or "\ud800" <= character <= "\udfff":
            line = value.count("\n", 0, offset) + 1
            return line, offset - (value.rfind("\n", 0, offset) + 1) + 1
    return None


def text_error(value: str, path: str | None = None, code: str = "invalid_request") -> ServiceError | None:
    """The error for a string that cannot be stored, placed at its first such character; None if it can be."""
    problem = text_problem(value)
    if problem is None:
        return None
    line, column = unstorable_at(value) or (None, None)
    return ServiceError(code, f"{path}: {problem}" if path else problem, 400, path=path, line=line, column=column)


def check_text(value: Any, path: str) -> str:
    """A string fit for the database; raises otherwise."""
    if not isinstance(value, str):
        raise invalid(f"must be a string, not {json_type(value)}", path)
    error = text_error(value, path)
    if error is not None:
        raise error
    return value


_JSON_TYPES = {
    "null": "null",
    "bool": "boolean",
    "int": "number",
    "float": "number",
    "string": "string",
    "list": "array",
    "map": "object",
}


def json_type(value: Any) -> str:
    """The JSON type word of a parsed value, for messages ("must be a string, not number")."""
    return _JSON_TYPES.get(json_kind(value)) or type(value).__name__


def _scalar_problem(item: Any) -> str | None:
    """What is wrong with a leaf value other than a string (numbers; booleans and null are always fine)."""
    if isinstance(item, bool) or item is None:
        return None
    if isinstance(item, int):
        return None if INT_MIN <= item <= INT_MAX else "integer out of the 64-bit range"
    if isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
        return "number is not finite"
    return None


def _children(item: Any, where: str) -> list[tuple[Any, str]]:
    """An object's or array's members with their paths; an object's keys are checked on the way."""
    if isinstance(item, list):
        return [(child, f"{where}[{i}]") for i, child in enumerate(item)]
    members = []
    for key, child in item.items():
        problem = text_problem(key) if isinstance(key, str) else "key is not a string"
        if problem:
            raise invalid(f"key {problem}", where or None)
        members.append((child, f"{where}.{key}" if where else key))
    return members


def check_json(value: Any, path: str = "", nul_passes: Callable[[str], bool] | None = None) -> Any:
    """Walk parsed JSON (iteratively: depth is what is being checked) and raise on the first bad value. A string
    at a path `nul_passes` accepts may hold NUL characters: its owner stores it only without them."""
    stack = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise invalid(f"nested more than {MAX_DEPTH} levels deep", where or None)
        if isinstance(item, (dict, list)):
            stack.extend((child, at, depth + 1) for child, at in _children(item, where))
            continue
        if isinstance(item, str):
            if nul_passes is not None and "\x00" in item and nul_passes(where):
                item = item.replace("\x00", " ")  # the rest still checked, each character where it was
            error = text_error(item, where or None)
            if error is not None:
                raise error
            continue
        problem = _scalar_problem(item)
        if problem:
            raise invalid(problem, where or None)
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def loads(text: str, nul_passes: Callable[[Any], Callable[[str], bool] | None] | None = None) -> Any:
    """Parse and check JSON text; ServiceError ``invalid_json`` with line and column when it is not JSON.
    `nul_passes(value)` may name, for the parsed value, the paths whose strings may hold NUL (`check_json`)."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ServiceError("invalid_json", f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise ServiceError("invalid_json", f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # NaN/Infinity, or an integer of more than 4,300 digits
        raise ServiceError("invalid_json", f"invalid JSON: {exc}") from None
    return check_json(value, nul_passes=nul_passes(value) if nul_passes is not None else None)
