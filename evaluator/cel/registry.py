"""One registry of every CEL function with its typed overloads, as cel-go declares them.

Library modules declare overloads with a signature string and the implementation:

    @function("string.startsWith(string) -> bool", cost=traversal_cost(receiver=True))
    def starts_with(s, prefix): ...

`recv.name(args) -> result` declares a member overload, `name(args) -> result` a global one.
The compiler resolves a call against these overloads by static type, then checks runtime types when
a static type was `dyn`; the type checker and the editor's completion read the same declarations.
Implementations take and return CEL values (see values.py) and raise `CELEvalError` for CEL errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from evaluator.cel.types import Type, parse_type, runtime_check, split_top_level

# A cost function receives the evaluated arguments (receiver first) and the result; returns cost units.
CostFn = Callable[[tuple, Any], int]

_BUILTIN_RECEIVERS = {
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "dyn",
    "type",
    "timestamp",
    "duration",
    "null_type",
    "optional_type",
}


def _parse_signature(signature: str) -> tuple[str | None, str, str, str]:
    """Split `recv.name(args) -> result` into (recv or None, name, args, result).

    The part before the name is a receiver type when it is a built-in type, a type parameter or an opaque
    type whose last segment has a capital (`net.IP`); otherwise it is a namespace (`sets.contains`).
    """
    left, arrow, result = signature.rpartition("->")
    if not arrow:
        raise ValueError(f"bad signature: {signature}")
    left = left.strip()
    if not left.endswith(")"):
        raise ValueError(f"bad signature: {signature}")
    depth = 0
    for i in range(len(left) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(left[i], 0)
        if depth == 0:
            break
    head, args = left[:i], left[i + 1 : -1]
    depth, split = 0, -1
    for j, ch in enumerate(head):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "." and depth == 0:
            split = j
    if split < 0:
        return None, head, args, result.strip()
    prefix, name = head[:split], head[split + 1 :]
    base = prefix.split("(")[0]
    last = base.rsplit(".", 1)[-1]
    if base in _BUILTIN_RECEIVERS or (len(base) == 1 and base.isupper()) or any(c.isupper() for c in last):
        return prefix, name, args, result.strip()
    return None, head, args, result.strip()


@dataclass(frozen=True)
class Overload:
    id: str
    name: str
    params: tuple[Type, ...]  # receiver first for member overloads
    result: Type
    member: bool
    impl: Callable[..., Any]
    cost: CostFn | int | None = None
    checks: tuple[Callable[[Any], bool], ...] = field(default=(), compare=False)

    def signature(self) -> str:
        args = ", ".join(str(p) for p in (self.params[1:] if self.member else self.params))
        prefix = f"{self.params[0]}." if self.member else ""
        return f"{prefix}{self.name}({args}) -> {self.result}"

    def accepts(self, args: tuple) -> bool:
        for check, arg in zip(self.checks, args):
            if not check(arg):
                return False
        return True


class Registry:
    def __init__(self) -> None:
        self._functions: dict[str, list[Overload]] = {}

    def add(
        self, signature: str, impl: Callable[..., Any], *, cost: CostFn | int | None = None, id: str | None = None
    ) -> Overload:
        recv, name, args, result = _parse_signature(signature)
        params = [parse_type(a) for a in split_top_level(args)]
        member = recv is not None
        if member:
            params.insert(0, parse_type(recv))
        overload = Overload(
            id=id or f"{name}_{'_'.join(str(p) for p in params)}",
            name=name,
            params=tuple(params),
            result=parse_type(result),
            member=member,
            impl=impl,
            cost=cost,
            checks=tuple(runtime_check(p) for p in params),
        )
        self._functions.setdefault(name, []).append(overload)
        return overload

    def extended(self) -> "Registry":
        """A copy to declare more overloads in (e.g. a test's own functions), leaving this one as it is."""
        copy = Registry()
        copy._functions = {name: list(overloads) for name, overloads in self._functions.items()}
        return copy

    def overloads(self, name: str) -> list[Overload]:
        return self._functions.get(name, [])

    def names(self) -> list[str]:
        return sorted(self._functions)

    def __contains__(self, name: str) -> bool:
        return name in self._functions


REGISTRY = Registry()


def function(*signatures: str, cost: CostFn | int | None = None, registry: Registry = REGISTRY):
    """Declare the decorated callable as the implementation of one or more overloads."""

    def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
        for sig in signatures:
            registry.add(sig, impl, cost=cost)
        return impl

    return decorate


class _NotConstant:
    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT = _NotConstant()
# A validator is called at compile time with the constant arguments (NOT_CONSTANT for the others, receiver
# first) and returns None, an error message, or (message, index of the argument the error points at).
Validator = Callable[[tuple], "str | tuple[str, int] | None"]
_CONSTANT_VALIDATORS: dict[str, list[tuple[Validator, bool | None]]] = {}


def constant_validator(name: str, validator: Validator, *, member: bool | None = None) -> None:
    """Register a check of constant arguments; `member` limits it to the member or the global form."""
    _CONSTANT_VALIDATORS.setdefault(name, []).append((validator, member))


def constant_validators(name: str, member: bool) -> list[Validator]:
    return [v for v, m in _CONSTANT_VALIDATORS.get(name, []) if m is None or m == member]
