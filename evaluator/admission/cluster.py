"""The cluster a simulation sees: its documents indexed the way the admission plugins' informers see them.

It knows no policy kind: a kind asks for its own (policy, bindings) pairs with `hooks(policy_kind,
binding_kind)`, so every kind built on policies and bindings gets the same policy-source semantics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.k8s.kinds import ADMISSION_GROUP, APIEXTENSIONS_GROUP, CUSTOM_RESOURCE_DEFINITION, NAMESPACE
from evaluator.k8s.namespaces import Namespaces, builtin_namespaces
from evaluator.k8s.restmapping import parse_group_version


def group_version(api_version: Any) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: "" and "v1" are core; more than one slash is an error (None)."""
    return parse_group_version(api_version if isinstance(api_version, str) else "")


def metadata(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = doc.get("metadata")
    return meta if type(meta) is dict or isinstance(meta, Mapping) else {}


def name_of(doc: Mapping[str, Any]) -> str:
    return str(metadata(doc).get("name") or "")


def namespace_of(doc: Mapping[str, Any]) -> str:
    return str(metadata(doc).get("namespace") or "")


class ClusterIndex:
    """Every object by (group, kind) in document order, namespaces by name, CRDs; built once per document set."""

    def __init__(self, documents: Iterable[Mapping[str, Any]], mapper: Any = None):
        self.mapper = mapper
        self._hooks: dict[tuple[str, str, str], list[tuple[Mapping, list[Mapping]]]] = {}
        self.documents = [d for d in documents if isinstance(d, Mapping)]
        self.namespaces = Namespaces()
        self.crds: list[Mapping] = []
        self.by_group_kind: dict[tuple[str, str], list[Mapping]] = {}
        for doc in self.documents:
            gv = group_version(doc.get("apiVersion")) or ("", "")
            kind = str(doc.get("kind") or "")
            if gv == ("", "v1") and kind == NAMESPACE:
                self.namespaces.setdefault(name_of(doc), doc)
            elif gv[0] == APIEXTENSIONS_GROUP and kind == CUSTOM_RESOURCE_DEFINITION:
                self.crds.append(doc)
            self.by_group_kind.setdefault((gv[0], kind), []).append(doc)
        for name, namespace in builtin_namespaces().items():  # every cluster has them
            self.namespaces.setdefault(name, namespace)

    def hooks(
        self, policy_kind: str, binding_kind: str, group: str = ADMISSION_GROUP
    ) -> list[tuple[Mapping, list[Mapping]]]:
        """(policy, bindings) for every policy that some binding names, as the policy source builds them:
        document order, the first policy of a name wins, a policy no binding names is left out."""
        key = (group, policy_kind, binding_kind)
        found = self._hooks.get(key)
        if found is None:
            found = self._hooks[key] = self._build_hooks(
                self.objects(group, policy_kind), self.objects(group, binding_kind)
            )
        return found

    @staticmethod
    def _build_hooks(policies: list[Mapping], bindings: list[Mapping]) -> list[tuple[Mapping, list[Mapping]]]:
        by_name: dict[str, list[Mapping]] = {}
        for binding in bindings:
            by_name.setdefault(_policy_name(binding), []).append(binding)
        result = []
        seen: set[str] = set()
        for policy in policies:
            name = name_of(policy)
            if name in seen:
                continue
            seen.add(name)
            if by_name.get(name):
                result.append((policy, by_name[name]))
        return result

    def orphan_bindings(self, policy_kind: str, binding_kind: str, group: str = ADMISSION_GROUP) -> list[Mapping]:
        """Bindings whose spec.policyName names no policy of `policy_kind` (they have no effect)."""
        names = {name_of(p) for p in self.objects(group, policy_kind)}
        return [b for b in self.objects(group, binding_kind) if _policy_name(b) not in names]

    def objects(self, group: str, kind: str) -> list[Mapping]:
        return self.by_group_kind.get((group, kind), [])

    def crd_scope(self, group: str, version: str, kind: str) -> str | None:
        """The scope a CRD declares for group/kind when it serves that version."""
        for crd in self.crds:
            spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
            names = spec.get("names") if isinstance(spec.get("names"), Mapping) else {}
            if spec.get("group") != group or names.get("kind") != kind:
                continue
            versions = [v.get("name") for v in spec.get("versions") or [] if isinstance(v, Mapping)]
            if spec.get("version"):
                versions.append(spec.get("version"))
            if version in versions:
                return str(spec.get("scope") or "Namespaced")
        return None


def _policy_name(binding: Mapping[str, Any]) -> str:
    spec = binding.get("spec")
    return str((spec.get("policyName") if isinstance(spec, Mapping) else None) or "")
