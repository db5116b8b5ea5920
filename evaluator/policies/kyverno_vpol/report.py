"""PolicyReport results of ValidatingPolicies (pkg/utils/report/results.go ToPolicyReportResult): source
KyvernoValidatingPolicy, the policy's namespace/name key, the rule name Kyverno gives the response ("" for a
validation, "exception", ...), the `process` property from evaluation.background/admission, and
`fail` shown as `warn` when the policy is not scored."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from evaluator.admission.report_results import is_scored, report_result
from evaluator.policies.kyverno.policy_report import report_for

from . import spec as sp

SOURCE = "KyvernoValidatingPolicy"


def result_entries(policy: Mapping[str, Any], result: Mapping[str, Any], subject: dict, now: int) -> list[dict]:
    meta = policy.get("metadata") if isinstance(policy.get("metadata"), Mapping) else {}
    annotations = meta.get("annotations") or {}
    key = (f"{meta['namespace']}/" if meta.get("namespace") else "") + str(meta.get("name") or result.get("policy"))
    scored = is_scored(annotations)
    entries = []
    for rule in result.get("rules") or []:
        properties = dict(rule.get("properties") or {})
        process = sp.process(sp.spec_of(policy))
        if process:
            properties["process"] = process
        if rule.get("exceptions"):
            properties["exceptions"] = ",".join(e.rsplit("/", 1)[-1] for e in rule["exceptions"])
        status = rule["result"]
        entry = report_result(
            annotations,
            source=SOURCE,
            policy=key,
            rule=rule.get("rule", ""),
            message=rule.get("message", ""),
            result="warn" if status == "fail" and not scored else status,
            resource=subject,
            now=now,
            properties=properties,
        )
        entries.append(entry)
    return entries


def policy_report(
    policies: list[Mapping[str, Any]],
    results: list[Mapping[str, Any]],
    resource: Mapping[str, Any],
    now: int | None = None,
) -> dict:
    """One report for `resource` from `results` (as `evaluate` returns them for `policies`)."""
    now = int(time.time()) if now is None else now
    meta = resource.get("metadata") if isinstance(resource.get("metadata"), Mapping) else {}
    subject = {
        "apiVersion": resource.get("apiVersion", ""),
        "kind": resource.get("kind", ""),
        "name": meta.get("name", ""),
    }
    if meta.get("namespace"):
        subject["namespace"] = meta["namespace"]
    if meta.get("uid"):
        subject["uid"] = meta["uid"]
    by_name = {(sp.name_of(p), str(p.get("kind"))): p for p in policies if sp.is_validating_policy(p)}
    entries = []
    for result in results:
        policy = by_name.get(
            (result.get("policy"), str(result.get("kind"))), {"metadata": {"name": result.get("policy")}}
        )
        entries.extend(result_entries(policy, result, subject, now))
    return report_for(resource, subject, entries)
