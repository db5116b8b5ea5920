"""Exports of a batch run: Kyverno PolicyReports (`policy_reports`) and CSV (`csv_text`).

`policy_reports(rows, documents)` gives one wgpolicyk8s.io/v1alpha2 PolicyReport per namespace
(`polr-ns-<namespace>`) and one ClusterPolicyReport (`clusterpolicyreport`) for cluster-scoped objects, the
per-namespace layout Kyverno's reports controller used before per-resource reports, in the envelope the
Kyverno package provides (`policy_kind.POLICY_REPORT`). Each policy outcome is one result: `source` `kyverno` for
ClusterPolicy/Policy rules, `KyvernoValidatingPolicy` for ValidatingPolicies, `ValidatingAdmissionPolicy`
(with the binding in `properties.binding`) for admission policies, as Kyverno reports them; `pass` for
admitted, `fail` for denied/audited, `warn` for a Kyverno `warn` result, `error`. The policies' Kyverno
annotations give `category`, `severity` and `scored`.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.admission import loading
from evaluator.batch.rows import mapping_at
from evaluator.admission.policy_kind import POLICY_REPORT, provided
from evaluator.policies import load_kinds

__all__ = ["policy_reports", "csv_text", "CSV_COLUMNS"]

_SEVERITIES = {"critical", "high", "medium", "low", "info"}
_SOURCES = {
    "ClusterPolicy": "kyverno",
    "Policy": "kyverno",
    "ValidatingPolicy": "KyvernoValidatingPolicy",
    "NamespacedValidatingPolicy": "KyvernoValidatingPolicy",
}


def _annotations(documents: Any) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(kind, namespace/name or name) -> the policy's annotations."""
    records, _ = loading.load(documents)
    out: dict[tuple[str, str], Mapping[str, Any]] = {}
    for record in records:
        key = f"{record.namespace}/{record.name}" if record.namespace else record.name
        out[(record.kind, key)] = mapping_at(mapping_at(record.data, "metadata"), "annotations")
    return out


def _result(outcome: Mapping[str, Any]) -> str:
    value = outcome["outcome"]
    if value == "warned":
        return "warn" if outcome["kind"] in ("ClusterPolicy", "Policy") else "fail"
    return {"denied": "fail", "audited": "fail", "error": "error"}.get(value, "pass")


def _entry(outcome: Mapping[str, Any], ref: dict, annotations: Mapping[str, Any], now: int) -> dict:
    kind = outcome["kind"]
    entry: dict[str, Any] = {
        "source": _SOURCES.get(kind, kind),
        "policy": outcome["policy"],
        "rule": outcome["binding"] or "",
        "message": outcome["message"] or "",
        "result": _result(outcome),
        "scored": annotations.get("policies.kyverno.io/scored") != "false",
        "resources": [ref],
        "timestamp": {"seconds": now, "nanos": 0},
    }
    if kind not in _SOURCES:  # admission policies and webhooks: Kyverno names the binding in properties
        entry["rule"] = ""
        entry["properties"] = {"binding": outcome["binding"] or ""}
    if annotations.get("policies.kyverno.io/category"):
        entry["category"] = annotations["policies.kyverno.io/category"]
    if annotations.get("policies.kyverno.io/severity") in _SEVERITIES:
        entry["severity"] = annotations["policies.kyverno.io/severity"]
    return entry


def policy_reports(rows: Iterable[Mapping[str, Any]], documents: Any, now: int | None = None) -> list[dict]:
    """The reports of `rows` (namespaces in order, the cluster report last when there is one)."""
    now = int(time.time()) if now is None else now
    annotations = _annotations(documents)
    by_namespace: dict[str, list[dict]] = {}
    for row in rows:
        ref = {"apiVersion": row["apiVersion"], "kind": row["kind"], "name": row["name"]}
        if row["namespace"]:
            ref["namespace"] = row["namespace"]
        entries = by_namespace.setdefault(row["namespace"], [])
        for outcome in row["policies"]:
            found = annotations.get((outcome["kind"], outcome["policy"]), {})
            entries.append(_entry(outcome, ref, found, now))
    load_kinds()
    report_envelope = provided(POLICY_REPORT)
    reports = [report_envelope(ns, f"polr-ns-{ns}", by_namespace[ns]) for ns in sorted(by_namespace) if ns]
    if "" in by_namespace:
        reports.append(report_envelope("", "clusterpolicyreport", by_namespace[""]))
    return reports


CSV_COLUMNS = (
    "index",
    "apiVersion",
    "kind",
    "namespace",
    "name",
    "allowed",
    "kind_of_policy",
    "policy",
    "binding",
    "outcome",
    "message",
)


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading quote (OWASP's CSV injection advice)."""
    return f"'{value}" if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def csv_text(rows: Iterable[Mapping[str, Any]]) -> str:
    """One CSV line per (object, policy outcome); an object no policy took part in has one line with empty
    policy columns, so every object appears. `message` is the policy's message, or the object's own. Text
    cells starting with `= + - @` are prefixed with `'` so a spreadsheet shows them instead of running them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        head = [
            row["index"],
            row["apiVersion"],
            row["kind"],
            row["namespace"],
            row["name"],
            str(row["allowed"]).lower(),
        ]
        if not row["policies"]:
            writer.writerow([_cell(v) for v in (*head, "", "", "", "", row["message"] or "")])
        for outcome in row["policies"]:
            cells = (
                outcome["kind"],
                outcome["policy"],
                outcome["binding"] or "",
                outcome["outcome"],
                outcome["message"],
            )
            writer.writerow([_cell(v) for v in (*head, *cells[:4], cells[4] or "")])
    return out.getvalue()
