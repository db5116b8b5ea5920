"""Plain-text rendering of a simulation result (what `--output text` prints)."""

from __future__ import annotations

import json
from typing import Any


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _trace_lines(trace: dict | None) -> list[str]:
    if not trace:
        return []
    lines = []
    for item in trace.get("matchConditions", []):
        lines.append(f"      matchCondition {item['name']}: {_outcome(item)}")
    for item in trace.get("variables", []):
        lines.append(f"      variable {item['name']} ({item['phase']}): {_outcome(item)}")
    for item in trace.get("validations", []):
        lines.append(f"      validation[{item['index']}] {item['expression']}: {_outcome(item)}")
    for item in trace.get("messageExpressions", []):
        lines.append(f"      messageExpression[{item['index']}]: {_outcome(item)}")
    for item in trace.get("auditAnnotations", []):
        lines.append(f"      auditAnnotation {item['key']}: {_outcome(item)}")
    return lines


def _outcome(item: dict) -> str:
    if item.get("error"):
        return f"error: {item['error']}"
    if not item.get("evaluated", True):
        return "not evaluated"
    return f"{_value(item.get('value'))} ({item.get('type')}, cost {item.get('cost', 0)})"


def render_result(result: dict) -> str:
    lines: list[str] = []
    status = result.get("status") or {}
    if result.get("allowed"):
        lines.append("ALLOWED")
    else:
        # a webhook's denial has a code and no reason: "DENIED (400)"
        said = " ".join(str(part) for part in (status.get("code"), status.get("reason")) if part)
        lines.append(f"DENIED ({said})" if said else "DENIED")
        lines.append(str(status.get("message", "")))
    for warning in result.get("warnings", []):
        lines.append(f"Warning: {warning}")
    if result.get("exempt"):
        lines.append(f"exempt: {result['exempt']}")
    if result.get("policies"):
        lines.append("")
        lines.append("Policies:")
    for record in result.get("policies", []):
        binding = record["binding"] or "-"
        param = f" param {record['param']}" if record.get("param") else ""
        reason = f" ({record['skipReason']})" if record.get("skipReason") else ""
        error = f" ({record['error']})" if record.get("error") else ""
        lines.append(f"  {record['policy']} / {binding}{param}: {record['outcome']}{reason}{error}")
        lines.extend(_trace_lines(record.get("trace")))
    if result.get("auditAnnotations"):
        lines.append("")
        lines.append("Audit annotations:")
        for key, value in result["auditAnnotations"].items():
            lines.append(f"  {key}: {value}")
    lines.extend(_deletion_lines(result.get("deletions") or []))
    problems = result.get("errors", [])
    if problems:
        lines.append("")
        lines.append("Problems:")
        for problem in problems:
            where = ", ".join(
                f"{k} {problem[k]}" for k in ("source", "document", "line", "path") if problem.get(k) is not None
            )
            lines.append(
                f"  [{problem.get('severity', 'error')}] {problem.get('message')}" + (f" ({where})" if where else "")
            )
    return "\n".join(lines)


def _deletion_lines(deletions: list[dict]) -> list[str]:
    """Kyverno DeletingPolicies: each one's next run and what it would delete or keep, with the reason."""
    if not deletions:
        return []
    lines = ["", "Kyverno deletions (dry run of the next scheduled runs):"]
    for entry in deletions:
        name = f"{entry['namespace']}/{entry.get('policy')}" if entry.get("namespace") else str(entry.get("policy"))
        lines.append(f"  {name}: next run {entry.get('nextRun') or '-'} (schedule {entry.get('schedule') or '-'})")
        if entry.get("error"):
            lines.append(f"    error: {entry['error']}")
        for obj in entry.get("objects") or []:
            where = f"{obj['namespace']}/{obj['name']}" if obj.get("namespace") else obj.get("name")
            lines.append(f"    {obj.get('result')}: {obj.get('kind')} {where} ({obj.get('reason')})")
    return lines
