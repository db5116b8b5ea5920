"""Runtime errors in a result's traces, pointed at the expression that raised them.

A trace row names its expression by role (validation #0, matchCondition "m", variable "v", ...). The
policy's document and that row's field path give its place in the user's text (error_location.py), and
a fixable error gets a hint (hints.py) next to, never inside, the Kubernetes text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from evaluator.admission.error_location import locate
from evaluator.admission.hints import hint_for


def _by_field(items: Any, field: str, value: Any) -> int | None:
    if not isinstance(items, list):
        return None
    for i, item in enumerate(items):
        if isinstance(item, Mapping) and item.get(field) == value:
            return i
    return None


def row_path(spec: Mapping[str, Any], section: str, row: Mapping[str, Any]) -> str | None:
    """The field path of the expression a trace row is about."""
    index = row.get("index")
    if section == "validations" and isinstance(index, int) and index >= 0:
        return f"spec.validations[{index}].expression"
    if section == "messageExpressions" and isinstance(index, int):
        return f"spec.validations[{index}].messageExpression"
    if section == "matchConditions":
        found = _by_field(spec.get("matchConditions"), "name", row.get("name"))
        return None if found is None else f"spec.matchConditions[{found}].expression"
    if section == "variables":
        found = _by_field(spec.get("variables"), "name", row.get("name"))
        return None if found is None else f"spec.variables[{found}].expression"
    if section == "auditAnnotations":
        found = _by_field(spec.get("auditAnnotations"), "key", row.get("key"))
        return None if found is None else f"spec.auditAnnotations[{found}].valueExpression"
    if section == "mutations" and isinstance(index, int):
        mutations = spec.get("mutations")
        item = mutations[index] if isinstance(mutations, list) and 0 <= index < len(mutations) else None
        for kind in ("applyConfiguration", "jsonPatch"):
            if isinstance(item, Mapping) and isinstance(item.get(kind), Mapping):
                return f"spec.mutations[{index}].{kind}.expression"
    return None


def needs_locating(record: Mapping[str, Any]) -> bool:
    """Whether `locate_traces` changes this record (an error of its own, or a trace row with one)."""
    trace = record.get("trace")
    if trace is None or not (type(trace) is dict or isinstance(trace, Mapping)):
        return False
    return bool(record.get("error")) or _has_error(trace)


def _has_error(trace: Mapping[str, Any]) -> bool:
    """`_error_rows` has one (written out: it runs for every record of every traced request)."""
    for rows in trace.values():
        if isinstance(rows, list):
            for row in rows:
                if isinstance(row, dict) and row.get("error"):
                    return True
    return False


def _error_rows(trace: Mapping[str, Any]) -> Iterator[tuple[str, dict]]:
    """(section, row) of every trace row with an error."""
    for section, rows in trace.items():
        if isinstance(rows, list):
            for row in rows:
                if isinstance(row, dict) and row.get("error"):
                    yield section, row


def locate_traces(policies: list[dict], find_document: Callable[[str, str], Any], kind: str) -> None:
    """Add ``location`` (document, line, column, endLine, endColumn, path) and ``hint`` to every trace row
    with an error; ``find_document(kind, name)`` gives the policy's loaded document or None. The records
    are one kind's (`kind`: its name, for records that do not say theirs)."""
    for record in policies:
        if not needs_locating(record):
            continue  # the common case: nothing to locate, no document to look up
        trace = record["trace"]
        document = find_document(record.get("kind") or kind, record.get("policy") or "")
        _locate_rows(trace, document)
        if record.get("error") and not record.get("hint"):
            _hint_from_rows(record, trace)


def _locate_rows(trace: Mapping[str, Any], document: Any) -> None:
    spec = (getattr(document, "data", None) or {}).get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    for section, row in _error_rows(trace):
        hint = hint_for(row["error"], row.get("expression"))
        if hint:
            row["hint"] = hint
        path = row_path(spec, section, row)
        if document is not None and path:
            row["location"] = {**locate(document, path, row["error"]), "path": path}


def _hint_from_rows(record: dict, trace: Mapping[str, Any]) -> None:
    """A record's error quotes a row's: that row's hint is the record's."""
    messages = [row for _, row in _error_rows(trace) if row["error"] in record["error"]]
    if messages and messages[0].get("hint"):
        record["hint"] = messages[0]["hint"]
