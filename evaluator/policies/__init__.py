"""The policy kinds: one package per kind, each registering itself with the admission core.

`load_kinds()` imports every package in this folder, so a new kind is a new folder whose `__init__.py`
(directly or through a module it imports) calls `evaluator.admission.policy_kind.register`; nothing else
needs editing. The interface a kind implements is documented in `evaluator/admission/policy_kind.py`.

A package may also declare, in a `kinds.json` beside its `__init__.py`, its kinds (name, stage, order,
result_keys: what the class says) and the documents that concern them (`documents`: `kinds` and API
`groups`). A simulation then imports the package only when one of its documents is in the set
(`load_kinds(documents)`, `declared_kinds`): a command or a worker deciding ValidatingAdmissionPolicies never
imports Kyverno. Without the documents the kinds' result keys keep their defaults, as they do when a loaded
kind is idle. A package without `kinds.json` is always imported.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DECLARATION_FILE = "kinds.json"


@dataclass(frozen=True)
class Declared:
    """A policy package's kinds.json: its kinds as the core sees them before import, and its documents."""

    package: str  # e.g. "evaluator.policies.validating"
    kinds: tuple[Mapping[str, Any], ...] = ()  # name, stage, order, result_keys of each kind class
    document_kinds: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    always: bool = field(default=False)  # no kinds.json: imported for every document set

    def concerns(self, document: Any) -> bool:
        """Whether `document` is one this package reads (by kind, or by its apiVersion's group)."""
        if self.always:
            return True
        if not isinstance(document, Mapping):
            return False
        kind = document.get("kind")
        if isinstance(kind, str) and kind in self.document_kinds:
            return True
        api_version = document.get("apiVersion")
        return isinstance(api_version, str) and api_version.rpartition("/")[0] in self.groups


_declared: list[Declared] | None = None


def declared_packages() -> list[Declared]:
    """Every policy package, with what its kinds.json declares (read once)."""
    global _declared
    if _declared is None:
        found = []
        for module in pkgutil.iter_modules(__path__):
            if not module.ispkg:
                continue
            name = f"{__name__}.{module.name}"
            path = Path(__path__[0]) / module.name / DECLARATION_FILE
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                found.append(Declared(name, always=True))
                continue
            documents = data.get("documents") or {}
            found.append(
                Declared(
                    name,
                    tuple(data["kinds"]),
                    frozenset(documents.get("kinds") or ()),
                    frozenset(documents.get("groups") or ()),
                )
            )
        _declared = found
    return _declared


def concerned_packages(documents: Iterable[Any]) -> set[str]:
    """The policy packages a document set needs: those with a document of theirs, and the undeclared ones."""
    packages = declared_packages()
    needed = {p.package for p in packages if p.always}
    seen: set[tuple[Any, Any]] = set()  # what `concerns` reads: a large input repeats a few kinds
    for document in documents:
        if len(needed) == len(packages):
            break
        if not isinstance(document, Mapping):
            continue  # no package reads it (the undeclared ones are needed already)
        kind, api_version = document.get("kind"), document.get("apiVersion")
        shape = (kind if isinstance(kind, str) else None, api_version if isinstance(api_version, str) else None)
        if shape not in seen:
            seen.add(shape)
            needed |= _packages_of(shape)
    return needed


def _packages_of(shape: tuple[str | None, str | None]) -> frozenset[str]:
    """The declared packages that read documents of this (kind, apiVersion), worked out once per shape: every
    load and every request (`Simulation._widened`) asks, mostly about the same few kinds."""
    found = _BY_SHAPE.get(shape)
    if found is None:
        kind, api_version = shape
        document = {"kind": kind, "apiVersion": api_version}  # all that `concerns` reads
        found = frozenset(p.package for p in declared_packages() if not p.always and p.concerns(document))
        if len(_BY_SHAPE) >= MAX_SHAPES:  # the shapes come from user input: bounded
            _BY_SHAPE.clear()
        _BY_SHAPE[shape] = found
    return found


MAX_SHAPES = 4096
_BY_SHAPE: dict[tuple[str | None, str | None], frozenset[str]] = {}


def load_kinds(documents: Iterable[Any] | None = None) -> set[str]:
    """Import every policy package (each registers its kinds), or with `documents` only those the documents
    concern; the names of the kinds those packages declare or registered. Cheap after the first call."""
    from evaluator.admission.policy_kind import registered

    packages = declared_packages()
    wanted = {p.package for p in packages} if documents is None else concerned_packages(documents)
    for package in packages:
        if package.package in wanted:
            importlib.import_module(package.package)
    names = {kind["name"] for p in packages if p.package in wanted for kind in p.kinds}
    declared_names = {kind["name"] for p in packages for kind in p.kinds}
    return names | {kind.name for kind in registered() if kind.name not in declared_names}


def chain(wanted: set[str]) -> list[Any]:
    """One object per kind, in chain order: a new instance of each `wanted` registered kind, an idle
    stand-in (`policy_kind.Absent`: its declared name, stage, order and result keys) for every other."""
    from evaluator.admission.policy_kind import STAGES, Absent, registered

    classes = {kind.name: kind for kind in registered()}
    kinds: dict[str, Any] = {}
    for package in declared_packages():
        for declared in package.kinds:
            kinds[declared["name"]] = Absent(**declared)
    for name, kind in classes.items():
        if name in wanted or name not in kinds:
            kinds[name] = kind() if name in wanted else Absent(kind.name, kind.stage, kind.order, kind.result_keys)
    return sorted(kinds.values(), key=lambda k: (STAGES.index(k.stage), k.order, k.name))
