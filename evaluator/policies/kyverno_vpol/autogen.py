"""Pod-controller autogen for ValidatingPolicies (pkg/cel/policies/vpol/autogen, pkg/cel/autogen).

A policy whose matchConstraints are exactly one rule on core v1 `pods` (no objectSelector labels, no
excludes, no resourceNames) also runs as variants: `defaults` for DaemonSet/Deployment/Job/ReplicaSet/
StatefulSet and `cronjobs` for CronJob. Each variant's matchConstraints list the controllers (with the pod
rule's operations and namespaceSelector), and every `object.spec`/`object.metadata` (and `oldObject.`)
in the spec's text is rewritten to the pod template's path, except `object.metadata.namespace`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from .spec import autogen_controllers

# controller resource -> (replacement set, group, version, kind)
CONTROLLERS = {
    "daemonsets": ("defaults", "apps", "v1", "DaemonSet"),
    "deployments": ("defaults", "apps", "v1", "Deployment"),
    "replicasets": ("defaults", "apps", "v1", "ReplicaSet"),
    "statefulsets": ("defaults", "apps", "v1", "StatefulSet"),
    "jobs": ("defaults", "batch", "v1", "Job"),
    "cronjobs": ("cronjobs", "batch", "v1", "CronJob"),
}
REPLACEMENTS = {
    "defaults": (("spec", "spec.template.spec"), ("metadata", "spec.template.metadata")),
    "cronjobs": (
        ("spec", "spec.jobTemplate.spec.template.spec"),
        ("metadata", "spec.jobTemplate.spec.template.metadata"),
    ),
}
_PROTECTED = (".namespace",)


def _selector_set(selector: Any) -> bool:
    return isinstance(selector, Mapping) and bool(selector.get("matchLabels") or selector.get("matchExpressions"))


def can_autogen(constraints: Any) -> bool:
    if not isinstance(constraints, Mapping):
        return False
    if _selector_set(constraints.get("objectSelector")) or constraints.get("excludeResourceRules"):
        return False
    rules = constraints.get("resourceRules")
    if not isinstance(rules, list) or len(rules) != 1 or not isinstance(rules[0], Mapping):
        return False
    rule = rules[0]
    return (
        not rule.get("resourceNames")
        and rule.get("apiGroups") == [""]
        and rule.get("apiVersions") == ["v1"]
        and rule.get("resources") == ["pods"]
    )


def _is_identifier_char(ch: str) -> bool:
    return ch == "_" or ch.isascii() and ch.isalnum()


def _replace(text: str, old: str, new: str) -> str:
    out, start = [], 0
    while True:
        at = text.find(old, start)
        if at < 0:
            break
        rest = text[at + len(old) :]
        protected = any(
            rest.startswith(p) and (len(rest) == len(p) or not _is_identifier_char(rest[len(p)])) for p in _PROTECTED
        )
        out.append(text[start:at])
        out.append(old if protected else new)
        start = at + len(old)
    out.append(text[start:])
    return "".join(out)


def rewrite(text: str, config: str) -> str:
    for old, new in REPLACEMENTS[config]:
        text = _replace(text, "object." + old, "object." + new)
        text = _replace(text, "oldObject." + old, "oldObject." + new)
    return text


def _rewrite_all(value: Any, config: str) -> Any:
    if isinstance(value, str):
        return rewrite(value, config)
    if isinstance(value, list):
        return [_rewrite_all(v, config) for v in value]
    if isinstance(value, Mapping):
        return {k: _rewrite_all(v, config) for k, v in value.items()}
    return value


def match_constraints_for(
    targets: list[tuple[str, str, str, str]], operations: Any, namespace_selector: Any
) -> dict | None:
    if not targets or not operations:
        return None
    by_gv: dict[tuple[str, str], set[str]] = {}
    for group, version, resource, _kind in targets:
        by_gv.setdefault((group, version), set()).add(resource)
    rules = [
        {"apiGroups": [g], "apiVersions": [v], "resources": sorted(r), "operations": list(operations)}
        for (g, v), r in sorted(by_gv.items())
    ]
    constraints: dict[str, Any] = {"resourceRules": rules}
    if namespace_selector is not None:
        constraints["namespaceSelector"] = copy.deepcopy(namespace_selector)
    return constraints


def variants(
    spec: Mapping[str, Any], rewrite: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The autogen variants of a spec: [{"config", "targets": [{group, version, resource, kind}], "spec"}];
    `rewrite(spec, config)` moves its expressions to the controller (a ValidatingPolicy's by default)."""
    constraints = spec.get("matchConstraints")
    if not can_autogen(constraints):
        return []
    wanted = autogen_controllers(spec)
    names = set(CONTROLLERS) if wanted is None else set(wanted)
    grouped: dict[str, list[tuple[str, str, str, str]]] = {}
    for name in names:
        if name in CONTROLLERS:
            config, group, version, kind = CONTROLLERS[name]
            grouped.setdefault(config, []).append((group, version, name, kind))
    out = []
    for config in sorted(grouped):
        targets = sorted(grouped[config])
        new_spec = copy.deepcopy(dict(spec))
        operations = constraints["resourceRules"][0].get("operations")
        mc = match_constraints_for(targets, operations, constraints.get("namespaceSelector"))
        if mc is None:
            new_spec.pop("matchConstraints", None)
        else:
            new_spec["matchConstraints"] = mc
        new_spec = (rewrite or _rewrite_all)(new_spec, config)
        out.append(
            {
                "config": config,
                "spec": new_spec,
                "targets": [{"group": g, "version": v, "resource": r, "kind": k} for g, v, r, k in targets],
            }
        )
    return out
