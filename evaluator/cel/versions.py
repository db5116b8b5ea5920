"""Which CEL libraries, macros and checks a Kubernetes release has (apiserver's cel/environment/base.go).

The API server compiles a *new* expression (a policy being created or changed) against the environment of
its compatibility version, the release before its own, and evaluates *stored* ones with every library it
knows. A simulation creates its policies, so `environment_version("1.31")` is 1.30: an expression that
uses the format library (1.31) is refused by a 1.31 server, exactly as `undeclared reference to ...`.

Gates (IntroducedVersion in base.go): 1.28 optional types (functions, `.?`/`[?` syntax, optMap/optFlatMap),
Quantity, cross-type numeric comparisons; 1.29 ext.Strings v2 (`format`, `strings.quote`), ext.Sets, the
literal validators (regex, duration, timestamp); 1.30 IP and CIDR; 1.31 format library, authorizer field
and label selectors; 1.32 two-variable comprehensions and transformList/Map/MapEntry; 1.33 semver; 1.34
ext.Lists v3 (slice, flatten, distinct, reverse, sort, sortBy, lists.range); 1.37 Kubernetes lists v1
(`includes`). Releases before 1.28 are not offered (ValidatingAdmissionPolicy was alpha).
"""

from __future__ import annotations

import contextvars
import functools
import re

from evaluator.cel.registry import REGISTRY, Overload, Registry

OLDEST_MINOR, NEWEST_MINOR = 28, 37
SUPPORTED_VERSIONS = tuple(f"1.{minor}" for minor in range(OLDEST_MINOR, NEWEST_MINOR + 1))
NEWEST = SUPPORTED_VERSIONS[-1]
_CANONICAL = frozenset(SUPPORTED_VERSIONS)

_MODULE_GATES = {"optional": 28, "quantity": 28, "sets": 29, "ip": 30, "cidr": 30, "format": 31, "semver": 33}
_NAME_GATES = {
    ("strings", "format"): 29,
    ("strings", "strings.quote"): 29,
    ("authz", "fieldSelector"): 31,
    ("authz", "labelSelector"): 31,
    **{
        ("lists", name): 34
        for name in ("slice", "flatten", "distinct", "reverse", "sort", "@sortByAssociatedKeys", "lists.range")
    },
    ("lists", "includes"): 37,
    # Unversioned in base.go but new in the cel-go a release ships: optional types v2 came with cel-go v0.22
    # (Kubernetes 1.32), usable in new expressions of a 1.32 server (compatibility 1.31) already.
    **{("optional", name): 31 for name in ("first", "last", "optional.unwrap", "unwrapOpt")},
}
# (macro name, argument count) -> minor version; counted as cel-go's parser counts them (receiver excluded).
MACRO_GATES = {
    ("optMap", 2): 28,
    ("optFlatMap", 2): 28,
    # Two-variable comprehensions (cel-go's ext.TwoVarComprehensions) came with Kubernetes 1.32.
    **{(name, 3): 32 for name in ("all", "exists", "existsOne", "exists_one")},
    **{(name, n): 32 for name in ("transformList", "transformMap", "transformMapEntry") for n in (3, 4)},
    ("sortBy", 2): 34,
}
OPTIONAL_SYNTAX_MINOR = 28
LITERAL_VALIDATORS_MINOR = 29
CROSS_TYPE_NUMERIC_MINOR = 28

_VERSION = re.compile(r"v?1\.(\d+)(?:\.\d+)?")
_active: contextvars.ContextVar[str | None] = contextvars.ContextVar("kubernetes_version", default=None)


def parse_version(version: object) -> str:
    """ "1.31", "v1.31" or "1.31.2" as "1.31"; ValueError naming the supported range otherwise."""
    if type(version) is str and version in _CANONICAL:  # already parsed (every request re-enters simulating)
        return version
    match = _VERSION.fullmatch(str(version).strip()) if isinstance(version, str) else None
    if match is None or not OLDEST_MINOR <= int(match.group(1)) <= NEWEST_MINOR:
        raise ValueError(
            f"unsupported Kubernetes version {version!r}: supported are {SUPPORTED_VERSIONS[0]} to {NEWEST}"
        )
    return f"1.{int(match.group(1))}"


def minor(version: str) -> int:
    return int(version.split(".")[1])


def environment_version(version: str) -> str:
    """The compatibility version new expressions are compiled against: the release before `version`."""
    return f"1.{max(minor(version) - 1, OLDEST_MINOR - 1)}"


def active_version() -> str | None:
    """The Kubernetes release being simulated (None: every library, as for stored expressions)."""
    return _active.get()


class simulating:  # noqa: N801 - used as a function: `with simulating(version):`
    """Compile CEL as a `version` API server compiles new expressions, inside the block. A class rather than
    a generator-based context manager: every simulated request enters it."""

    __slots__ = ("_version", "_token")

    def __init__(self, version: str | None):
        self._version = parse_version(version) if version is not None else None

    def __enter__(self) -> None:
        self._token = _active.set(self._version)

    def __exit__(self, *exc: object) -> None:
        _active.reset(self._token)


def _introduced(overload: Overload) -> int:
    module = (getattr(overload.impl, "__module__", None) or "").rsplit(".", 1)[-1]
    return _NAME_GATES.get((module, overload.name), _MODULE_GATES.get(module, 0))


class _GatedRegistry(Registry):
    """REGISTRY's overloads that a compatibility version has, each name filtered when first asked for (so a
    name's library module is imported only then, as REGISTRY does)."""

    def __init__(self, environment_minor: int) -> None:
        super().__init__()
        self._minor = environment_minor
        self._asked: set[str] = set()

    def overloads(self, name: str) -> list[Overload]:
        if name not in self._asked:
            kept = [o for o in REGISTRY.overloads(name) if _introduced(o) <= self._minor]
            if kept:
                self._functions[name] = kept
            self._asked.add(name)
        return self._functions.get(name, [])

    def __contains__(self, name: str) -> bool:
        return bool(self.overloads(name))

    def names(self) -> list[str]:
        return [name for name in REGISTRY.names() if self.overloads(name)]

    def extended(self) -> Registry:
        self.names()
        return super().extended()


@functools.lru_cache(maxsize=None)
def registry_for(environment_minor: int) -> Registry:
    """The function registry of a compatibility version: overloads introduced later are left out."""
    return _GatedRegistry(environment_minor)


def macro_available(name: str, nargs: int, environment_minor: int | None) -> bool:
    return environment_minor is None or MACRO_GATES.get((name, nargs), 0) <= environment_minor
