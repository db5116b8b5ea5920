"""Compilation environments: which variables are declared and which options apply.

The Kubernetes environment type-checks calls against the registry, rejects mixed-type aggregate
literals and validates constant arguments; the plain environment (used for cel-spec conformance with
`disable_check`) skips all of that but keeps the same functions.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

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

    def key(self) -> tuple:
        cached = self.__dict__.get("_key")
        if cached is None:
            cached = self._compute_key()
            object.__setattr__(self, "_key", cached)
        return cached

    def _compute_key(self) -> tuple:
        return (self.name, tuple(sorted((k, str(v)) for k, v in self.variables.items())), self.check,
                self.homogeneous_literals, self.validate_literals, self.container, self.object_types, self.cost_limit, id(self.registry))

    def with_variables(self, names) -> "Env":
        merged = dict(self.variables)
        for n in names:
            merged.setdefault(n, DYN)
        return replace(self, variables=merged)


ADMISSION_VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer")


def admission_env(extra: tuple[str, ...] = (), *, mutating: bool = False) -> Env:
    names = dict.fromkeys(ADMISSION_VARIABLES + tuple(extra), DYN)
    return Env(names, object_types=frozenset({"Object", "JSONPatch"}) if mutating else frozenset())
