"""The renderings of an impact report: text, JSON, Markdown (a pull-request comment), JUnit, CSV; and the
exit gate.

Markdown is capped (`MARKDOWN_LIMIT` bytes, under GitHub's 65,536-character comment limit): tables of the
most changed groups in collapsed `<details>`, at most `TABLE_ROWS` rows each and `CHANGE_ROWS` changed
requests, messages cut to `MESSAGE_CHARS`; what does not fit is counted ("and 12 more"). Text from the
inputs (names, messages) is escaped: no HTML of theirs reaches the comment. CSV cells a spreadsheet would
run as formulas get a leading quote (evaluator/batch/exports.py). JUnit has one test case per changed
request: a failure when the change fails the gate, an error for a new policy error, else passed.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.batch.exports import _cell
from evaluator.batch.impact.compare import CATEGORIES
from evaluator.batch.impact.run import ImpactReport
from xml.etree import ElementTree as ET

__all__ = ["FORMATS", "FAIL_ON", "render", "gate", "failing", "MARKDOWN_LIMIT", "label", "CSV_COLUMNS"]

FORMATS = ("text", "json", "markdown", "junit", "csv")
# what makes the gate fail: a newly denied request (default), also a newly warned one, any change, never
FAIL_ON = ("newlyDenied", "newlyWarned", "changed", "never")
MARKDOWN_LIMIT = 60_000
TABLE_ROWS = 20
CHANGE_ROWS = 50
MESSAGE_CHARS = 200


def is_error(problem: Mapping[str, Any]) -> bool:
    return problem.get("severity", "error") == "error"


def located(problem: Mapping[str, Any]) -> str:
    """`FILE:LINE:COLUMN: severity: message` (the form of evaluator/cli/located.py, which this layer is below)."""
    where = str(problem.get("source") or "<input>")
    if problem.get("line") is not None:
        where += f":{problem['line']}"
        if problem.get("column") is not None:
            where += f":{problem['column']}"
    elif problem.get("document") is not None:
        where += f": document {int(problem['document']) + 1}"
    return f"{where}: {problem.get('severity', 'error')}: {problem.get('text') or problem.get('message') or ''}"


_TITLES = {
    "newlyDenied": "newly denied",
    "newlyAllowed": "newly allowed",
    "newlyWarned": "newly warned",
    "newErrors": "new errors",
    "messageChanged": "changed messages",
    "newlyAudited": "newly audited",
}


def failing(change: Mapping[str, Any], fail_on: str) -> bool:
    """Whether one changed request fails the gate."""
    categories = change["categories"]
    if fail_on == "never":
        return False
    if fail_on == "changed":
        return True
    return "newlyDenied" in categories or (fail_on == "newlyWarned" and "newlyWarned" in categories)


def gate(report: ImpactReport, fail_on: str = "newlyDenied") -> int:
    """1 when the change newly denies a request (`newlyDenied`), also newly warns one (`newlyWarned`),
    changes anything (`changed`); never for `never`. Counted over every request, kept in the report or not."""
    totals = report.summary.totals
    if fail_on == "never":
        return 0
    if fail_on == "changed":
        return 1 if totals["changed"] else 0
    failed = totals["newlyDenied"] or (fail_on == "newlyWarned" and totals["newlyWarned"])
    return 1 if failed else 0


def render(report: ImpactReport, output: str, *, fail_on: str = "newlyDenied", limit: int = MARKDOWN_LIMIT) -> str:
    """The report as `output` (one of FORMATS)."""
    if output == "json":
        return json.dumps(report.as_dict(), indent=2) + "\n"
    if output == "markdown":
        return markdown(report, limit=limit)
    if output == "junit":
        return junit(report, fail_on) + "\n"
    if output == "csv":
        return csv_text(report)
    if output == "text":
        return text(report)
    raise ValueError(f"unknown output {output!r}: one of {', '.join(FORMATS)}")


def label(change: Mapping[str, Any]) -> str:
    """`UPDATE Deployment prod/web (status) by alice`."""
    name = f"{change['namespace']}/{change['name']}" if change.get("namespace") else str(change.get("name") or "")
    sub = f" ({change['subResource']})" if change.get("subResource") else ""
    user = f" by {change['user']}" if change.get("user") else ""
    dry = " [dry run]" if change.get("dryRun") else ""
    return f"{change['operation']} {change['kind']} {name}{sub}{user}{dry}".replace("  ", " ")


def _where(change: Mapping[str, Any]) -> str:
    return f"line {change['line']}" if change.get("line") is not None else f"#{change['index']}"


def _decision(side: Mapping[str, Any]) -> str:
    if side["allowed"]:
        return "allowed" + (f" with {len(side['warnings'])} warning(s)" if side["warnings"] else "")
    return f"denied: {side['message']}"


def _counts_line(totals: Mapping[str, int]) -> str:
    return ", ".join(f"{_TITLES[c]} {totals.get(c, 0):,}" for c in CATEGORIES)


def _unusable_note(report: ImpactReport) -> str | None:
    source = report.source
    if source.get("noRequestBodies"):
        return (
            f"the audit log holds no request bodies ({source.get('events', 0):,} events, none at level Request or "
            "RequestResponse): no create or update could be replayed"
            + (f" (only {source['replayed']:,} deletes, without their objects)" if source.get("replayed") else "")
            + ' -- this is not "no changes"'
        )
    return None


# --- text ---------------------------------------------------------------------------------------------


def text(report: ImpactReport) -> str:
    summary = report.summary.as_dict()
    lines = [f"{summary['changed']:,} of {summary['requests']:,} requests change: {_counts_line(summary)}"]
    note = _unusable_note(report)
    if note:
        lines.insert(0, f"NOTHING REPLAYED: {note}")
    for name in ("base", "head"):
        side = summary[name]
        lines.append(
            f"  {name}: {side['denied']:,} denied, {side['warned']:,} warned, {side['audited']:,} audited, "
            f"{side['errors']:,} with errors"
        )
    changed_policies = {k: v for k, v in summary["policies"].items() if v["changed"]}
    if changed_policies:
        lines.append("by policy:")
        for key, entry in sorted(changed_policies.items(), key=lambda kv: (-kv[1]["changed"], kv[0])):
            lines.append(f"  {key}: {_counts_line(entry)}")
    for group in ("namespaces", "kinds", "users"):
        changed = {k: v for k, v in summary[group].items() if v["changed"]}
        if changed:
            lines.append(f"by {group[:-1]} (changed of requests):")
            for key, entry in sorted(changed.items(), key=lambda kv: (-kv[1]["changed"], kv[0])):
                shown = key or ("(cluster-scoped)" if group == "namespaces" else "(none)")
                lines.append(f"  {shown}: {entry['changed']:,} of {entry['requests']:,}: {_counts_line(entry)}")
    lines += _source_lines(report.source)
    if report.changes:
        lines.append("changed requests:")
    for change in report.changes:
        lines.append(f"  {_where(change)}: {label(change)}: {', '.join(change['categories'])}")
        lines.append(f"    base: {_decision(change['base'])}")
        lines.append(f"    head: {_decision(change['head'])}")
        for note in change.get("notes") or ():
            lines.append(f"    note: {note}")
    if report.changes_omitted:
        lines.append(f"  ... and {report.changes_omitted:,} more changed requests (counted above, not listed)")
    return "\n".join(lines) + "\n"


def _source_lines(source: Mapping[str, Any]) -> list[str]:
    if not source:
        return []
    lines = []
    if "events" in source:
        lines.append(
            f"audit log: {source.get('events', 0):,} events, {source.get('replayed', 0):,} replayed, "
            f"{sum((source.get('skipped') or {}).values()):,} skipped, {source.get('malformed', 0):,} malformed lines"
        )
        for reason, count in sorted((source.get("skipped") or {}).items(), key=lambda kv: -kv[1]):
            lines.append(f"  skipped {count:,}: {reason}")
        for resource in source.get("unknownResources") or ():
            lines.append(f"  unknown resource {resource['resource']} (first at line {resource['line']})")
        if source.get("missingOldObjects"):
            lines.append(f"  {source['missingOldObjects']:,} updates/deletes replayed without their old object")
    return lines


# --- Markdown -----------------------------------------------------------------------------------------


def _md(value: Any, limit: int = MESSAGE_CHARS) -> str:
    """Text of the inputs as one Markdown table cell: one line (a Kyverno message's indented lines read as
    single spaces), cut, HTML-escaped, pipes neutralised."""
    text = "" if value is None else " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = html.escape(text, quote=False).replace("|", "\\|")
    return text.replace("`", "'")


def _table(title: str, rows: list[tuple[str, Mapping[str, Any]]], first: str, open_: bool = False) -> list[str]:
    if not rows:
        return []
    shown = rows[:TABLE_ROWS]
    out = [f"<details{' open' if open_ else ''}><summary>{title} ({len(rows):,})</summary>", ""]
    out.append(f"| {first} | changed | " + " | ".join(_TITLES[c] for c in CATEGORIES) + " |")
    out.append("|" + " --- |" * (len(CATEGORIES) + 2))
    for key, entry in shown:
        out.append(
            f"| {_md(key, 120)} | {entry['changed']:,} | " + " | ".join(f"{entry[c]:,}" for c in CATEGORIES) + " |"
        )
    if len(rows) > len(shown):
        out.append("")
        out.append(f"… and {len(rows) - len(shown):,} more")
    out += ["", "</details>", ""]
    return out


def _ranked(groups: Mapping[str, Mapping[str, Any]], empty: str) -> list[tuple[str, Mapping[str, Any]]]:
    changed = [(k or empty, v) for k, v in groups.items() if v["changed"]]
    return sorted(changed, key=lambda kv: (-kv[1]["newlyDenied"], -kv[1]["changed"], kv[0]))


def _change_rows(changes: Sequence[Mapping[str, Any]], count: int) -> list[str]:
    out = ["| where | request | change | base | head |", "| --- | --- | --- | --- | --- |"]
    for change in changes[:count]:
        out.append(
            f"| {_where(change)} | {_md(label(change), 160)} | {', '.join(_TITLES.get(c, c) for c in change['categories'])}"
            f" | {_md(_decision(change['base']))} | {_md(_decision(change['head']))} |"
        )
    return out


def markdown(report: ImpactReport, *, limit: int = MARKDOWN_LIMIT) -> str:
    """A pull-request comment under `limit` bytes (UTF-8): fewer changed requests are listed until it fits."""
    count = min(CHANGE_ROWS, len(report.changes))
    while True:
        text = _markdown(report, count)
        if len(text.encode()) <= limit or count == 0:
            break
        count = count // 2
    if len(text.encode()) > limit:  # the tables alone are too long (a tiny limit): cut, and say so
        text = text.encode()[: max(0, limit - 64)].decode(errors="ignore") + "\n\n… (cut to fit)\n"
    return text


def _markdown(report: ImpactReport, change_rows: int) -> str:
    summary = report.summary.as_dict()
    out = [f"### Policy change impact: {summary['changed']:,} of {summary['requests']:,} requests change", ""]
    note = _unusable_note(report)
    if note:
        out += [f"> **Nothing replayed:** {_md(note, 400)}", ""]
    out.append(
        f"**{summary['newlyDenied']:,} newly denied** · "
        + " · ".join(f"{summary[c]:,} {_TITLES[c]}" for c in CATEGORIES[1:])
    )
    out += ["", "| | base | head |", "| --- | --- | --- |"]
    for key in ("denied", "warned", "audited", "errors"):
        out.append(f"| {key} | {summary['base'][key]:,} | {summary['head'][key]:,} |")
    out.append("")
    policies = [(k, v) for k, v in summary["policies"].items() if v["changed"]]
    policies.sort(key=lambda kv: (-kv[1]["newlyDenied"], -kv[1]["changed"], kv[0]))
    out += _table("By policy", policies, "policy", open_=True)
    out += _table("By namespace", _ranked(summary["namespaces"], "(cluster-scoped)"), "namespace")
    out += _table("By kind", _ranked(summary["kinds"], "(unknown)"), "kind")
    out += _table("By user", _ranked(summary["users"], "(none)"), "user")
    if report.changes:
        total = summary["changed"]
        out += [
            f"<details><summary>Changed requests (first {min(change_rows, len(report.changes)):,} of {total:,})</summary>",
            "",
        ]
        out += _change_rows(report.changes, change_rows)
        out += ["", "</details>", ""]
    source = _source_lines(report.source)
    problems = [p for p in report.input_errors if is_error(p)]
    if source or problems:
        out += ["<details><summary>Input</summary>", ""]
        out += [f"- {_md(line.strip(), 300)}" for line in source[: TABLE_ROWS + 2]]
        out += [f"- {_md(located(p), 300)}" for p in problems[:TABLE_ROWS]]
        if len(problems) > TABLE_ROWS:
            out.append(f"- … and {len(problems) - TABLE_ROWS:,} more input problems")
        out += ["", "</details>", ""]
    return "\n".join(out)


# --- JUnit, CSV -------------------------------------------------------------------------------------


def junit(report: ImpactReport, fail_on: str = "newlyDenied") -> str:
    """One <testsuite>: an <error> case per input error, then one case per changed request."""
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name="admission-playground impact")
    counts = {"tests": 0, "failures": 0, "errors": 0}

    def case(name: str, classname: str, tag: str | None = None, message: str = "", detail: str = "") -> None:
        element = ET.SubElement(suite, "testcase", name=name, classname=classname)
        counts["tests"] += 1
        if tag is not None:
            counts["failures" if tag == "failure" else "errors"] += 1
            child = ET.SubElement(element, tag, message=message)
            child.text = detail or None

    for problem in report.input_errors:
        if is_error(problem):
            case(located(problem), "input", "error", str(problem.get("message") or ""), located(problem))
    for change in report.changes:
        name = f"{_where(change)}: {label(change)}"
        classname = change["kind"] or "request"
        detail = f"base: {_decision(change['base'])}\nhead: {_decision(change['head'])}"
        categories = ", ".join(change["categories"])
        if failing(change, fail_on):
            case(name, classname, "failure", categories, detail)
        elif "newErrors" in change["categories"]:
            case(name, classname, "error", categories, detail)
        else:
            case(name, classname)
    for element in (suite, root):
        for key, value in counts.items():
            element.set(key, str(value))
    suite.set("skipped", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


CSV_COLUMNS = (
    "index",
    "line",
    "time",
    "operation",
    "subResource",
    "apiVersion",
    "kind",
    "namespace",
    "name",
    "user",
    "dryRun",
    "categories",
    "changedPolicies",
    "baseAllowed",
    "baseMessage",
    "baseWarnings",
    "headAllowed",
    "headMessage",
    "headWarnings",
)


def csv_text(report: ImpactReport) -> str:
    """One line per changed request (warnings joined with newlines inside their cell)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for c in report.changes:
        base, head = c["base"], c["head"]
        cells = (
            c["index"],
            "" if c.get("line") is None else c["line"],
            c.get("time") or "",
            c["operation"],
            c["subResource"],
            c["apiVersion"],
            c["kind"],
            c["namespace"],
            c["name"],
            c["user"],
            str(c["dryRun"]).lower(),
            " ".join(c["categories"]),
            " ".join(c["changedPolicies"]),
            str(base["allowed"]).lower(),
            base["message"] or "",
            "\n".join(base["warnings"]),
            str(head["allowed"]).lower(),
            head["message"] or "",
            "\n".join(head["warnings"]),
        )
        writer.writerow([_cell(v) for v in cells])
    return out.getvalue()
