"""The edge validator of both transports: strict DRF fields and `validated()`, which turns a serializer's
first error into the one error shape.

A REST body and a WebSocket message are checked by the same serializer classes (api/serializers.py,
api/messages.py), so a shape is defined once and a service only ever sees validated values. The fields are
strict like the JSON around them (core/edge.py): no coercion ("1" is not an integer, 1 is not a
string), text must be storable, integers fit 64 bits. Their messages name what was wanted and what came
("must be an integer, not string"); `validated()` prefixes the field's path ("documents[0].text: ...").
"""

from __future__ import annotations

import threading
from typing import Any

from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from playground.core import edge
from playground.core.errors import ServiceError

REQUIRED = "this field is required"


def _wrong(wanted: str, value: Any) -> serializers.ValidationError:
    return serializers.ValidationError(f"must be {wanted}, not {edge.json_type(value)}")


class _Strict:
    """Mixin: our wording for a missing or null value."""

    wanted = "a value"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.error_messages["required"] = REQUIRED  # type: ignore[attr-defined]
        self.error_messages["null"] = f"must be {self.wanted}, not null"  # type: ignore[attr-defined]


class Text(_Strict, serializers.CharField):
    """A string kept exactly as typed (no trimming, blank allowed) that the database can store."""

    wanted = "a string"

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)
        # `to_internal_value` refuses lone surrogates already (edge.text_problem, in C); DRF's own check walks
        # the text character by character in Python, on every edit of a document.
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitSurrogateCharactersValidator)]

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise _wrong(self.wanted, data)
        problem = edge.text_problem(data)
        if problem:
            raise serializers.ValidationError(problem)
        return data


class Integer(_Strict, serializers.IntegerField):
    """A JSON integer (not a boolean, not a numeric string) within 64 bits."""

    wanted = "an integer"

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            raise _wrong(self.wanted, data)
        if not edge.INT_MIN <= data <= edge.INT_MAX:
            raise serializers.ValidationError("integer out of the 64-bit range")
        return data


class Boolean(_Strict, serializers.BooleanField):
    """A JSON true or false (not 1, not "yes")."""

    wanted = "true or false"

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            raise _wrong(self.wanted, data)
        return data


class Target(_Strict, serializers.ChoiceField):
    """Which list of a project an item belongs to."""

    wanted = '"document" or "request"'

    def __init__(self, **kwargs):
        super().__init__(choices=["document", "request"], **kwargs)

    def to_internal_value(self, data):
        if data not in ("document", "request"):
            raise serializers.ValidationError(f"must be {self.wanted}")
        return data


class Object(_Strict, serializers.JSONField):
    """A JSON object, checked further by the service that owns its meaning."""

    wanted = "an object"
    python_type: type = dict

    def to_internal_value(self, data):
        if not isinstance(data, self.python_type):
            raise _wrong(self.wanted + (" or null" if self.allow_null else ""), data)
        return data


class Array(Object):
    """A JSON array, checked further by the service that owns its meaning."""

    wanted = "an array"
    python_type = list


_REUSED = threading.local()  # serializer class -> one instance per thread (see validated_message)


def validated_message(serializer_class: type[serializers.Serializer], data: Any, *, code: str) -> dict:
    """`validated(..., known_only=False)` with one serializer instance per class and thread, for the WebSocket
    messages (each keystroke is one): a new serializer deep-copies its declared fields, most of the ~0.17 ms
    a message took to check. `run_validation` is what `is_valid` runs; it keeps nothing of one message for
    the next."""
    if not isinstance(data, dict):
        raise ServiceError(code, "the body must be a JSON object")
    reused = _REUSED.__dict__.setdefault("serializers", {})
    serializer = reused.get(serializer_class)
    if serializer is None:
        serializer = reused[serializer_class] = serializer_class()
    try:
        return dict(serializer.run_validation(data))
    except serializers.ValidationError as exc:
        where, message = _first(exc.detail, "")
    path = where or None
    raise ServiceError(code, f"{path}: {message}" if path else message, 400, path=path)


def _first(detail: Any, path: str) -> tuple[str, str]:
    """The path and text of the first error in DRF's nested error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == "non_field_errors":
                return _first(value, path)
            if value:
                return _first(value, f"{path}.{key}" if path else str(key))
    if isinstance(detail, list):
        if detail and all(not isinstance(item, (dict, list)) for item in detail):
            return path, str(detail[0])
        for index, value in enumerate(detail):
            if value:
                return _first(value, f"{path}[{index}]" if path else f"[{index}]")
    return path, str(detail)


def validated(
    serializer_class: type[serializers.Serializer], data: Any, *, code: str = "invalid_request", known_only: bool = True
) -> dict:
    """`data` checked by the serializer: its validated values, or a ServiceError (400) naming the field.

    A REST body must be a JSON object of known fields (`known_only`); a WebSocket message may carry more
    (older and newer clients), which are dropped."""
    if not isinstance(data, dict):
        raise ServiceError(code, "the body must be a JSON object")
    serializer = serializer_class(data=data)
    unknown = sorted(set(data) - set(serializer.fields)) if known_only else []
    if unknown:
        raise edge.invalid(f"unknown field (expected {', '.join(serializer.fields)})", unknown[0], code)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    where, message = _first(serializer.errors, "")
    path = where or None
    raise ServiceError(code, f"{path}: {message}" if path else message, 400, path=path)
