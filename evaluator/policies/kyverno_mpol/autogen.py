"""Pod-controller autogen for MutatingPolicies (pkg/cel/policies/mpol/autogen).

The policies that qualify are those the ValidatingPolicy autogen accepts (one rule on core v1 `pods`), and the
variants share its controller sets and matchConstraints (`kyverno_vpol.autogen`). What differs: only the
matchConditions and the ApplyConfiguration mutations are rewritten (not variables or JSONPatch mutations),
`object.spec` / `object.metadata.labels` / `object.metadata.annotations` (and `oldObject.`, `Object.`) move to
the pod template, and an expression that is an `Object{...}` literal is wrapped in the template's path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evaluator.policies.kyverno_vpol import autogen as vpol_autogen

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


def _rewrite_spec(spec: dict[str, Any], config: str) -> dict[str, Any]:
    """A variant's matchConditions and ApplyConfiguration expressions, moved to the controller's pod template
    (JSONPatch mutations and variables are left as written, as Kyverno leaves them)."""
    for condition in spec.get("matchConditions") or []:
        if isinstance(condition, dict) and isinstance(condition.get("expression"), str):
            condition["expression"] = rewrite(condition["expression"], config)
    for mutation in spec.get("mutations") or []:
        holder = mutation.get("applyConfiguration") if isinstance(mutation, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get("expression"), str) and holder["expression"]:
            holder["expression"] = rewrite(holder["expression"], config)
    return spec


def variants(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{"config", "targets": [{group, version, resource, kind}], "spec"}], one per replacement set."""
    return vpol_autogen.variants(spec, _rewrite_spec)
