"""What `kyverno-test` prints: text like `kyverno test`, JSON, or JUnit XML; and its exit status."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator.cli import junit
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, SKIPPED, Row
from evaluator.cli.located import located
from evaluator.project_tests import summary_json


@dataclass
class FileReport:
    path: str
    rows: list[Row] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """PASS only when every row was evaluated and matched and every file loaded."""
        if self.problems or any(r.status == ERROR for r in self.rows):
            return "ERROR"
        if any(r.status == FAILED for r in self.rows):
            return "FAIL"
        if any(r.status == SKIPPED for r in self.rows):
            return "INCOMPLETE"
        return "PASS" if self.rows else "EMPTY"

    @property
    def passed(self) -> bool:
        """Nothing in it failed: a file that declares no results passes, as `kyverno test` skips it."""
        return self.verdict in ("PASS", "EMPTY")

    def as_dict(self) -> dict[str, Any]:
        rows = [asdict(r) for r in self.rows]
        return {"path": self.path, "verdict": self.verdict, "problems": self.problems, "rows": rows}


def counts(reports: list[FileReport]) -> dict[str, int]:
    rows = [r for rep in reports for r in rep.rows]
    return {
        "files": len(reports),
        "results": len(rows),
        "passed": sum(r.ok for r in rows),
        "excluded": sum(r.status == EXCLUDED for r in rows),
        "failed": sum(r.status == FAILED for r in rows),
        "skipped": sum(r.status == SKIPPED for r in rows),
        "errors": sum(r.status == ERROR for r in rows),
        "fileErrors": sum(len(rep.problems) for rep in reports),
    }


def _mark(row: Row) -> str:
    if row.status == OK:
        return "Ok"
    if row.status == EXCLUDED:
        return f"Excluded ({row.message})"
    if row.status == SKIPPED:
        return f"Skipped: {row.message}"
    if row.status == ERROR:
        return f"Error: {row.message[:300]}"
    return f"Want {row.expected}, got {row.actual}" + (f" -- {row.message[:200]}" if row.message else "")


def text(reports: list[FileReport]) -> str:
    lines = []
    for rep in reports:
        lines.append(f"{rep.verdict} {rep.path}")
        lines.extend(f"  {located(p)}" for p in rep.problems)
        for i, r in enumerate(rep.rows, 1):
            target = f"{r.kind}/{r.resource}" if r.kind else r.resource
            lines.append(f"  {i:3d} {r.policy} / {r.rule or '-'} / {target}: {_mark(r)}")
    c = counts(reports)
    lines.append(
        f"Test Summary: {c['passed']} out of {c['results']} results passed"
        f" ({c['excluded']} excluded), {c['failed']} failed, {c['skipped']} skipped (not evaluated),"
        f" {c['errors']} errors; {c['fileErrors']} file errors"
    )
    return "\n".join(lines)


def as_json(reports: list[FileReport]) -> str:
    return summary_json(counts(reports), "files", [rep.as_dict() for rep in reports])


def as_junit(reports: list[FileReport]) -> str:
    suites = []
    for rep in reports:
        cases = [junit.Case(located(p), rep.path, "error", str(p.get("message", "")), located(p)) for p in rep.problems]
        for r in rep.rows:
            name = f"{r.policy} / {r.rule or '-'} / {r.kind}/{r.resource}"
            status = {OK: "passed", EXCLUDED: "passed", FAILED: "failure", SKIPPED: "skipped", ERROR: "error"}[r.status]
            message = r.message if r.status != FAILED else f"want {r.expected}, got {r.actual}"
            cases.append(junit.Case(name, rep.path, status, message, r.message))
        suites.append((rep.path, cases))
    return junit.document(suites)


def exit_status(reports: list[FileReport]) -> int:
    """0 when every file passed (or declared no results); 1 when a row failed, errored or was not evaluated, or a
    file broke."""
    return 0 if reports and all(rep.passed for rep in reports) else 1
