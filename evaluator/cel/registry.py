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

import builtins
import sys
import threading
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

    def substitute(self, old: Overload, new: Overload) -> None:
        """Put `new` in the place of `old` among the overloads of its name."""
        overloads = self._functions[old.name]
        overloads[next(i for i, o in enumerate(overloads) if o is old)] = new

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


class LibraryRegistry(Registry):
    """The Kubernetes library's registry, whose modules are imported when a name they declare is first asked
    for (cold start: a simulation of simple policies never imports the IP, URL, format or quantity modules).

    `defer(declared_by, order, load)` gives, per function name, the modules declaring it (an overload or a
    constant validator) and their order of registration when every module is imported at once; a name's
    overloads are kept in that order whichever module was imported first, so resolution is unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self._declared_by: dict[str, tuple[str, ...]] = {}
        self._rank: dict[str, int] = {}
        self._load: Callable[[str], Any] | None = None
        self._origins: dict[int, tuple[str, int]] = {}  # id(overload) -> (declaring module, sequence)
        self._unsorted: set[str] = set()
        self._lock = threading.RLock()  # a name is asked for again while its module imports (optional.py)

    def defer(self, declared_by: dict[str, list[str]], order: list[str], load: Callable[[str], Any]) -> None:
        self._declared_by = {name: tuple(modules) for name, modules in declared_by.items()}
        self._rank = {module: rank for rank, module in enumerate(order)}
        self._load = load

    def add(
        self, signature: str, impl: Callable[..., Any], *, cost: CostFn | int | None = None, id: str | None = None
    ) -> Overload:
        overload = super().add(signature, impl, cost=cost, id=id)
        self._origins[builtins.id(overload)] = (declaring_module(), len(self._origins))
        self._unsorted.add(overload.name)
        return overload

    def substitute(self, old: Overload, new: Overload) -> None:
        super().substitute(old, new)
        self._origins[builtins.id(new)] = self._origins[builtins.id(old)]

    def _complete(self, name: str) -> None:
        with self._lock:  # another thread sees the name pending until its modules are all imported
            modules = self._declared_by.get(name)
            if modules and self._load is not None:
                for module in modules:
                    self._load(module)
            self._declared_by.pop(name, None)
            if self._unsorted:
                for touched in self._unsorted:
                    self._functions[touched].sort(key=self._position)
                self._unsorted.clear()

    def _position(self, overload: Overload) -> tuple[int, int]:
        module, sequence = self._origins[builtins.id(overload)]
        return self._rank.get(module, len(self._rank)), sequence

    def origin(self, overload: Overload) -> str:
        """The module that declared `overload` (for `library/declarations.py`)."""
        return self._origins[builtins.id(overload)][0]

    def _complete_all(self) -> None:
        for name in list(self._declared_by):
            self._complete(name)
        self._complete("")

    def overloads(self, name: str) -> list[Overload]:
        if name in self._declared_by or self._unsorted:
            self._complete(name)
        return self._functions.get(name, [])

    def __contains__(self, name: str) -> bool:
        if name in self._declared_by or self._unsorted:
            self._complete(name)
        return name in self._functions

    def names(self) -> list[str]:
        self._complete_all()
        return super().names()

    def extended(self) -> Registry:
        self._complete_all()
        return super().extended()


def declaring_module() -> str:
    """The module whose body is running (the library module declaring, even through a shared helper)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_globals.get("__name__", "") if frame is not None else ""


REGISTRY = LibraryRegistry()


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
    VALIDATOR_ORIGINS.setdefault(name, set()).add(declaring_module())


def constant_validators(name: str, member: bool) -> list[Validator]:
    if name in REGISTRY._declared_by:  # its library module may declare checks and no overload of that name
        REGISTRY._complete(name)
    return [v for v, m in _CONSTANT_VALIDATORS.get(name, []) if m is None or m == member]


VALIDATOR_ORIGINS: dict[str, set[str]] = {}  # name -> the modules declaring its constant checks
