"""One result of a wgpolicyk8s.io PolicyReport as Kyverno's report utilities fill it (pkg/utils/report/
results.go): the fields every Kyverno policy type writes, and the policy annotations it copies
(`policies.kyverno.io/scored`, `/category`, `/severity`), read one way for all of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCORED = "policies.kyverno.io/scored"
CATEGORY = "policies.kyverno.io/category"
SEVERITY = "policies.kyverno.io/severity"
SEVERITIES = frozenset({"critical", "high", "medium", "low", "info"})


def is_scored(annotations: Mapping[str, Any]) -> bool:
    """A policy counts towards the score unless annotated `scored: "false"`."""
    return annotations.get(SCORED) != "false"


def report_result(
    annotations: Mapping[str, Any],
    *,
    source: str,
    policy: str,
    rule: Any,
    message: Any,
    result: Any,
    resource: dict,
    now: int,
    properties: dict | None = None,
) -> dict:
    """The result entry, its keys in Kyverno's order; `properties` only when the policy type writes them."""
    entry = {"source": source, "policy": policy, "rule": rule, "message": message, "result": result}
    entry["scored"] = is_scored(annotations)
    if properties is not None:
        entry["properties"] = properties
    entry["resources"] = [resource]
    entry["timestamp"] = {"seconds": now, "nanos": 0}
    if annotations.get(CATEGORY):
        entry["category"] = annotations[CATEGORY]
    if annotations.get(SEVERITY) in SEVERITIES:
        entry["severity"] = annotations[SEVERITY]
    return entry
