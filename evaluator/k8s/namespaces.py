"""The namespaces a simulation can count on: the four every cluster has, and any other it is told to assume.

Every named Namespace carries the `kubernetes.io/metadata.name` label (its defaulting sets it), so a
namespace the documents do not define is assumed to exist with that one label, and `default`,
`kube-system`, `kube-public` and `kube-node-lease` exist with exactly that, unless the documents define them.
"""

from __future__ import annotations

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
