"""Field errors shaped and worded like apimachinery's ``field.Error`` (what ``kubectl apply`` prints).

``str(error)`` gives the exact Go text (``spec.x: Invalid value: "y": detail``); ``to_dict()`` gives the
JSON shape the engine reports: ``{"path", "type", "message", "text"}`` (+ ``"value"`` when there is one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
FORBIDDEN = "Forbidden"
TOO_MANY = "Too many"
INTERNAL = "Internal error"

_NO_VALUE_TYPES = {REQUIRED, FORBIDDEN, INTERNAL}
_MISSING = object()


class GoValue:
    """A bad value rendered the way Go's ``%#v`` would (e.g. ``[]string{"a", "b"}``)."""

    def __init__(self, value: Any, go_type: str = "[]string"):
        self.value = value
        self.go_type = go_type

    def __str__(self) -> str:
        if isinstance(self.value, (list, tuple)):
            inner = ", ".join(_go_quote(str(v)) for v in self.value)
            return f"{self.go_type}{{{inner}}}"
        return _go_quote(str(self.value))


def _go_quote(text: str) -> str:
    """Go's %q for ordinary strings (JSON escaping is a close, sufficient match)."""
    return json.dumps(text, ensure_ascii=False)


def render_value(value: Any) -> str:
    """Render a bad value as field.Error does: %q for strings, %v for numbers/bools, Go syntax otherwise."""
    if value is None:
        return "null"
    if isinstance(value, GoValue):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, (list, tuple)):
        return str(GoValue(value))
    return repr(value)


@dataclass(frozen=True)
class FieldError:
    path: str
    type: str
    message: str = ""
    value: Any = field(default=_MISSING, compare=False)

    @property
    def body(self) -> str:
        if self.type in _NO_VALUE_TYPES or self.value is _MISSING:
            text = self.type
        else:
            text = f"{self.type}: {render_value(self.value)}"
        if self.message:
            text += f": {self.message}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body}" if self.path else self.body

    def to_dict(self) -> dict:
        out = {"path": self.path, "type": self.type, "message": self.message, "text": str(self)}
        if self.value is not _MISSING and self.type not in _NO_VALUE_TYPES:
            value = self.value.value if isinstance(self.value, GoValue) else self.value
            out["value"] = value
        return out


def required(path: str, message: str = "") -> FieldError:
    return FieldError(path, REQUIRED, message)


def invalid(path: str, value: Any, message: str) -> FieldError:
    return FieldError(path, INVALID, message, value)


def forbidden(path: str, message: str) -> FieldError:
    return FieldError(path, FORBIDDEN, message)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(path, DUPLICATE, "", value)


def not_supported(path: str, value: Any, supported: list[str]) -> FieldError:
    detail = "supported values: " + ", ".join(_go_quote(s) for s in supported) if supported else ""
    return FieldError(path, NOT_SUPPORTED, detail, value)


def too_many(path: str, actual: int, limit: int) -> FieldError:
    return FieldError(path, TOO_MANY, f"must have at most {limit} items", actual)


def aggregate_text(errors: list[FieldError]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message plain, several as ``[a, b]``."""
    texts = []
    for err in errors:
        text = str(err)
        if text not in texts:
            texts.append(text)
    if len(texts) == 1:
        return texts[0]
    return "[" + ", ".join(texts) + "]"


def kubectl_invalid_message(kind: str, name: str, errors: list[FieldError]) -> str:
    """The text the API server returns for an invalid object (``StatusReasonInvalid``), as kubectl shows it."""
    header = f'{kind} "{name}" is invalid'
    if len(errors) == 1:
        return f"The {header}: {errors[0]}"
    return f"The {header}: \n" + "\n".join(f"* {e}" for e in errors)
