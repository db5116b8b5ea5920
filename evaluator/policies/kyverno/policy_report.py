"""A wgpolicyk8s.io/v1alpha2 PolicyReport (namespaced resource) or ClusterPolicyReport built from rule
results, with the fields Kyverno's report utilities fill (pkg/utils/report/results.go)."""

from __future__ import annotations

import time

from evaluator.admission.report_results import report_result


def _result_entry(policy: dict, result: dict, rule: dict, resource_ref: dict, now: int) -> dict:
    return report_result(
        (policy.get("metadata") or {}).get("annotations") or {},
        source="kyverno",
        policy=(f"{result['namespace']}/" if result.get("namespace") else "") + result["policy"],
        rule=rule["rule"],
        message=rule["message"],
        result=rule["result"],
        resource=resource_ref,
        now=now,
    )


def policy_report(policies: list[dict], results: list[dict], request: dict, now: int | None = None) -> dict:
    """One report for the request's resource; `results` is what `evaluate` returned for `policies`."""
    now = int(time.time()) if now is None else now
    obj = request.get("object") or request.get("oldObject") or {}
    meta = obj.get("metadata") or {}
    ref = {"apiVersion": obj.get("apiVersion", ""), "kind": obj.get("kind", ""), "name": meta.get("name", "")}
    if meta.get("namespace"):
        ref["namespace"] = meta["namespace"]
    if meta.get("uid"):
        ref["uid"] = meta["uid"]
    by_name = {(p.get("metadata") or {}).get("name"): p for p in policies if isinstance(p, dict)}
    entries = [
        _result_entry(by_name.get(r["policy"], {}), r, rule, ref, now) for r in results for rule in r.get("rules", [])
    ]
    return report_for(obj, ref, entries)


def report_for(resource: dict, scope: dict, entries: list[dict]) -> dict:
    """The (Cluster)PolicyReport of one resource, as Kyverno writes it, around its result entries."""
    meta = resource.get("metadata") or {}
    name = meta.get("uid") or f"{str(resource.get('kind', '')).lower()}-{meta.get('name', '')}"
    return report_envelope(meta.get("namespace") or "", name, entries, scope)


def report_envelope(namespace: str, name: str, entries: list[dict], scope: dict | None = None) -> dict:
    """A PolicyReport (in `namespace`) or, without one, a ClusterPolicyReport named `name` holding `entries`,
    with the summary counts Kyverno keeps; `scope` is the one resource a per-resource report is about."""
    summary = {k: sum(1 for e in entries if e["result"] == k) for k in ("pass", "fail", "warn", "error", "skip")}
    report: dict = {
        "apiVersion": "wgpolicyk8s.io/v1alpha2",
        "kind": "PolicyReport" if namespace else "ClusterPolicyReport",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "kyverno"}},
    }
    if scope is not None:
        report["scope"] = scope
    report["results"] = entries
    report["summary"] = summary
    if namespace:
        report["metadata"]["namespace"] = namespace
    return report
