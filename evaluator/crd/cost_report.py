"""Each rule's estimated cost as editor diagnostics: what the API server computes when the CRD is created
(max cost × cardinality against the per-rule limit, and the sum against the per-CRD limit), placed at the
rule so the editor can show it beside it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.crd.definition import PER_CRD_LIMIT, estimated_costs


def _schemas(crd: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    out = []
    versions = spec.get("versions")
    for i, version in enumerate(versions if isinstance(versions, list) else ()):
        schema = (version.get("schema") or {}) if isinstance(version, Mapping) else {}
        found = schema.get("openAPIV3Schema") if isinstance(schema, Mapping) else None
        if isinstance(found, Mapping):
            out.append((f"spec.versions[{i}].schema.openAPIV3Schema", found))
    top = spec.get("validation") if isinstance(spec.get("validation"), Mapping) else {}
    if isinstance(top.get("openAPIV3Schema"), Mapping):
        out.append(("spec.validation.openAPIV3Schema", top["openAPIV3Schema"]))
    return out


def _describe(rule: Mapping[str, Any]) -> str:
    cost, limit = rule["estimatedCost"], rule["limit"]
    text = f"estimated cost {cost:,}"
    if rule["cardinality"] != 1:
        text += f" ({rule['maxCost']:,} per evaluation × {rule['cardinality']:,} evaluations)"
    verdict = "within" if rule["withinBudget"] else "over"
    return f"{text}: {verdict} the per-rule limit of {limit:,}"


def cost_report(crd: Mapping[str, Any], locate: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """`{"diagnostics": [{fieldRef, message, severity: "info", estimatedCost, location}]}` for one CRD;
    `locate(path=...)` places a field of the CRD's document."""
    diagnostics: list[dict[str, Any]] = []
    for root, schema in _schemas(crd):
        try:
            rules = estimated_costs(schema, root)
        except RecursionError:
            continue
        compiled = [r for r in rules if r["maxCost"] > 0]  # 0: the rule does not compile (an error already)
        for rule in compiled:
            diagnostics.append(_diagnostic(rule["path"], _describe(rule), rule["estimatedCost"], locate))
        total = sum(r["estimatedCost"] for r in compiled)
        if len(compiled) > 1:
            verdict = "within" if total <= PER_CRD_LIMIT else "over"
            message = f"estimated cost of all rules {total:,}: {verdict} the per-CRD limit of {PER_CRD_LIMIT:,}"
            diagnostics.append(_diagnostic(root, message, total, locate))
    return {"diagnostics": diagnostics}


def _diagnostic(path: str, message: str, cost: int, locate: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    found = locate(path=path)
    place = {
        k: found[k] for k in ("document", "source", "item", "line", "column", "endLine", "endColumn") if k in found
    }
    return {"fieldRef": path, "message": message, "severity": "info", "estimatedCost": cost, "location": place}
