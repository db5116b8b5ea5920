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


class FreeType(Type):
    """A type variable nothing has bound yet: the element of `[]`, the `T` of `optional.none()`.

    cel-go's checker gives such expressions a fresh type variable that later unification binds (so
    `[[], [1]]` is `list(list(int))`) and that the final substitution turns into `dyn`. It prints and
    behaves as `dyn` everywhere except in `join` and `assignable`, where it takes the other side's type.
    """

    def __init__(self) -> None:
        super().__init__("dyn")


DYN = Type("dyn")
FREE = FreeType()
INT, UINT, DOUBLE, BOOL, STRING, BYTES = (Type(n) for n in ("int", "uint", "double", "bool", "string", "bytes"))
NULL = Type("null_type")
TIMESTAMP = Type("google.protobuf.Timestamp")
DURATION = Type("google.protobuf.Duration")


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
    """Whether a value of static type `arg` may be passed where `param` is declared (binding type params).

    A type parameter bound before keeps the more general of its substitution and the new argument
    (cel-go's isValidTypeSubstitution and mostGeneral), so `(bool, A, A)` takes `(bool, int, dyn)` as dyn.
    """
    if param.name == "dyn" or (arg.name == "dyn" and not param.is_param):
        return True
    if param.is_param:
        return _bind_param(param.name, arg, bindings)
    if arg.is_param:
        return True
    if (param.name == "null_type" or arg.name == "null_type") and _null_pair(param, arg):
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


def _bind_param(name: str, arg: Type, bindings: dict[str, Type]) -> bool:
    bound = bindings.get(name)
    if bound is None or bound.is_param or type(bound) is FreeType:
        bindings[name] = arg
        return True
    if type(arg) is FreeType:
        return True
    joined = join(bound, arg)
    if joined is None:
        return False
    bindings[name] = joined
    return True


def _null_pair(a: Type, b: Type) -> bool:
    """With one of `a` and `b` the null type: whether the other may hold null too."""
    other = b if a.name == "null_type" else a
    return other.name == "null_type" or legacy_nullable(other)


CONSTRUCTED_ROOTS = frozenset({"Object", "JSONPatch"})


def legacy_nullable(t: Type) -> bool:
    """cel-go's checker lets `null` stand for a struct, opaque, timestamp or duration value (isLegacyNullable)."""
    if getattr(t, "is_struct", False) or t.name in (
        "google.protobuf.Timestamp",
        "google.protobuf.Duration",
        "any",
        "optional_type",
    ):
        return True
    if t.name.split(".", 1)[0] in CONSTRUCTED_ROOTS and not t.params:
        return True  # the mutating environment's object types (`Object`, `Object.spec`, `JSONPatch`)
    last = t.name.rsplit(".", 1)[-1]
    return not t.params and not t.is_param and "." in t.name and any(c.isupper() for c in last)


def substitute(t: Type, bindings: Mapping[str, Type]) -> Type:
    """`t` with its type parameters replaced; an unbound one stays free (cel-go: typeParamToDyn=false)."""
    if t.is_param:
        return bindings.get(t.name, FREE)
    if not t.params:
        return t
    return Type(t.name, tuple(substitute(p, bindings) for p in t.params))


def join(a: Type, b: Type) -> Type | None:
    """The common type of two values one expression may yield, or None when neither is assignable to the other.

    cel-go's joinTypes: `isAssignable(a, b)` then `mostGeneral(a, b)`. A free type variable takes the other
    side's type; `dyn` wins over anything (`[1, dyn(2)]` is `list(dyn)`); `null` joins only a type that
    may be null (struct, opaque such as optional, timestamp, duration), and then the later type wins, as
    mostGeneral picks its second argument when the first is not less specific.
    """
    bound = _bind(a, b)
    if bound is None:
        return None
    a, b = bound
    return a if _less_specific(a, b) else b


def _bind(a: Type, b: Type) -> tuple[Type, Type] | None:
    """`a` and `b` with each free variable replaced by its counterpart, or None when they do not unify."""
    if type(a) is FreeType:
        return b, b
    if type(b) is FreeType:
        return a, a
    if a.is_dyn or b.is_dyn:
        return a, b
    if a.name == "null_type" or b.name == "null_type":
        return (a, b) if _null_pair(a, b) else None
    if a.name != b.name:
        return None
    if not a.params or not b.params or a.name == "type":  # type values unify whatever type they denote
        return a, b
    return _bind_params(a, b)


def _bind_params(a: Type, b: Type) -> tuple[Type, Type] | None:
    if len(a.params) != len(b.params):
        return None
    pairs = [_bind(x, y) for x, y in zip(a.params, b.params)]
    if any(p is None for p in pairs):
        return None
    return (
        Type(a.name, tuple(p[0] for p in pairs)),  # type: ignore[index]
        Type(b.name, tuple(p[1] for p in pairs)),  # type: ignore[index]
    )


def _less_specific(a: Type, b: Type) -> bool:
    """cel-go's isEqualOrLessSpecific: `a` matches `b` using dyn (or type parameters)."""
    if a.is_dyn:
        return True
    if b.is_dyn:
        return False
    if a.name != b.name:
        return False
    if a.name == "type":
        return True
    return len(a.params) == len(b.params) and all(_less_specific(x, y) for x, y in zip(a.params, b.params))


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
