"""The cluster a simulation sees: its documents indexed the way the admission plugin's informers see them."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.k8s.namespaces import builtin_namespaces

from evaluator.k8s.restmapping import parse_group_version

VAP_KIND = "ValidatingAdmissionPolicy"
VAPB_KIND = "ValidatingAdmissionPolicyBinding"
ADMISSION_GROUP = "admissionregistration.k8s.io"


def group_version(api_version: Any) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: "" and "v1" are core; more than one slash is an error (None)."""
    return parse_group_version(api_version if isinstance(api_version, str) else "")


def metadata(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = doc.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def name_of(doc: Mapping[str, Any]) -> str:
    return str(metadata(doc).get("name") or "")


def namespace_of(doc: Mapping[str, Any]) -> str:
    return str(metadata(doc).get("namespace") or "")


class ClusterIndex:
    """Policies and bindings in document order, namespaces by name, every object by (group, kind)."""

    def __init__(self, documents: Iterable[Mapping[str, Any]], mapper: Any = None):
        self.mapper = mapper
        self._hooks: list | None = None
        self.documents = [d for d in documents if isinstance(d, Mapping)]
        self.policies: list[Mapping] = []
        self.bindings: list[Mapping] = []
        self.namespaces: dict[str, Mapping] = {}
        self.crds: list[Mapping] = []
        self.by_group_kind: dict[tuple[str, str], list[Mapping]] = {}
        for doc in self.documents:
            gv = group_version(doc.get("apiVersion")) or ("", "")
            kind = str(doc.get("kind") or "")
            if gv[0] == ADMISSION_GROUP and kind == VAP_KIND:
                self.policies.append(doc)
            elif gv[0] == ADMISSION_GROUP and kind == VAPB_KIND:
                self.bindings.append(doc)
            elif gv == ("", "v1") and kind == "Namespace":
                self.namespaces.setdefault(name_of(doc), doc)
            elif gv[0] == "apiextensions.k8s.io" and kind == "CustomResourceDefinition":
                self.crds.append(doc)
            self.by_group_kind.setdefault((gv[0], kind), []).append(doc)
        for name, namespace in builtin_namespaces().items():  # every cluster has them
            self.namespaces.setdefault(name, namespace)

    def bindings_for(self, policy_name: str) -> list[Mapping]:
        return [b for b in self.bindings if str((b.get("spec") or {}).get("policyName") or "") == policy_name]

    def hooks(self) -> list[tuple[Mapping, list[Mapping]]]:
        """(policy, bindings) for every policy that some binding names, as the policy source builds them."""
        if self._hooks is None:
            self._hooks = self._build_hooks()
        return self._hooks

    def _build_hooks(self) -> list[tuple[Mapping, list[Mapping]]]:
        result = []
        seen: set[str] = set()
        for policy in self.policies:
            name = name_of(policy)
            if name in seen:
                continue
            seen.add(name)
            bindings = self.bindings_for(name)
            if bindings:
                result.append((policy, bindings))
        return result

    def orphan_bindings(self) -> list[Mapping]:
        names = {name_of(p) for p in self.policies}
        return [b for b in self.bindings if str((b.get("spec") or {}).get("policyName") or "") not in names]

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
