"""Compilation environments: which variables are declared and which options apply.

The Kubernetes environment type-checks calls against the registry, rejects mixed-type aggregate
literals and validates constant arguments; the plain environment (used for cel-spec conformance with
`disable_check`) skips all of that but keeps the same functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from evaluator.cel import versions
from evaluator.cel.registry import REGISTRY, Registry
from evaluator.cel.types import DYN, Type


@dataclass(frozen=True)
class Env:
    variables: Mapping[str, Type] = field(default_factory=dict)
    check: bool = True
    homogeneous_literals: bool = True
    # Kubernetes rejects invalid constant regexes, durations and timestamps when a policy is created.
    validate_literals: bool = True
    container: str = ""
    # Construction types (`Object{...}`, `JSONPatch{...}`) that MutatingAdmissionPolicy enables.
    object_types: frozenset[str] = frozenset()
    registry: Registry = REGISTRY
    cost_limit: int = 1_000_000
    name: str = "kubernetes"
    # The compatibility version's minor number (evaluator.cel.versions); None: every library and macro.
    version_minor: int | None = None
    optional_syntax: bool = True
    cross_type_numeric: bool = True

    def key(self) -> tuple:
        cached = self.__dict__.get("_key")
        if cached is None:
            cached = self._compute_key()
            object.__setattr__(self, "_key", cached)
        return cached

    def _compute_key(self) -> tuple:
        return (
            self.name,
            tuple(sorted((k, str(v)) for k, v in self.variables.items())),
            self.check,
            self.homogeneous_literals,
            self.validate_literals,
            self.container,
            self.object_types,
            self.cost_limit,
            id(self.registry),
            self.version_minor,
            self.optional_syntax,
            self.cross_type_numeric,
        )

    def with_variables(self, names) -> "Env":
        merged = dict(self.variables)
        for n in names:
            merged.setdefault(n, DYN)
        return replace(self, variables=merged)


ADMISSION_VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer")


def admission_env(extra: tuple[str, ...] = (), *, mutating: bool = False, version: str | None = None) -> Env:
    """The admission environment; with a Kubernetes `version` (or inside `versions.simulating`), the one its
    API server compiles new expressions in (its compatibility version's libraries and checks)."""
    names = dict.fromkeys(ADMISSION_VARIABLES + tuple(extra), DYN)
    env = Env(names, object_types=frozenset({"Object", "JSONPatch"}) if mutating else frozenset())
    return for_version(env, version if version is not None else versions.active_version())


def for_version(env: Env, version: str | None) -> Env:
    """`env` restricted to what a Kubernetes release's API server accepts in a new expression."""
    if version is None:
        return env
    gate = versions.minor(versions.environment_version(versions.parse_version(version)))
    return replace(
        env,
        registry=versions.registry_for(gate),
        version_minor=gate,
        optional_syntax=gate >= versions.OPTIONAL_SYNTAX_MINOR,
        validate_literals=env.validate_literals and gate >= versions.LITERAL_VALIDATORS_MINOR,
        cross_type_numeric=gate >= versions.CROSS_TYPE_NUMERIC_MINOR,
    )
