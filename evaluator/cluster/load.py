"""What a "load from cluster" reads: a `Selection` (policies, CRDs, namespaces, params, objects by kind,
namespace and label selector), counted first (`count`) and then read (`load`) as whole objects, each with its
`origin` (cluster, kind, name, resourceVersion, when). A kind is read whole or not at all: a failed kind is an
error entry, the kinds before and after it still count."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import CRDS, NAMESPACES, POLICY_RESOURCES
from evaluator.cluster.reader import ClusterReader, Resource

__all__ = ["ObjectQuery", "Selection", "Step", "plan", "count", "load", "origin_of"]

_PARAM_POLICIES = (
    "validatingadmissionpolicies.admissionregistration.k8s.io",
    "mutatingadmissionpolicies.admissionregistration.k8s.io",
)


@dataclass(frozen=True)
class ObjectQuery:
    kind: str
    namespace: str | None = None
    label_selector: str | None = None


@dataclass
class Selection:
    policies: bool = False  # every supported policy, binding and exception kind the cluster serves
    crds: bool = False
    namespaces: bool = False
    params: bool = False  # the objects of the paramKinds of the cluster's admission policies
    objects: list[ObjectQuery] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.policies or self.crds or self.namespaces or self.params or self.objects)


@dataclass(frozen=True)
class Step:
    """One list call sequence: a category's resource, maybe narrowed."""

    category: str  # policies | crds | namespaces | params | objects
    resource: Resource
    namespace: str | None = None
    selector: str | None = None

    def describe(self) -> dict:
        return {
            "category": self.category,
            "kind": self.resource.kind,
            "apiVersion": self.resource.api_version,
            "resource": self.resource.label(),
            "namespace": self.namespace,
            "labelSelector": self.selector,
        }


def plan(reader: ClusterReader, selection: Selection) -> tuple[list[Step], list[ClusterError]]:
    """The list steps of a selection (kinds the cluster does not serve are skipped: Kyverno may be absent)."""
    reader.resources()  # discovery first: a cluster that cannot be read at all fails the whole load here
    steps: list[Step] = []
    errors: list[ClusterError] = []

    def served(category: str, labels: list[str]) -> None:
        for label in labels:
            try:
                resource = reader.find(label)
                if resource is None:  # not installed (Kyverno, an alpha API): nothing to load
                    continue
                reader.check_allowed(resource)
            except ClusterError as exc:
                errors.append(exc)
                continue
            steps.append(Step(category, resource))

    if selection.policies:
        served("policies", POLICY_RESOURCES)
    if selection.crds:
        served("crds", [CRDS])
    if selection.namespaces:
        served("namespaces", [NAMESPACES])
    if selection.params:
        for resource in _param_resources(reader, errors):
            steps.append(Step("params", resource))
    for query in selection.objects:
        try:
            resource = reader.resolve(query.kind)
        except ClusterError as exc:
            errors.append(exc)
            continue
        steps.append(Step("objects", resource, query.namespace or None, query.label_selector or None))
    return _unique(steps), errors


def _unique(steps: list[Step]) -> list[Step]:
    seen: set[tuple] = set()
    out = []
    for step in steps:
        key = (step.resource.label(), step.namespace, step.selector)
        if key not in seen:
            seen.add(key)
            out.append(step)
    return out


def _param_resources(reader: ClusterReader, errors: list[ClusterError]) -> Iterator[Resource]:
    """The resources the cluster's admission policies name as `spec.paramKind`."""
    kinds: set[str] = set()
    for label in _PARAM_POLICIES:
        try:
            resource = reader.find(label)
            if resource is None:
                continue
            for policy in reader.list(resource):
                param = (policy.get("spec") or {}).get("paramKind") or {}
                if isinstance(param, dict) and param.get("apiVersion") and param.get("kind"):
                    kinds.add(f"{param['apiVersion']}/{param['kind']}")
        except ClusterError as exc:
            errors.append(exc)
    for kind in sorted(kinds):
        try:
            yield reader.resolve(kind)
        except ClusterError as exc:
            errors.append(exc)


def count(reader: ClusterReader, selection: Selection, cap: int) -> tuple[list[dict], list[ClusterError]]:
    """Per step: how many objects a load would read, before reading them."""
    steps, errors = plan(reader, selection)
    counted = []
    for step in steps:
        try:
            n, exact = reader.count(step.resource, step.namespace, step.selector, cap)
        except ClusterError as exc:
            errors.append(exc)
            continue
        counted.append({**step.describe(), "count": n, "exact": exact, "overCap": n > cap})
    return counted, errors


def load(
    reader: ClusterReader, selection: Selection, cap: int, now: dt.datetime | None = None
) -> tuple[list[tuple[dict, dict]], list[ClusterError]]:
    """((object, origin) pairs, errors); at most `cap` objects in all, a kind past it is a `too_large` error."""
    steps, errors = plan(reader, selection)
    loaded: list[tuple[dict, dict]] = []
    when = (now or dt.datetime.now(dt.timezone.utc)).isoformat(timespec="seconds")
    for step in steps:
        try:
            objects = reader.list(step.resource, step.namespace, step.selector, cap - len(loaded))
        except ClusterError as exc:
            if exc.reason == "too_large" and len(loaded):
                exc = ClusterError(
                    exc.what,
                    exc.reason,
                    f"{exc.detail} (at most {cap} objects per load, {len(loaded)} taken by the kinds before it)",
                    verb="load",
                )
            errors.append(exc)
            continue
        loaded += [(obj, origin_of(obj, step.resource, reader.client.label, when)) for obj in objects]
    return loaded, errors


def origin_of(obj: dict, resource: Resource, cluster: str, when: str) -> dict[str, Any]:
    """Where a loaded object came from: enough to read it again (refresh) and to say how old it is."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {
        "cluster": cluster,
        "apiVersion": resource.api_version,
        "kind": resource.kind,
        "resource": resource.label(),
        "namespace": meta.get("namespace") if resource.namespaced else None,
        "name": meta.get("name"),
        "resourceVersion": meta.get("resourceVersion"),
        "loadedAt": when,
    }
