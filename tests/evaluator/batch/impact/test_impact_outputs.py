"""The renderings of an impact report: JSON (the schema's keys), Markdown (capped, escaped), JUnit (one case
per changed request, valid XML), CSV (one line per change, formulas quoted), text; and the gate."""

from __future__ import annotations

import csv
import io
import json
from xml.etree import ElementTree as ET

import pytest

from evaluator.batch import impact
from evaluator.batch.impact.outputs import MARKDOWN_LIMIT
from evaluator.batch.impact.sample_log import audit_log_lines, policy_change


@pytest.fixture(scope="module")
def report():
    base, head = policy_change()
    log = impact.AuditLog(io.BytesIO(("".join(audit_log_lines(300, seed=11)) + "not json\n").encode()), "audit.log")
    result = impact.run_impact(base, head, log)
    result.source, result.input_errors = log.stats(), log.errors
    return result


def hostile_report(changes: int) -> impact.ImpactReport:
    """Many changes whose names and messages carry HTML, pipes, newlines and formulas."""
    base, head = policy_change()
    objects = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i}", "namespace": "n|<script>alert(1)</script>"},
            "data": {f"k{j}": "x" for j in range(6)},
        }
        for i in range(changes)
    ]
    head = [dict(d) for d in head]
    for doc in head:
        if doc["metadata"]["name"] == "configmap-keys" and doc["kind"] == "ValidatingAdmissionPolicy":
            doc["spec"] = {
                **doc["spec"],
                "validations": [{"expression": "false", "message": '=HYPERLINK("x") <b>|' + "m" * 500}],
            }
    return impact.run_impact(base, head, impact.object_items(objects))


def test_json_has_the_schema_keys(report):
    data = json.loads(impact.render(report, "json"))
    assert data["schema"] == impact.SCHEMA_VERSION
    assert set(data) == {"schema", "summary", "changes", "changesOmitted", "source", "inputErrors"}
    assert set(data["summary"]) >= {
        "requests",
        "changed",
        *impact.CATEGORIES,
        "base",
        "head",
        "policies",
        "namespaces",
        "kinds",
        "users",
        "operations",
        "timeline",
    }
    change = data["changes"][0]
    assert set(change) >= {
        "index",
        "line",
        "time",
        "operation",
        "kind",
        "namespace",
        "name",
        "user",
        "categories",
        "base",
        "head",
    }
    assert data["inputErrors"][0]["line"] == 301 and data["source"]["malformed"] == 1
    assert impact.ImpactReport.from_dict(data).as_dict() == data


def test_markdown_is_a_capped_pr_comment(report):
    text = impact.render(report, "markdown")
    summary = report.summary.as_dict()
    assert text.startswith(
        f"### Policy change impact: {summary['changed']:,} of {summary['requests']:,} requests change"
    )
    assert "<details open><summary>By policy" in text and "<details><summary>Changed requests (first 50" in text
    assert len(text.encode()) < MARKDOWN_LIMIT


def test_markdown_escapes_what_the_inputs_say_and_stays_under_its_limit():
    text = impact.render(hostile_report(400), "markdown")
    assert "<script>" not in text and "<b>" not in text and "&lt;script&gt;" in text
    for line in text.splitlines():
        if line.startswith("| line") or line.startswith("| #"):
            assert line.count(" | ") == 4  # the pipes of the inputs are escaped: the columns stay five
    assert len(text.encode()) < MARKDOWN_LIMIT
    small = impact.outputs.markdown(hostile_report(400), limit=6000)
    assert len(small.encode()) <= 6000 and "Changed requests" in small


def test_junit_has_one_case_per_changed_request(report):
    root = ET.fromstring(impact.render(report, "junit"))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(report.changes)  # the malformed line is a warning: no case
    failures = [c for c in cases if c.find("failure") is not None]
    assert len(failures) == report.summary.totals["newlyDenied"] == int(suite.get("failures"))
    assert cases[0].get("name").startswith(f"line {report.changes[0]['line']}: ")
    never = ET.fromstring(impact.render(report, "junit", fail_on="never"))
    assert never.find("testsuite").get("failures") == "0"


def test_csv_has_one_line_per_change_and_quotes_formulas(report):
    rows = list(csv.DictReader(io.StringIO(impact.render(report, "csv"))))
    assert len(rows) == len(report.changes)
    assert rows[0]["index"] == str(report.changes[0]["index"])
    report = hostile_report(3)
    report.changes[0]["user"] = "=SUM(A1)"  # a user name from an audit log is anything
    hostile = list(csv.DictReader(io.StringIO(impact.render(report, "csv"))))
    assert hostile[0]["headMessage"].startswith('configmaps "cm-0" is forbidden')
    assert hostile[0]["user"] == "'=SUM(A1)"


def test_text_lists_the_changes_and_the_source(report):
    text = impact.render(report, "text")
    assert "audit log: 300 events" in text and "1 malformed lines" in text
    assert f"line {report.changes[0]['line']}: " in text


def test_the_gate():
    report = hostile_report(2)
    assert impact.gate(report) == 1 and impact.gate(report, "never") == 0 and impact.gate(report, "changed") == 1
    same = impact.run_impact(
        policy_change()[0],
        policy_change()[0],
        impact.object_items([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]),
    )
    assert [impact.gate(same, f) for f in impact.FAIL_ON] == [0, 0, 0, 0]


def test_a_log_without_bodies_is_said_plainly():
    report = impact.ImpactReport(impact.ImpactSummary(), source={"events": 12, "replayed": 0, "noRequestBodies": True})
    assert "holds no request bodies" in impact.render(report, "text")
    assert "Nothing replayed" in impact.render(report, "markdown")


def test_a_markdown_cell_reads_a_multi_line_message_as_one_line_of_single_spaces():
    cell = impact.outputs._md("admission webhook denied the request:\n\n  resource Pod/x was blocked\n    rule: fail")
    assert cell == "admission webhook denied the request: resource Pod/x was blocked rule: fail"
