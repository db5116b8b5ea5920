"""Running a project's tests: every request with an expected outcome, judged with the page's verdict
(evaluator/expectations.py). Used by `admission-playground test` (evaluator/cli/test_command.py) and the
MCP server's run_tests tool."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evaluator.expectations import verdict
from evaluator.formats.bounded_yaml import FormatError
from evaluator.formats.project_files import files_under, find_project_files, read_project
from evaluator.formats.text_positions import text_positions
from evaluator.simulation import Simulation


def is_error(problem: dict) -> bool:
    return problem.get("severity", "error") == "error"


@dataclass
class Case:
    request: str
    verdict: str  # pass | fail | none | error
    message: str


@dataclass
class ProjectReport:
    path: str
    title: str = ""
    problems: list[dict] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(is_error(p) for p in self.problems) and all(c.verdict in ("pass", "none") for c in self.cases)

    def as_dict(self) -> dict[str, Any]:
        tests = [asdict(c) for c in self.cases]
        return {
            "path": self.path,
            "title": self.title,
            "passed": self.passed,
            "problems": self.problems,
            "tests": tests,
        }


def _locate(problem: dict, path: Path, names: list[str], positions: dict) -> dict:
    """The engine names texts `<text N>` / `request` with lines inside the text: make them file lines."""
    source = str(problem.get("source") or "")
    key = None
    if source.startswith("<text ") and source[6:-1].isdigit():
        key = ("documents", int(source[6:-1]))
    located_problem = {**problem, "source": str(path)}
    if key is not None and key[1] < len(names):
        located_problem["message"] = f"{names[key[1]]}: {problem.get('text') or problem.get('message')}"
        located_problem.pop("text", None)
        start = positions.get(key)
        if start and problem.get("line") is not None:
            located_problem["line"] = start[0] + int(problem["line"])
            if problem.get("column") is not None:
                located_problem["column"] = start[1] + int(problem["column"])
        elif start:
            located_problem["line"] = start[0] + 1
            located_problem.pop("column", None)
    return located_problem


BROKEN_ON_PURPOSE = "broken-on-purpose"  # a gallery tag: the example shows an error, so it expects one


def run_project(project: dict, path: Path, file_text: str = "", kubernetes_version: str | None = None) -> ProjectReport:
    report = ProjectReport(str(path), project.get("title", ""))
    names = [d["name"] for d in project["documents"]]
    positions = text_positions(file_text) if file_text else {}
    simulation = Simulation([d["text"] for d in project["documents"]], kubernetes_version=kubernetes_version)
    report.problems = [_locate(p, path, names, positions) for p in simulation.errors]
    if BROKEN_ON_PURPOSE in project.get("tags", []):
        # its errors are what it demonstrates: reported as expected; none at all is the failure
        expected_errors = [p for p in report.problems if is_error(p)]
        report.problems = [
            {**p, "severity": "info" if is_error(p) else p.get("severity"), "message": f"(expected) {p.get('message')}"}
            for p in report.problems
        ]
        if not expected_errors:
            report.problems.append(
                {
                    "severity": "error",
                    "source": str(path),
                    "message": f"tagged {BROKEN_ON_PURPOSE} but its documents load without an error",
                }
            )
    for request in project["requests"]:
        result = simulation.run(
            request["text"], trace=False, full=False, type_checks=False, request_name=request["name"]
        )
        request_errors = [e for e in result.get("errors", []) if e not in simulation.errors and is_error(e)]
        outcome, message = verdict(request.get("expected"), result)
        if request_errors and outcome != "pass":
            outcome, message = "error", "; ".join(str(e.get("text") or e.get("message")) for e in request_errors)
        report.cases.append(Case(request["name"], outcome, message))
    return report


def run_paths(paths: list[str], kubernetes_version: str | None = None) -> tuple[list[ProjectReport], list[str]]:
    files, problems = files_under(paths, find_project_files, "project file (YAML with a documents list)")
    reports = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            project = read_project(text, str(path))
            version = kubernetes_version or project.get("kubernetesVersion")
            reports.append(run_project(project, path, text, version))
        except (OSError, UnicodeDecodeError, FormatError) as exc:
            reports.append(
                ProjectReport(str(path), problems=[{"severity": "error", "source": str(path), "message": str(exc)}])
            )
    return reports, problems


def counts(reports: list[ProjectReport]) -> dict[str, int]:
    cases = [c for r in reports for c in r.cases]
    return {
        "projects": len(reports),
        "tests": sum(c.verdict != "none" for c in cases),
        "passed": sum(c.verdict == "pass" for c in cases),
        "failed": sum(c.verdict == "fail" for c in cases),
        "errors": sum(c.verdict == "error" for c in cases),
        "noExpectation": sum(c.verdict == "none" for c in cases),
        "projectErrors": sum(1 for r in reports for p in r.problems if is_error(p)),
    }


def as_json(reports: list[ProjectReport]) -> str:
    return summary_json(counts(reports), "projects", [r.as_dict() for r in reports])


def summary_json(summary: dict[str, int], key: str, reports: list[dict[str, Any]]) -> str:
    """What `-o json` prints for a test run: the counts, then each file's report under `key`."""
    return json.dumps({"summary": summary, key: reports}, indent=2)
