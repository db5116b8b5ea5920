"""Pod-controller autogen for MutatingPolicies (pkg/cel/policies/mpol/autogen).

The policies that qualify are those the ValidatingPolicy autogen accepts (one rule on core v1 `pods`), and the
variants share its controller sets and matchConstraints (`kyverno_vpol.autogen`). What differs: only the
matchConditions and the ApplyConfiguration mutations are rewritten (not variables or JSONPatch mutations),
`object.spec` / `object.metadata.labels` / `object.metadata.annotations` (and `oldObject.`, `Object.`) move to
the pod template, and an expression that is an `Object{...}` literal is wrapped in the template's path.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from evaluator.policies.kyverno_vpol.autogen import CONTROLLERS, can_autogen, match_constraints_for
from evaluator.policies.kyverno_vpol.spec import autogen_controllers

_SPEC = re.compile(r"\b(object|oldObject|Object)\.spec")
_LABELS = re.compile(r"\b(object|oldObject|Object)\.metadata\.labels")
_ANNOTATIONS = re.compile(r"\b(object|oldObject|Object)\.metadata\.annotations")
_PATHS = {
    "cronjobs": ("spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata"),
    "defaults": ("spec.template.spec", "spec.template.metadata"),
}
_WRAPPERS = {
    "cronjobs": (
        "Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{"
        "template: Object.spec.jobTemplate.spec.template{",
        "}}}}}",
    ),
    "defaults": ("Object{spec: Object.spec{template: Object.spec.template{", "}}}"),
}


def rewrite(expression: str, config: str) -> str:
    """convertPodToTemplateExpression."""
    spec_path, meta_path = _PATHS.get(config, _PATHS["defaults"])
    expression = _SPEC.sub(lambda m: f"{m.group(1)}.{spec_path}", expression)
    expression = _LABELS.sub(lambda m: f"{m.group(1)}.{meta_path}.labels", expression)
    expression = _ANNOTATIONS.sub(lambda m: f"{m.group(1)}.{meta_path}.annotations", expression)
    stripped = expression.strip()
    if not stripped.startswith("Object"):
        return expression
    content = stripped[len("Object") :].lstrip(" \t\r\n")
    if not content.startswith("{"):
        return expression
    content = content[1:]
    depth, end = 1, 0
    for i, char in enumerate(content):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
    if end <= 0:
        return expression
    opening, closing = _WRAPPERS.get(config, _WRAPPERS["defaults"])
    return opening + content[:end] + closing + content[end + 1 :]


def variants(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{"config", "targets": [{group, version, resource, kind}], "spec"}], one per replacement set."""
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
        new_spec: dict[str, Any] = copy.deepcopy(dict(spec))
        operations = constraints["resourceRules"][0].get("operations")
        matched = match_constraints_for(targets, operations, constraints.get("namespaceSelector"))
        if matched is None:
            new_spec.pop("matchConstraints", None)
        else:
            new_spec["matchConstraints"] = matched
        for condition in new_spec.get("matchConditions") or []:
            if isinstance(condition, dict) and isinstance(condition.get("expression"), str):
                condition["expression"] = rewrite(condition["expression"], config)
        for mutation in new_spec.get("mutations") or []:
            holder = mutation.get("applyConfiguration") if isinstance(mutation, dict) else None
            if isinstance(holder, dict) and isinstance(holder.get("expression"), str) and holder["expression"]:
                holder["expression"] = rewrite(holder["expression"], config)
        out.append(
            {
                "config": config,
                "spec": new_spec,
                "targets": [{"group": g, "version": v, "resource": r, "kind": k} for g, v, r, k in targets],
            }
        )
    return out
