"""Which kinds the API server type-checks a policy against (typechecking.go `typesToCheck`, `paramsGVK`).

Per resource rule, in spec order: a group or version containing `*` skips the whole rule, resources
with `*` or `/` (sub-resources) are dropped; groups, versions and resources are sorted and every
combination is resolved to kinds. A counter, reset for each rule and counting repeats, stops
everything at the 10th resolved kind. The result is sorted by (group, version, kind).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from typing import Any

from evaluator.k8s.restmapping import GVK, GVR, RESTMapper, builtin_mapper
from evaluator.k8s.restmapping import parse_group_version as k8s_parse_group_version

MAX_TYPES_TO_CHECK = 10


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _bytewise(values: list[str]) -> list[str]:
    return sorted(values, key=lambda s: s.encode("utf-8", "surrogatepass"))


def mapper_for(documents: Sequence[Any] = ()) -> RESTMapper:
    """The built-in REST mapping plus the CustomResourceDefinitions among the documents."""
    crds = [d for d in documents if isinstance(d, Mapping) and d.get("kind") == "CustomResourceDefinition"]
    mapper = builtin_mapper()
    if crds:
        mapper, _ = mapper.with_crds(crds)
    return mapper


def kinds_for(mapper: RESTMapper, gvr: GVR) -> list[GVK]:
    """RESTMapper.KindsFor for a fully specified resource (served versions only; case-insensitive)."""
    for candidate in (gvr, GVR(gvr.group, gvr.version, gvr.resource.lower())):
        info = mapper.info(candidate)
        if info is not None and info.served:
            return [info.kind]
    return []


def types_to_check(policy: Mapping[str, Any], mapper: RESTMapper | None = None) -> list[GVK]:
    rules = _resource_rules(policy)
    if not rules:
        return []
    mapper = mapper or builtin_mapper()
    found: set[GVK] = set()
    for rule in rules:
        names = _exact_names(rule)
        if names is None:
            continue
        for count, kind in enumerate(_rule_kinds(mapper, *names), 1):
            found.add(kind)
            if count == MAX_TYPES_TO_CHECK:
                return sort_gvks(found)
    return sort_gvks(found)


def _resource_rules(policy: Mapping[str, Any]) -> list:
    spec = policy.get("spec") if isinstance(policy, Mapping) else None
    constraints = spec.get("matchConstraints") if isinstance(spec, Mapping) else None
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    return rules if isinstance(rules, list) else []


def _exact_names(rule: Any) -> tuple[list[str], list[str], list[str]] | None:
    """A rule's groups, versions and (top-level, named) resources; None when it has a wildcard group or
    version, or nothing left to resolve."""
    if not isinstance(rule, Mapping):
        return None
    groups = _strings(rule.get("apiGroups"))
    versions = _strings(rule.get("apiVersions"))
    if not groups or not versions or any("*" in name for name in groups + versions):
        return None
    resources = [r for r in _strings(rule.get("resources")) if "*" not in r and "/" not in r]
    return (groups, versions, resources) if resources else None


def _rule_kinds(mapper: RESTMapper, groups: list[str], versions: list[str], resources: list[str]) -> Iterator[GVK]:
    """The non-empty kinds of every combination, in bytewise order of group, version and resource."""
    for group, version, resource in product(_bytewise(groups), _bytewise(versions), _bytewise(resources)):
        for kind in kinds_for(mapper, GVR(group, version, resource)):
            if not kind.empty:
                yield kind


def sort_gvks(gvks: set[GVK] | list[GVK]) -> list[GVK]:
    return sorted(gvks, key=lambda g: (g.group.encode(), g.version.encode(), g.kind.encode()))


def parse_group_version(api_version: Any) -> tuple[str, str] | None:
    """apimachinery's ParseGroupVersion: "" and "/" are empty, "v1" is the core group, >1 "/" fails."""
    return k8s_parse_group_version(api_version) if isinstance(api_version, str) else None


def params_gvk(policy: Mapping[str, Any]) -> GVK:
    """The paramKind as a GVK; empty when unset or when its apiVersion does not parse (params undeclared)."""
    spec = policy.get("spec") if isinstance(policy, Mapping) else None
    kind = spec.get("paramKind") if isinstance(spec, Mapping) else None
    if not isinstance(kind, Mapping):
        return GVK("", "", "")
    parsed = parse_group_version(kind.get("apiVersion", ""))
    if parsed is None:
        return GVK("", "", "")
    return GVK(parsed[0], parsed[1], str(kind.get("kind") or ""))


def gvk_text(gvk: GVK) -> str:
    """schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment` (core: `/v1, Kind=Pod`)."""
    return f"{gvk.group}/{gvk.version}, Kind={gvk.kind}"
