"""`list_objects(kubeconfig_path, context)`: the objects of a live cluster that a policy set could act on.

Read-only: only discovery (`GET /api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`) and `list` calls
(paginated with `limit`/`continue`) are made, through evaluator/cluster's GET-only client with the kubeconfig's
credentials. Which resources: those the policies match for a CREATE -- the `resourceRules` of
ValidatingAdmissionPolicies, MutatingAdmissionPolicies and Kyverno ValidatingPolicies' `matchConstraints`,
and Kyverno ClusterPolicy/Policy `match` kinds (`Pod`, `apps/v1/Deployment`, `*`) -- resolved against the
cluster's discovery, one version per group (the preferred one when it matches), top-level resources that
can be listed and created, never Secrets (a warning says so). `kinds` overrides that with Kyverno-style kind selectors. Listed items get their
`apiVersion`/`kind` back (a list response leaves them out) and lose `metadata.managedFields`. Never raises
for the cluster's answers: an unreachable server or a forbidden list is an error entry, the rest is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.admission import loading
from evaluator.admission.matching import rule_mismatch
from evaluator.batch.rows import mapping_at
from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import NEVER
from evaluator.k8s.restmapping import GVK, GVR
from evaluator.admission.policy_kind import KIND_SELECTOR, provided
from evaluator.policies import load_kinds

__all__ = ["list_objects", "list_namespaces", "matched_resources", "Resource", "selectors_of", "PAGE_SIZE"]

PAGE_SIZE = 500
TIMEOUT = 30  # seconds per call
DEADLINE = 3600  # seconds for the whole listing: a dump of a big cluster takes a while
_SOURCE = "cluster"


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return GVK(self.group, self.version, self.kind).api_version

    @property
    def path(self) -> str:
        return (
            f"/apis/{self.group}/{self.version}/{self.resource}"
            if self.group
            else f"/api/{self.version}/{self.resource}"
        )

    def label(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


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


class _Cluster:
    """The few GET calls made, through the one read-only client (evaluator/cluster/client.py)."""

    def __init__(self, kubeconfig_path: str, context: str | None):
        from evaluator.cluster.client import Connection, ReadOnlyClient

        self.client = ReadOnlyClient(Connection(kubeconfig_path, context, timeout=TIMEOUT, deadline=DEADLINE)).open()

    def get(self, path: str, query: list[tuple[str, Any]] | None = None) -> dict:
        """The JSON body of `GET path` (a ClusterError otherwise)."""
        return self.client.get(path, query)

    def close(self) -> None:
        self.client.close()

    def discover(self) -> tuple[list[Resource], dict[str, str]]:
        """(every listable, creatable top-level resource at every served version, group -> preferred version)."""
        preferred: dict[str, str] = {"": "v1"}
        versions = [("", v) for v in self.get("/api").get("versions") or ()]
        for group in self.get("/apis").get("groups") or ():
            name = group.get("name") or ""
            preferred[name] = (group.get("preferredVersion") or {}).get("version") or ""
            versions += [(name, v.get("version")) for v in group.get("versions") or () if v.get("version")]
        found = [resource for group, version in versions for resource in self._resources(group, version)]
        return found, preferred

    def _resources(self, group: str, version: str) -> Iterator[Resource]:
        """The listable, creatable top-level resources of one group version (no subresources)."""
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        for item in self.get(path).get("resources") or ():
            verbs = item.get("verbs") or ()
            if "/" not in item.get("name", "/") and "list" in verbs and "create" in verbs:
                yield Resource(group, version, item["name"], item.get("kind") or "", bool(item.get("namespaced")))

    def list(self, resource: Resource) -> Iterator[dict]:
        token = None
        while True:
            query: list[tuple[str, Any]] = [("limit", PAGE_SIZE)] + ([("continue", token)] if token else [])
            page = self.get(resource.path, query)
            for item in page.get("items") or ():
                if isinstance(item, dict):
                    yield _as_object(item, resource)
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return


def _as_object(item: dict, resource: Resource) -> dict:
    obj = {"apiVersion": resource.api_version, "kind": resource.kind, **item}
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        obj["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return obj


def _problem(message: str) -> dict:
    return {"severity": "error", "message": message, "source": _SOURCE, "document": None, "line": None}


def _reason(exc: Exception) -> str:
    """`403 Forbidden: <the Status message>` for an API answer, else what went wrong."""
    return exc.detail if isinstance(exc, ClusterError) else f"{type(exc).__name__}: {exc}"


def list_objects(
    kubeconfig_path: str,
    context: str | None = None,
    *,
    documents: Any = None,
    kinds: Iterable[str] | None = None,
) -> tuple[list[dict], list[dict]]:
    """(objects, errors): the cluster's objects of the resources `documents`' policies match (or `kinds`)."""
    selectors = Selectors([], list(kinds)) if kinds is not None else selectors_of(documents or [])
    try:
        cluster = _Cluster(kubeconfig_path, context)
    except Exception as exc:  # a missing file, an unknown context, a broken kubeconfig
        return [], [_problem(f"cannot use kubeconfig {kubeconfig_path}: {_reason(exc)}")]
    objects: list[dict] = []
    errors: list[dict] = []
    try:
        try:
            discovered, preferred = cluster.discover()
        except Exception as exc:
            return [], [_problem(f"discovery failed: {_reason(exc)}")]
        for resource in matched_resources(discovered, preferred, selectors):
            if resource.label() in NEVER:  # Secrets are never read, whatever the policies match
                errors.append(
                    {**_problem(f"not listing {resource.label()}: Secrets are never read"), "severity": "warning"}
                )
                continue
            try:
                objects += cluster.list(resource)
            except Exception as exc:  # forbidden for this user, gone meanwhile: the others still count
                errors.append(_problem(f"cannot list {resource.label()}: {_reason(exc)}"))
    finally:
        cluster.close()
    return objects, errors


def list_namespaces(kubeconfig_path: str, context: str | None = None) -> tuple[list[dict], list[dict]]:
    """(Namespace objects, errors): the cluster's namespaces, whose labels namespaceSelectors read."""
    try:
        cluster = _Cluster(kubeconfig_path, context)
    except Exception as exc:
        return [], [_problem(f"cannot use kubeconfig {kubeconfig_path}: {_reason(exc)}")]
    try:
        return list(cluster.list(Resource("", "v1", "namespaces", "Namespace", False))), []
    except Exception as exc:
        return [], [_problem(f"cannot list namespaces: {_reason(exc)}")]
    finally:
        cluster.close()
