"""OpenAPI v3 value validation of a custom resource (kube-openapi `validate` as the API server runs it,
errors converted by apiextensions `kubeOpenAPIResultToFieldErrors`).

Messages are kube-openapi's (`spec.size in body should be less than or equal to 10`), wrapped in the
API server's field errors: wrong types are `Invalid value: "<found type>"`, enum failures `Unsupported
value`, maxLength `Too long`, maxItems/maxProperties `Too many`, required fields `Required value`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from evaluator.cel.library.regex import compile_pattern
from evaluator.crd import structural as st
from evaluator.cel.library.stdlib import format_double
from evaluator.crd.fielderrors import FieldError
from evaluator.k8s.json_kinds import json_kind

_IN = "body"


# The OpenAPI name of each JSON kind (a float that holds an integer, as JSON decoding in Go gives it, is one).
_OPENAPI_TYPES = {
    "null": "null",
    "bool": "boolean",
    "int": "integer",
    "float": "number",
    "string": "string",
    "map": "object",
    "list": "array",
    "other": "unknown",
}


def _found_type(value: Any) -> str:
    kind = json_kind(value)
    if kind == "float" and value.is_integer() and abs(value) < 2**63:
        return "integer"
    return _OPENAPI_TYPES[kind]


def _expected_type(schema: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The type a value must have, as the error words it ("" for any), and the found types that have it."""
    if st.is_int_or_string(schema):
        return "integer,string", ("integer", "string")
    kind = st.type_of(schema)
    return kind, ("number", "integer") if kind == "number" else (kind,)


def _num(value: Any) -> str:
    if isinstance(value, float):
        return format_double(value)
    return str(value)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class OpenAPIValidator:
    def __init__(self, root_path: str | None = None):
        self.prefix = root_path or ""
        self.errors: list[FieldError] = []

    def field(self, name: str) -> str:
        if not name:
            return self.prefix
        return _join(self.prefix, name)

    def invalid(self, name: str, value: Any, message: str) -> None:
        self.errors.append(FieldError("FieldValueInvalid", self.field(name), message, value))

    def validate(self, schema: Mapping[str, Any], data: Any, name: str = "", depth: int = 0) -> None:
        if depth > 100 or not isinstance(schema, Mapping):
            return
        label = name or "."
        found = _found_type(data)
        expected, accepted = _expected_type(schema)
        if expected and found not in accepted and not (data is None and st.nullable(schema)):
            self.errors.append(
                FieldError(
                    "FieldValueTypeInvalid",
                    self.field(name),
                    f'{label} in {_IN} must be of type {expected}: "{found}"',
                    found,
                )
            )
            return
        if data is None:
            return
        self._composition(schema, data, name, depth)
        if isinstance(data, str):
            self._string(schema, data, name, label)
        elif isinstance(data, (int, float)) and not isinstance(data, bool):
            self._number(schema, data, name, label)
        self._enum(schema, data, name)
        if isinstance(data, dict):
            self._object(schema, data, name, label, depth)
        elif isinstance(data, list):
            self._array(schema, data, name, label, depth)

    def _composition(self, schema: Mapping[str, Any], data: Any, name: str, depth: int) -> None:
        for part in schema.get("allOf") or ():
            if isinstance(part, Mapping):
                self.validate(_value_only(part), data, name, depth + 1)
        shown = data if not isinstance(data, (dict, list)) else ""
        label = name or "."
        any_of = _parts(schema, "anyOf")
        if any_of and not st.is_int_or_string(schema) and not any(_holds(p, data) for p in any_of):
            self.invalid(name, shown, f"{label} in {_IN} must validate at least one schema (anyOf)")
        one_of = _parts(schema, "oneOf")
        if one_of and sum(1 for p in one_of if _holds(p, data)) != 1:
            self.invalid(name, shown, f"{label} in {_IN} must validate one and only one schema (oneOf)")
        negated = schema.get("not")
        if isinstance(negated, Mapping) and _holds(negated, data):
            self.invalid(name, shown, f"{label} in {_IN} must not validate the schema (not)")

    def _string(self, schema: Mapping[str, Any], data: str, name: str, label: str) -> None:
        length = len(data)
        max_length = schema.get("maxLength")
        if isinstance(max_length, int) and length > max_length:
            self.errors.append(
                FieldError(
                    "FieldValueTooLong",
                    self.field(name),
                    f"may not be more than {max_length} {'byte' if max_length == 1 else 'bytes'}",
                )
            )
        min_length = schema.get("minLength")
        if isinstance(min_length, int) and length < min_length:
            self.invalid(name, data, f"{label} in {_IN} should be at least {min_length} chars long")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            compiled, _ = compile_pattern(pattern)
            if compiled is not None and compiled.search(data) is None:
                self.invalid(name, data, f"{label} in {_IN} should match '{pattern}'")
        fmt = schema.get("format")
        if isinstance(fmt, str) and not _format_ok(fmt, data):
            self.invalid(name, data, f"{label} in {_IN} must be of type {fmt}: {json.dumps(data)}")

    def _number(self, schema: Mapping[str, Any], data: float, name: str, label: str) -> None:
        maximum = schema.get("maximum")
        if isinstance(maximum, (int, float)) and not isinstance(maximum, bool):
            if schema.get("exclusiveMaximum") is True and data >= maximum:
                self.invalid(name, data, f"{label} in {_IN} should be less than {_num(maximum)}")
            elif data > maximum:
                self.invalid(name, data, f"{label} in {_IN} should be less than or equal to {_num(maximum)}")
        minimum = schema.get("minimum")
        if isinstance(minimum, (int, float)) and not isinstance(minimum, bool):
            if schema.get("exclusiveMinimum") is True and data <= minimum:
                self.invalid(name, data, f"{label} in {_IN} should be greater than {_num(minimum)}")
            elif data < minimum:
                self.invalid(name, data, f"{label} in {_IN} should be greater than or equal to {_num(minimum)}")
        multiple = schema.get("multipleOf")
        if isinstance(multiple, (int, float)) and not isinstance(multiple, bool) and multiple > 0:
            quotient = data / multiple
            if not math.isclose(quotient, round(quotient), rel_tol=0, abs_tol=1e-9):
                self.invalid(name, data, f"{label} in {_IN} should be a multiple of {_num(multiple)}")

    def _enum(self, schema: Mapping[str, Any], data: Any, name: str) -> None:
        enum = schema.get("enum")
        if not isinstance(enum, list) or not enum:
            return
        if any(_json_equal(data, e) for e in enum):
            return
        shown = [e if isinstance(e, str) else json.dumps(e) for e in enum]
        self.errors.append(
            FieldError(
                "FieldValueNotSupported",
                self.field(name),
                "supported values: " + ", ".join(json.dumps(s) for s in shown),
                data,
            )
        )

    def _size(self, schema: Mapping[str, Any], count: int, name: str, label: str, noun: str) -> None:
        """maxItems/minItems or maxProperties/minProperties: the API server words both maxima as items."""
        most, least = (schema.get(key) for key in _SIZE_LIMITS[noun])
        if isinstance(most, int) and count > most:
            self.errors.append(
                FieldError(
                    "FieldValueTooMany",
                    self.field(name),
                    f"must have at most {most} {'item' if most == 1 else 'items'}",
                    count,
                )
            )
        if isinstance(least, int) and count < least:
            self.invalid(name, "", f"{label} in {_IN} should have at least {least} {noun}")

    def _object(self, schema: Mapping[str, Any], data: dict, name: str, label: str, depth: int) -> None:
        self._size(schema, len(data), name, label, "properties")
        props = st.properties(schema) or {}
        extra = st.additional_properties(schema)
        for key, value in data.items():
            if key in props:
                self.validate(st.node(props[key]), value, _join(name, key), depth + 1)
            elif extra is not None:
                self.validate(extra, value, _join(name, key), depth + 1)
        for key in schema.get("required") or ():
            if isinstance(key, str) and key not in data:
                self.errors.append(FieldError("FieldValueRequired", self.field(_join(name, key)), ""))

    def _array(self, schema: Mapping[str, Any], data: list, name: str, label: str, depth: int) -> None:
        self._size(schema, len(data), name, label, "items")
        if schema.get("uniqueItems") is True and len({json.dumps(v, sort_keys=True) for v in data}) != len(data):
            self.invalid(name, "", f"{label} in {_IN} shouldn't contain duplicates")
        items = st.items(schema)
        if items is not None:
            for i, item in enumerate(data):
                self.validate(items, item, f"{name}[{i}]", depth + 1)


_SIZE_LIMITS = {"properties": ("maxProperties", "minProperties"), "items": ("maxItems", "minItems")}


def _parts(schema: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [p for p in schema.get(key) or () if isinstance(p, Mapping)]


def _holds(part: Mapping[str, Any], data: Any) -> bool:
    """Whether data passes a part of anyOf/oneOf/not."""
    return not _errors_of(_value_only(part), data)


def _value_only(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A value-validation part of allOf/anyOf/oneOf/not, checked without its own type (a structural schema
    declares types only at the top)."""
    return {k: v for k, v in schema.items() if k not in ("x-kubernetes-validations", "description")}


def _errors_of(schema: Mapping[str, Any], data: Any) -> list[FieldError]:
    probe = OpenAPIValidator()
    probe.validate(schema, data)
    return probe.errors


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


_FORMATS = {
    "date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"),
    "uuid": re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"),
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "hostname": re.compile(
        r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
    ),
    "mac": re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$"),
    "hexcolor": re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
    "byte": re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"),
}


def _format_ok(fmt: str, value: str) -> bool:
    import ipaddress

    if fmt == "ipv4":
        try:
            return isinstance(ipaddress.ip_address(value), ipaddress.IPv4Address)
        except ValueError:
            return False
    if fmt == "ipv6":
        try:
            return isinstance(ipaddress.ip_address(value), ipaddress.IPv6Address)
        except ValueError:
            return False
    if fmt == "cidr":
        try:
            ipaddress.ip_network(value, strict=False)
            return "/" in value
        except ValueError:
            return False
    if fmt == "duration":
        from evaluator.cel.errors import CELEvalError
        from evaluator.cel.library.timeconv import parse_duration

        try:
            parse_duration(value)
            return True
        except CELEvalError:
            return False
    pattern = _FORMATS.get(fmt)
    return pattern is None or bool(pattern.match(value))


def validate_values(schema: Mapping[str, Any], data: Any, root_path: str | None = None) -> list[FieldError]:
    validator = OpenAPIValidator(root_path)
    validator.validate(schema if isinstance(schema, Mapping) else {}, data)
    return validator.errors
