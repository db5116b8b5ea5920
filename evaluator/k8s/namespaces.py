"""The namespaces a simulation can count on: the four every cluster has, and any other it is told to assume.

Every named Namespace carries the `kubernetes.io/metadata.name` label (its defaulting sets it), so a
namespace the documents do not define is assumed to exist with that one label, and `default`,
`kube-system`, `kube-public` and `kube-node-lease` exist with exactly that, unless the documents define them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.k8s.defaulting.core import METADATA_NAME_LABEL

BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def assumed_namespace(name: str) -> dict[str, Any]:
    """The Namespace object `name` as a cluster stores it when nothing more is known about it."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {METADATA_NAME_LABEL: name}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def builtin_namespaces() -> dict[str, dict[str, Any]]:
    """A fresh copy of the namespaces every cluster has, by name."""
    return {name: assumed_namespace(name) for name in BUILTIN_NAMESPACES}


class Namespaces(dict[str, Mapping[str, Any]]):
    """The namespaces of one simulation, modelled once for every policy kind and every selector.

    As a dict it holds the namespaces the documents define (and the four every cluster has): `name in
    namespaces` says whether the documents know it. Called, `namespaces(name)` answers any name: the
    defined Namespace, else the one `assumed_namespace` builds (made once per name), so a namespaceSelector,
    `namespaceObject` or Kyverno's namespace labels see the same object whether or not the documents hold it;
    an empty name (a cluster-scoped request) answers None."""

    def __init__(self) -> None:
        super().__init__()
        self._assumed: dict[str, dict[str, Any]] = {}

    def __call__(self, name: str) -> Mapping[str, Any] | None:
        if not name:
            return None
        found = self.get(name)
        if found is None:
            found = self._assumed.get(name)
            if found is None:
                found = self._assumed[name] = assumed_namespace(name)
        return found

    def labels(self, name: str) -> dict[str, Any]:
        """The labels of namespace `name` as `__call__` models it ({} for an empty name)."""
        found = self(name)
        meta = found.get("metadata") if isinstance(found, Mapping) else None
        labels = meta.get("labels") if isinstance(meta, Mapping) else None
        return dict(labels) if isinstance(labels, Mapping) else {}
