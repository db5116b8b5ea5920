"""`field.Error` as the CRD validator reports it: Go's ErrorType name, the field path and the exact text.

The API server prints a bad value with `%v` for numbers and booleans and `%q` for strings; rules on
objects and arrays omit the value (`field.OmitValueType`), so the text reads `root: Invalid value: <detail>`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evaluator.cel.library.stdlib import format_double

OMIT = object()

_TYPE_TEXT = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
    "InternalError": "Internal error",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "FieldValueTypeInvalid": "Invalid value",
}
_NO_VALUE = {"FieldValueRequired", "FieldValueForbidden", "InternalError", "FieldValueTooLong"}


def go_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_double(value)  # Go's %v of a float64 is what cel-go's string(double) prints
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class FieldError:
    type: str
    field: str
    detail: str = ""
    value: Any = OMIT

    @property
    def text(self) -> str:
        body = _TYPE_TEXT.get(self.type, self.type)
        if self.type not in _NO_VALUE and self.value is not OMIT:
            body += ": " + go_value(self.value)
        if self.detail:
            body += ": " + self.detail
        return f"{self.field}: {body}" if self.field else body

    def to_dict(self) -> dict:
        return {"type": self.type, "field": self.field, "detail": self.detail, "text": self.text}


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, detail, value)


def for_reason(path: str, value: Any, detail: str, reason: str | None) -> FieldError:
    """fieldErrorForReason: the rule's `reason` picks the error type (Invalid when unset or unknown)."""
    if reason == "FieldValueForbidden":
        return FieldError("FieldValueForbidden", path, detail)
    if reason == "FieldValueRequired":
        return FieldError("FieldValueRequired", path, detail)
    if reason == "FieldValueDuplicate":
        return FieldError("FieldValueDuplicate", path, "", value)
    return invalid(path, value, detail)
