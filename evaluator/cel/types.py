"""Static CEL types, as the function registry declares them and the compiler infers them.

Types are parsed from cel-go-style strings (`list(string)`, `map(string, dyn)`, `optional_type(A)`);
single upper-case letters are type parameters. Runtime checks look at the outer type only, as cel-go's
dynamic dispatch does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from evaluator.cel.values import LIST_TYPES, CelType, Duration, Optional, Timestamp, UInt

# Aliases cel-go accepts for the same type.
_ALIASES = {"timestamp": "google.protobuf.Timestamp", "duration": "google.protobuf.Duration", "null": "null_type"}


@dataclass(frozen=True)
class Type:
    name: str
    params: tuple["Type", ...] = ()

    @property
    def is_param(self) -> bool:
        return len(self.name) == 1 and self.name.isupper()

    @property
    def is_dyn(self) -> bool:
        return self.name == "dyn" or self.is_param

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(str(p) for p in self.params)})"


DYN = Type("dyn")
INT, UINT, DOUBLE, BOOL, STRING, BYTES = (Type(n) for n in ("int", "uint", "double", "bool", "string", "bytes"))
NULL = Type("null_type")
TIMESTAMP = Type("google.protobuf.Timestamp")
DURATION = Type("google.protobuf.Duration")
TYPE = Type("type")


def list_of(elem: Type) -> Type:
    return Type("list", (elem,))


def map_of(key: Type, value: Type) -> Type:
    return Type("map", (key, value))


def optional_of(elem: Type) -> Type:
    return Type("optional_type", (elem,))


@lru_cache(maxsize=None)
def parse_type(text: str) -> Type:
    text = text.strip()
    if "(" not in text:
        return Type(_ALIASES.get(text, text))
    name, rest = text.split("(", 1)
    inner = rest[: rest.rindex(")")]
    return Type(name.strip(), tuple(parse_type(p) for p in split_top_level(inner)))


def split_top_level(text: str) -> list[str]:
    """The comma-separated items of `text` outside any parentheses, stripped ("" has none)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if text.strip():
        parts.append(text[start:])
    return [p.strip() for p in parts]


def assignable(param: Type, arg: Type, bindings: dict[str, Type]) -> bool:
    """Whether a value of static type `arg` may be passed where `param` is declared (binding type params)."""
    if param.name == "dyn" or (arg.name == "dyn" and not param.is_param):
        return True
    if param.is_param:
        bound = bindings.get(param.name)
        if bound is None or bound.is_param:
            bindings[param.name] = arg
            return True
        if bound.name == "dyn":  # cel-go keeps the more general substitution (mostGeneral)
            return True
        if arg.name == "dyn":
            bindings[param.name] = DYN
            return True
        return assignable(bound, arg, bindings) or assignable(arg, bound, {})
    if arg.is_param:
        return True
    if param.name == "null_type" or arg.name == "null_type":
        other = arg if param.name == "null_type" else param
        if other.name == "null_type" or legacy_nullable(other):
            return True
    if param.name == "type" and arg.name == "type":
        return True  # type values compare whatever type they denote
    if param.name != arg.name:
        return False
    if not param.params or not arg.params:
        return True
    return len(param.params) == len(arg.params) and all(
        assignable(p, a, bindings) for p, a in zip(param.params, arg.params)
    )


def legacy_nullable(t: Type) -> bool:
    """cel-go's checker lets `null` stand for a struct, opaque, timestamp or duration value (isLegacyNullable)."""
    if getattr(t, "is_struct", False) or t.name in ("google.protobuf.Timestamp", "google.protobuf.Duration", "any"):
        return True
    last = t.name.rsplit(".", 1)[-1]
    return not t.params and not t.is_param and "." in t.name and any(c.isupper() for c in last)


def substitute(t: Type, bindings: Mapping[str, Type]) -> Type:
    if t.is_param:
        return bindings.get(t.name, DYN)
    if not t.params:
        return t
    return Type(t.name, tuple(substitute(p, bindings) for p in t.params))


def join(a: Type, b: Type) -> Type | None:
    """The common type of two aggregate elements, or None when they differ (cel-go's homogeneity rule)."""
    if a == b:
        return a
    if a.is_dyn or b.is_dyn:
        return a if b.is_dyn else b
    if a.name == "null_type" or b.name == "null_type":
        return b if a.name == "null_type" else a
    if a.name == b.name and len(a.params) == len(b.params):
        params = [join(x, y) for x, y in zip(a.params, b.params)]
        if all(p is not None for p in params):
            return Type(a.name, tuple(params))  # type: ignore[arg-type]
    return None


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_map(v: Any) -> bool:
    return type(v) is dict or isinstance(v, Mapping)


_RUNTIME_CHECKS: dict[str, Callable[[Any], bool]] = {
    "int": _is_int,
    "uint": lambda v: type(v) is UInt,
    "double": lambda v: type(v) is float,
    "bool": lambda v: type(v) is bool,
    "string": lambda v: type(v) is str,
    "bytes": lambda v: type(v) is bytes,
    "null_type": lambda v: v is None,
    "list": lambda v: type(v) in LIST_TYPES,
    "map": _is_map,
    "google.protobuf.Timestamp": lambda v: type(v) is Timestamp,
    "google.protobuf.Duration": lambda v: type(v) is Duration,
    "type": lambda v: type(v) is CelType,
    "optional_type": lambda v: type(v) is Optional,
}


def _always(_: Any) -> bool:
    return True


def runtime_check(t: Type) -> Callable[[Any], bool]:
    """A predicate telling whether a runtime value belongs to the outer type `t`."""
    if t.is_dyn:
        return _always
    check = _RUNTIME_CHECKS.get(t.name)
    if check is not None:
        return check
    name = t.name
    return lambda v: getattr(type(v), "cel_type_name", None) == name
