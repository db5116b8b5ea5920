"""What the teacher needs to know about a student's documents at a glance: do they compile, and where is
the first error. Pure functions of the engine's evaluation (no Django), so worker processes can run them.

Each error gets a `key` (its class and its location) so the dashboard can group the same mistake made by
several students: the location is the field path (stable across students whose line numbers differ) or,
without one, the line; the class is the message's first line without positions and quoted values.
"""

from __future__ import annotations

import re
from collections import defaultdict

MAX_ERRORS = 5
_POSITION = re.compile(r"(ERROR: )?<input>:\d+:\d+: ")
_QUOTED = re.compile(r"""['"`].*""")


def error_class(message: str) -> str:
    """'compilation failed: Syntax error: mismatched input' from a cel-go message, 'invalid YAML: …' etc."""
    first = _POSITION.sub("", (message or "").splitlines()[0] if message else "")
    return _QUOTED.sub("", first).strip(" :")[:120] or "error"


def diagnose(documents: list[dict], general_errors: list[dict]) -> dict:
    """{compiles, errors: [{document, line, column, path, class, message, key}] (first few, in order)}."""
    errors = []
    for doc in documents:
        for error in doc.get("errors") or []:
            if error.get("severity", "error") != "error":
                continue
            errors.append(_summary(doc.get("name") or "", error))
    errors += [_summary("", error) for error in general_errors or []]
    return {"compiles": not errors, "errors": errors[:MAX_ERRORS]}


def _summary(document: str, error: dict) -> dict:
    message = str(error.get("message") or "")
    location = error.get("path") or (f"line {error['line']}" if error.get("line") else "")
    kind = error_class(message)
    return {
        "document": document,
        "line": error.get("line"),
        "column": error.get("column"),
        "path": error.get("path"),
        "class": kind,
        "message": message.splitlines()[0][:300] if message else "",
        "location": location,
        "key": f"{kind}|{document}|{location}",
    }


def first_error_line(errors: list[dict]) -> str:
    """'policy:18:40: compilation failed: …' — the line the dashboard shows."""
    if not errors:
        return ""
    error = errors[0]
    where = ":".join(str(part) for part in (error["document"], error.get("line"), error.get("column")) if part)
    return f"{where}: {error['message']}" if where else error["message"]


def common_errors(rows: list[tuple[str, list[dict]]], limit: int = 5) -> list[dict]:
    """Group (student name, errors) by error key: the most common mistakes right now, most students first."""
    groups: dict[str, dict] = {}
    students: dict[str, list[str]] = defaultdict(list)
    for name, errors in rows:
        for error in {e["key"]: e for e in errors or []}.values():  # one student counts once per mistake
            groups.setdefault(
                error["key"],
                {
                    "key": error["key"],
                    "class": error["class"],
                    "document": error["document"],
                    "location": error["location"],
                    "example": error["message"],
                },
            )
            students[error["key"]].append(name)
    ranked = sorted(groups.values(), key=lambda g: (-len(students[g["key"]]), g["key"]))
    return [
        {**group, "count": len(students[group["key"]]), "students": students[group["key"]]} for group in ranked[:limit]
    ]
