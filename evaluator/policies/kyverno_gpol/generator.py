"""Kyverno's `generator` CEL library (sdk extensions/cel/libs/generator) and what the context provider does
with its calls (pkg/cel/libs: GenerateResources, FakeContextProvider for the CLI).

`generator.Apply(namespace, [objects])` (also `apply`) hands objects to be generated into `namespace`; a
`kind: List` (an object with `items`) gives each item. It returns true. A cluster-scoped object gets no
namespace; a namespaced policy may not generate one (cross-scope generation denied). An object copied from
another namespace loses its ownerReferences. Server-set metadata (uid, resourceVersion, creationTimestamp,
managedFields; the annotations too in the CLI) is dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from evaluator import cel as _cel
from evaluator.cel.errors import CELEvalError
from evaluator.policies.kyverno_vpol.libs import member


class GeneratorContext:
    """The `generator` variable of one evaluation: collects what it is asked to generate."""

    cel_type_name = "generator.Context"

    def __init__(self, policy_namespace: str, namespaced: Callable[[str, str], bool], cli: bool):
        self.policy_namespace = policy_namespace
        self.namespaced = namespaced
        self.cli = cli
        self.objects: list[dict[str, Any]] = []

    def generate(self, namespace: str, data: list[Any]) -> None:
        for entry in data:
            if not isinstance(entry, Mapping):
                raise CELEvalError(f"failed to generate resources: expected an object, got {type(entry).__name__}")
            items = entry.get("items")
            for item in items if isinstance(items, list) else [entry]:
                if isinstance(item, Mapping):
                    self._add(namespace, copy.deepcopy(dict(item)))

    def _add(self, namespace: str, item: dict[str, Any]) -> None:
        api_version, kind = str(item.get("apiVersion") or ""), str(item.get("kind") or "")
        target = namespace
        if not self.namespaced(api_version, kind):
            if namespace and self.policy_namespace:
                raise CELEvalError(
                    "failed to generate resources: cross-scope generation denied: a policy scoped to namespace "
                    f'"{namespace}" cannot generate cluster-scoped resource {api_version}/{kind}'
                )
            target = ""
        meta = item.get("metadata")
        meta = item["metadata"] = dict(meta) if isinstance(meta, Mapping) else {}
        if meta.get("namespace") and meta.get("namespace") != target and meta.get("ownerReferences") is not None:
            meta.pop("ownerReferences", None)
        for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink"):
            meta.pop(key, None)
        if self.cli:
            meta.pop("annotations", None)
        if target:
            meta["namespace"] = target
        else:
            meta.pop("namespace", None)
        self.objects.append(item)


@member("generator.Context.Apply(string, list(dyn)) -> bool")
def _apply(ctx: GeneratorContext, namespace: str, data: Any) -> bool:
    if ctx.policy_namespace and namespace and namespace != ctx.policy_namespace:
        raise CELEvalError(
            f'cross-namespace generation denied: a policy in namespace "{ctx.policy_namespace}" cannot generate '
            f'resources into namespace "{namespace}"'
        )
    ctx.generate(namespace or ctx.policy_namespace, [_cel.to_json(d) for d in data])
    return True
