"""PolicyReport and CSV exports: valid against Kyverno's CRDs, and parseable."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import yaml

from evaluator import simulate
from evaluator.batch import csv_text, policy_reports, run_chunk

from .policies import DOCUMENTS, deployment, mixed_objects

CRDS = Path(__file__).resolve().parents[2] / "data" / "batch" / "crd"


def test_one_policy_report_per_namespace_and_a_cluster_report():
    rows = run_chunk(DOCUMENTS, mixed_objects(16))
    reports = policy_reports(rows, DOCUMENTS, now=1_700_000_000)
    assert [(r["kind"], r["metadata"].get("namespace"), r["metadata"]["name"]) for r in reports] == [
        ("PolicyReport", "default", "polr-ns-default"),
        ("PolicyReport", "team-a", "polr-ns-team-a"),
        ("PolicyReport", "team-b", "polr-ns-team-b"),
        ("ClusterPolicyReport", None, "clusterpolicyreport"),
    ]
    team_a = reports[1]
    for result in team_a["results"]:
        assert [r["namespace"] for r in result["resources"]] == ["team-a"]
    assert sum(len(r["results"]) for r in reports) == sum(len(row["policies"]) for row in rows)
    denied = next(r for r in team_a["results"] if r["policy"] == "replicas" and r["resources"][0]["name"] == "d0")
    assert denied == {
        "source": "ValidatingAdmissionPolicy",
        "policy": "replicas",
        "rule": "",
        "message": "too many replicas",
        "result": "fail",
        "scored": True,
        "resources": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d0", "namespace": "team-a"}],
        "timestamp": {"seconds": 1_700_000_000, "nanos": 0},
        "properties": {"binding": "replicas-binding"},
    }
    audited = next(r for r in reports[2]["results"] if r["policy"] == "no-latest")
    assert (audited["source"], audited["rule"], audited["result"]) == ("kyverno", "pin-images", "fail")
    assert (audited["category"], audited["severity"]) == ("Best Practices", "medium")  # the policy's annotations
    summary = team_a["summary"]
    assert summary["fail"] == sum(1 for r in team_a["results"] if r["result"] == "fail") > 0
    assert set(summary) == {"pass", "fail", "warn", "error", "skip"}


def test_reports_are_valid_against_kyvernos_crds():
    """The engine's own CRD validation (the API server's) with Kyverno's PolicyReport CRDs."""
    crds = [(CRDS / name).read_text() for name in sorted(p.name for p in CRDS.iterdir())]
    rows = run_chunk(DOCUMENTS, mixed_objects(16))
    reports = policy_reports(rows, DOCUMENTS)
    assert {r["kind"] for r in reports} == {"PolicyReport", "ClusterPolicyReport"}
    for report in reports:
        report = yaml.safe_load(yaml.safe_dump(report))  # as the YAML output is read back
        result = simulate(crds, {"operation": "CREATE", "object": report})
        assert result["crdValidation"] is not None, report["kind"]
        assert result["crdValidation"]["allowed"] is True, result["crdValidation"]["errors"]


def test_a_bad_result_value_would_be_refused_by_the_crd():
    """The check above can fail: the same CRD refuses a result outside its enum."""
    crds = [(CRDS / name).read_text() for name in sorted(p.name for p in CRDS.iterdir())]
    report = policy_reports(run_chunk(DOCUMENTS, [deployment("a", 9)]), DOCUMENTS)[0]
    report["results"][0]["result"] = "denied"
    result = simulate(crds, {"operation": "CREATE", "object": report})
    assert result["crdValidation"]["allowed"] is False


def test_csv_has_a_line_per_object_and_policy():
    objects = mixed_objects(8)
    rows = run_chunk(DOCUMENTS, objects)
    parsed = list(csv.DictReader(io.StringIO(csv_text(rows))))
    assert len(parsed) == sum(max(1, len(r["policies"])) for r in rows)
    assert {int(p["index"]) for p in parsed} == set(range(8))
    denied = next(p for p in parsed if p["policy"] == "replicas" and p["outcome"] == "denied")
    assert denied == {
        "index": "0",
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "team-a",
        "name": "d0",
        "allowed": "false",
        "kind_of_policy": "ValidatingAdmissionPolicy",
        "policy": "replicas",
        "binding": "replicas-binding",
        "outcome": "denied",
        "message": "too many replicas",
    }
    namespace = next(p for p in parsed if p["kind"] == "Namespace")
    assert (namespace["policy"], namespace["allowed"]) == ("", "true")


def test_csv_cells_are_not_spreadsheet_formulas():
    row = {
        "index": 0,
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "namespace": "x",
        "name": "c",
        "allowed": False,
        "message": "m",
        "warnings": [],
        "policies": [
            {
                "kind": "ValidatingAdmissionPolicy",
                "policy": "p",
                "binding": "b",
                "outcome": "denied",
                "message": "=HYPERLINK(1)",
            }
        ],
    }
    parsed = list(csv.DictReader(io.StringIO(csv_text([row]))))
    assert parsed[0]["message"] == "'=HYPERLINK(1)"
