"""The objects of a live cluster that a policy set could act on: `read_cluster` (the CLI's `batch --kubeconfig`)
and `objects_for` (the same selection over a given reader, the web app's batch jobs).

Both read through evaluator/cluster's `ClusterReader` (GET-only client, one discovery and list code path,
never Secrets: a warning says so). Which resources: those the policies match for a CREATE -- the
`resourceRules` of ValidatingAdmissionPolicies, MutatingAdmissionPolicies and Kyverno ValidatingPolicies'
`matchConstraints`, and Kyverno ClusterPolicy/Policy `match` kinds (`Pod`, `apps/v1/Deployment`, `*`) --
among the creatable top-level resources the reader discovered (one version each), or the `kinds` named.
Never raises for the cluster's answers: an unreachable server is one problem; a forbidden list, or an API group
whose discovery failed (an aggregated API answering 503), is a problem naming it and why, and the rest is read.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.admission import loading
from evaluator.admission.matching import rule_mismatch
from evaluator.batch.rows import mapping_at
from evaluator.cluster.client import Connection, ReadOnlyClient
from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import NAMESPACES, NEVER
from evaluator.cluster.reader import ClusterReader, Progress, Resource
from evaluator.k8s.restmapping import GVR
from evaluator.admission.policy_kind import KIND_SELECTOR, provided
from evaluator.policies import load_kinds

__all__ = [
    "list_objects",
    "list_namespaces",
    "matched_resources",
    "objects_for",
    "read_cluster",
    "Resource",
    "selectors_of",
]
TIMEOUT = 30  # seconds per call
DEADLINE = 3600  # seconds for the whole listing: a dump of a big cluster takes a while
_SOURCE = "cluster"


@dataclass
class Selectors:
    """What the policies match: admission resource rules and Kyverno kind selectors."""

    rules: list[Mapping[str, Any]]
    kinds: list[str]


_RULE_KINDS = (
    "ValidatingAdmissionPolicy",
    "MutatingAdmissionPolicy",
    "ValidatingPolicy",
    "NamespacedValidatingPolicy",
    "MutatingPolicy",
    "NamespacedMutatingPolicy",
)


def selectors_of(documents: Any) -> Selectors:
    records, _ = loading.load(documents)
    rules: list[Mapping[str, Any]] = []
    kinds: list[str] = []
    for record in records:
        spec = mapping_at(record.data, "spec")
        if record.kind in _RULE_KINDS:
            constraints = mapping_at(spec, "matchConstraints")
            rules += [r for r in constraints.get("resourceRules") or () if isinstance(r, Mapping)]
        elif record.kind in ("ClusterPolicy", "Policy") and record.group == "kyverno.io":
            for rule in spec.get("rules") or ():
                if isinstance(rule, Mapping):
                    kinds += list(_kyverno_kinds(rule.get("match")))
    return Selectors(rules, kinds)


def _kyverno_kinds(match: Any) -> Iterator[str]:
    if not isinstance(match, Mapping):
        return
    blocks = [match] + [b for key in ("any", "all") for b in match.get(key) or () if isinstance(b, Mapping)]
    for block in blocks:
        resources = block.get("resources")
        if not isinstance(resources, Mapping):
            continue
        operations = resources.get("operations")
        if operations and "CREATE" not in operations:
            continue
        yield from (k for k in resources.get("kinds") or () if isinstance(k, str))


def _rule_matches(rule: Mapping[str, Any], resource: Resource) -> bool:
    request = {"operation": "CREATE", "namespace": "ns" if resource.namespaced else ""}
    return rule_mismatch(rule, request, GVR(resource.group, resource.version, resource.resource)) is None


def matched_resources(discovered: list[Resource], preferred: Mapping[str, str], selectors: Selectors) -> list[Resource]:
    """The discovered resources the selectors match, one version per (group, resource)."""
    chosen: dict[tuple[str, str], Resource] = {}
    load_kinds()
    check_kind = provided(KIND_SELECTOR)
    for resource in discovered:
        gvk = (resource.group, resource.version, resource.kind)
        if not (any(_rule_matches(rule, resource) for rule in selectors.rules) or check_kind(selectors.kinds, gvk, "")):
            continue
        key = (resource.group, resource.resource)
        if key not in chosen or preferred.get(resource.group) == resource.version:
            chosen[key] = resource
    return sorted(chosen.values(), key=lambda r: (r.group, r.resource))


def _problem(message: str) -> dict:
    return {"severity": "error", "message": message, "source": _SOURCE, "document": None, "line": None}


def _reason(exc: Exception) -> str:
    """`403 Forbidden: <the Status message>` for an API answer, else what went wrong."""
    return exc.detail if isinstance(exc, ClusterError) else f"{type(exc).__name__}: {exc}"


def _open(kubeconfig_path: str, context: str | None) -> ReadOnlyClient:
    return ReadOnlyClient(Connection(kubeconfig_path, context, timeout=TIMEOUT, deadline=DEADLINE)).open()


def _served_groups(reader: ClusterReader) -> Iterator[ClusterError]:
    """One error per API group whose discovery failed: its kinds are unknown, so none of them was read."""
    for group, cause in sorted(reader.discovery_errors.items()):
        yield ClusterError(
            f"API group {group}", cause.reason, f"its discovery failed, so none of its kinds was read: {cause.detail}"
        )


def _matched(reader: ClusterReader, documents: Any) -> tuple[list[Resource], list[ClusterError]]:
    """(the served, creatable resources `documents`' policies match for a CREATE, a warning per Secret kind)."""
    served = [r for r in reader.resources() if "create" in r.verbs]
    preferred = {r.group: r.version for r in served}  # one version per resource already: the one read
    matched = matched_resources(served, preferred, selectors_of(documents))
    skipped = [
        ClusterError(r.label(), "not_allowed", "Secrets are never read", verb="list")
        for r in matched
        if r.label() in NEVER
    ]
    return [r for r in matched if r.label() not in NEVER], skipped


def objects_for(
    reader: ClusterReader,
    documents: Any,
    *,
    kinds: Iterable[str] | None = None,
    namespace: str | None = None,
    selector: str | None = None,
    cap: int,
    progress: Progress | None = None,
) -> tuple[list[dict], list[dict], list[ClusterError]]:
    """(objects, the cluster's Namespace objects, errors naming each kind (or API group) not read and why): the
    kinds `documents`' policies match, or `kinds` (as a user names them); each kind whole or not at all, `cap`
    objects in all. Raises ClusterError only when the cluster cannot be read at all (unreachable, refused
    credentials, discovery of the core API failed, out of time)."""
    errors: list[ClusterError] = []
    resources: list[Resource] = []
    if kinds is None:
        resources, errors = _matched(reader, documents)
        errors += _served_groups(reader)
    else:
        for kind in kinds:
            try:
                resources.append(reader.resolve(kind))
            except ClusterError as exc:
                errors.append(exc)
    objects: list[dict] = []
    for resource in resources:
        try:
            objects += reader.list(resource, namespace, selector, cap - len(objects), progress)
        except ClusterError as exc:
            if exc.reason == "timeout" and reader.client.remaining() <= 0:
                raise
            errors.append(exc)
    namespaces: list[dict] = []
    found = reader.find(NAMESPACES)
    if found is not None:
        try:
            namespaces = reader.list(found, cap=cap, progress=progress)
        except ClusterError as exc:
            errors.append(exc)
    return objects, namespaces, errors


def _as_problem(exc: ClusterError) -> dict:
    """A kind not read, as the CLI reports input problems; a Secret kind skipped is only a warning."""
    if exc.reason == "not_allowed":
        return {**_problem(f"not listing {exc.what}: {exc.detail}"), "severity": "warning"}
    return _problem(f"cannot list {exc.what}: {exc.detail}")


def read_cluster(
    kubeconfig_path: str,
    context: str | None = None,
    *,
    documents: Any = None,
    kinds: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> tuple[list[dict], list[dict], list[dict]]:
    """(objects, Namespace objects, problems) of the cluster `kubeconfig_path` names: what `documents`'
    policies match (or `kinds`), through evaluator/cluster's reader with no cap but time."""
    try:
        client = _open(kubeconfig_path, context)
    except ClusterError as exc:  # a missing file, an unknown context, a broken kubeconfig
        return [], [], [_problem(f"cannot use kubeconfig {kubeconfig_path}: {_reason(exc)}")]
    try:
        reader = ClusterReader(client, None)
        try:
            reader.resources()
        except ClusterError as exc:
            return [], [], [_problem(f"discovery failed: {_reason(exc)}")]
        objects, namespaces, errors = objects_for(
            reader, documents or [], kinds=kinds, cap=sys.maxsize, progress=progress
        )
    except ClusterError as exc:  # out of time, or the credentials refused midway
        return [], [], [_problem(f"cannot list {exc.what}: {exc.detail}")]
    finally:
        client.close()
    return objects, namespaces, [_as_problem(e) for e in errors]


def list_objects(
    kubeconfig_path: str,
    context: str | None = None,
    *,
    documents: Any = None,
    kinds: Iterable[str] | None = None,
) -> tuple[list[dict], list[dict]]:
    """(objects, problems): the cluster's objects of the resources `documents`' policies match (or `kinds`)."""
    objects, _, problems = read_cluster(kubeconfig_path, context, documents=documents, kinds=kinds)
    return objects, problems


def list_namespaces(kubeconfig_path: str, context: str | None = None) -> tuple[list[dict], list[dict]]:
    """(Namespace objects, problems): the cluster's namespaces, whose labels namespaceSelectors read."""
    _, namespaces, problems = read_cluster(kubeconfig_path, context, kinds=[])
    return namespaces, problems
