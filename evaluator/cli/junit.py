"""JUnit XML, the report format CI systems annotate: one <testsuite> per input, one <testcase> per check."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

from evaluator.cli.located import is_error, located


@dataclass
class Case:
    """One check: `status` is passed, failure, error or skipped; `detail` says why when it is not passed."""

    name: str
    classname: str
    status: str = "passed"
    message: str = ""
    detail: str = ""


def document(suites: Iterable[tuple[str, list[Case]]]) -> str:
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, cases in suites:
        suite = ET.SubElement(root, "testsuite", name=name)
        counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
        for case in cases:
            element = ET.SubElement(suite, "testcase", name=case.name, classname=case.classname)
            if case.status != "passed":
                tag = {"failure": "failure", "error": "error", "skipped": "skipped"}[case.status]
                counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[case.status]] += 1
                child = ET.SubElement(element, tag, message=case.message)
                child.text = case.detail or None
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        if key != "skipped":  # the JUnit schema (tests/data/junit) has no skipped count on <testsuites>
            root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def simulate_report(result: dict[str, Any]) -> str:
    """The input problems (errors fail as <error>) and the decision (a denial is a <failure>)."""
    cases = [
        Case(located(p), "input", "error", str(p.get("message") or ""), located(p))
        for p in result.get("errors", [])
        if is_error(p)
    ]
    if result.get("allowed") is not None:
        name = "request " + _request_name(result.get("request"))
        status = result.get("status") or {}
        cases.append(
            Case(name, "decision")
            if result["allowed"]
            else Case(name, "decision", "failure", str(status.get("message", "denied")), str(status.get("message", "")))
        )
    return document([("admission-playground simulate", cases)])


def _request_name(request: Any) -> str:
    if not isinstance(request, dict):
        return ""
    kind = request.get("kind")
    kind = kind.get("kind") if isinstance(kind, dict) else kind
    return "/".join(str(part) for part in (kind, request.get("namespace"), request.get("name")) if part)
