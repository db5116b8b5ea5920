"""Exports of a batch run: Kyverno PolicyReports (`write_policy_reports`, `policy_reports`) and CSV (`csv_text`).

PolicyReports are written as Kyverno's reports controller writes them today: one wgpolicyk8s.io/v1alpha2
PolicyReport per resource (a ClusterPolicyReport for a cluster-scoped one), named after the resource's uid
(`<kind>-<name>` when the object has none), with the resource as its `scope` and, when it has a uid, as its
owner; the results are sorted by policy, rule and source, as Kyverno sorts them. A report whose YAML would be
over `REPORT_LIMIT` bytes (1 MiB, under the API server's ~1.5 MiB) is split into reports `<name>-1`,
`<name>-2`, ... with the same scope, each under the limit. `write_policy_reports` writes the reports one by
one as the rows come, so a run's reports are never held together in memory. Each policy outcome is one
result: `source` `kyverno` for ClusterPolicy/Policy rules, `KyvernoValidatingPolicy` for ValidatingPolicies,
`ValidatingAdmissionPolicy` (with the binding in `properties.binding`) for admission policies, as Kyverno
reports them; `pass` for admitted, `fail` for denied/audited, `warn` for a Kyverno `warn` result, `error`. The
policies' Kyverno annotations give `category`, `severity` and `scored`.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from functools import lru_cache
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any


from evaluator.admission import loading
from evaluator.batch.rows import mapping_at
from evaluator.admission.policy_kind import POLICY_REPORT, provided
from evaluator.policies import load_kinds

__all__ = ["policy_reports", "write_policy_reports", "REPORT_LIMIT", "csv_text", "CSV_COLUMNS"]

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


def _entry(outcome: Mapping[str, Any], annotations: Mapping[str, Any], now: int) -> dict:
    kind = outcome["kind"]
    entry: dict[str, Any] = {
        "source": _SOURCES.get(kind, kind),
        "policy": outcome["policy"],
        "rule": outcome["binding"] or "",
        "message": outcome["message"] or "",
        "result": _result(outcome),
        "scored": annotations.get("policies.kyverno.io/scored") != "false",
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


REPORT_LIMIT = 1 << 20  # bytes of a report's YAML; the API server refuses objects over ~1.5 MiB


def _dump(report: dict) -> str:
    """The report as block-style YAML (what `yaml.safe_dump(report, sort_keys=False)` reads back as), written
    here for the report's plain shape: PyYAML's emitter took most of a large export's time."""
    lines: list[str] = []
    _emit_map(report, "", lines)
    lines.append("")
    return "\n".join(lines)


# a scalar written without quotes: no YAML indicator, no leading/trailing space, not a YAML 1.1 keyword or number
_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./ ()-]*[A-Za-z0-9_./)-]|[A-Za-z_/]")
_RESERVED = re.compile(r"(?i)(y|n|yes|no|true|false|on|off|null|~|\.inf|\.nan)")


def _scalar(value: Any) -> str:
    if type(value) is str:
        return _text(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return json.dumps(value)
    return _text(str(value))


@lru_cache(maxsize=1 << 16)
def _text(text: str) -> str:
    if _PLAIN.fullmatch(text) and not _RESERVED.fullmatch(text):
        return text
    # a JSON string is a YAML double-quoted scalar; characters YAML reads as breaks (NEL, LS, PS) or will not
    # take raw are escaped with the rest of the text
    return json.dumps(text, ensure_ascii=not text.isprintable())


def _emit_map(data: dict[str, Any], indent: str, lines: list[str], first: str | None = None) -> None:
    """`first`: the prefix of the first line (a list item's `- `)."""
    if not data:
        lines.append(f"{first if first is not None else indent}{{}}")
        return
    for key, value in data.items():
        head = first if first is not None else indent
        first = None
        name = _scalar(key)
        kind = type(value)
        if kind is str:
            lines.append(f"{head}{name}: {_text(value)}")
        elif kind is dict and value:
            lines.append(f"{head}{name}:")
            _emit_map(value, indent + "  ", lines)
        elif kind is list and value:
            lines.append(f"{head}{name}:")
            _emit_list(value, indent, lines)
        else:
            empty = "{}" if kind is dict else "[]" if kind is list else _scalar(value)
            lines.append(f"{head}{name}: {empty}")


def _emit_list(items: list[Any], indent: str, lines: list[str]) -> None:
    for item in items:
        if type(item) is dict:
            _emit_map(item, indent + "  ", lines, first=indent + "- ")
        elif isinstance(item, list):
            lines.append(f"{indent}- {json.dumps(item, ensure_ascii=False)}")
        else:
            lines.append(f"{indent}- {_scalar(item)}")


def _resource_reports(
    row: Mapping[str, Any], entries: list[dict], envelope: Any, limit: int
) -> Iterator[tuple[dict, str]]:
    """The row's report and its YAML, or its parts' when it is over `limit` bytes."""
    namespace = row["namespace"] or ""
    uid = row.get("uid") or ""
    name = uid or f"{str(row['kind']).lower()}-{row['name']}"
    scope = {"apiVersion": row["apiVersion"], "kind": row["kind"], "name": row["name"]}
    if namespace:
        scope["namespace"] = namespace
    if uid:
        scope["uid"] = uid
    entries.sort(key=lambda e: (e["policy"], e["rule"], e["source"]))

    def build(part_name: str, part: list[dict]) -> tuple[dict, str]:
        report = envelope(namespace, part_name, part, scope)
        if uid:
            owner = {"apiVersion": row["apiVersion"], "kind": row["kind"], "name": row["name"], "uid": uid}
            report["metadata"]["ownerReferences"] = [owner]
        return report, _dump(report)

    built = build(name, entries)
    if len(built[1].encode()) <= limit or len(entries) < 2:
        yield built
        return
    parts = [entries]
    while True:  # halve the parts until each fits
        done = [build(f"{name}-{i + 1}", part) for i, part in enumerate(parts)]
        if all(len(text.encode()) <= limit for _, text in done) or all(len(p) < 2 for p in parts):
            yield from done
            return
        parts = [half for part in parts for half in _halves(part)]


def _halves(part: list[dict]) -> list[list[dict]]:
    middle = (len(part) + 1) // 2
    return [part[:middle], part[middle:]] if len(part) > 1 else [part]


def _reports(
    rows: Iterable[Mapping[str, Any]], documents: Any, now: int | None, limit: int
) -> Iterator[tuple[dict, str]]:
    now = int(time.time()) if now is None else now
    annotations = _annotations(documents)
    load_kinds()
    envelope = provided(POLICY_REPORT)
    for row in rows:
        if not row["policies"]:
            continue
        entries = [_entry(o, annotations.get((o["kind"], o["policy"]), {}), now) for o in row["policies"]]
        yield from _resource_reports(row, entries, envelope, limit)


def write_policy_reports(
    rows: Iterable[Mapping[str, Any]], documents: Any, out: IO[str], now: int | None = None, limit: int = REPORT_LIMIT
) -> int:
    """Write the reports of `rows` to `out` as YAML documents, one by one; returns how many were written."""
    count = 0
    for _, text in _reports(rows, documents, now, limit):
        if count:
            out.write("---\n")
        out.write(text)
        count += 1
    return count


def policy_reports(
    rows: Iterable[Mapping[str, Any]], documents: Any, now: int | None = None, limit: int = REPORT_LIMIT
) -> list[dict]:
    """The reports of `rows` as data (in row order; a split report's parts in order)."""
    return [report for report, _ in _reports(rows, documents, now, limit)]


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
