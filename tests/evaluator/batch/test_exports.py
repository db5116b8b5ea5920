"""PolicyReport and CSV exports: valid against Kyverno's CRDs, and parseable."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import yaml

from evaluator import simulate
from evaluator.batch import REPORT_LIMIT, csv_text, policy_reports, run_chunk, write_policy_reports

from .policies import DOCUMENTS, deployment, mixed_objects

CRDS = Path(__file__).resolve().parents[2] / "data" / "batch" / "crd"


def test_one_policy_report_per_resource_as_kyverno_writes_them():
    objects = mixed_objects(16)
    objects[0]["metadata"]["uid"] = "0b5d-team-a-d0"
    rows = run_chunk(DOCUMENTS, objects)
    reports = policy_reports(rows, DOCUMENTS, now=1_700_000_000)
    with_results = [row for row in rows if row["policies"]]
    assert len(reports) == len(with_results) < len(rows)  # an object no policy took part in has no report
    assert [(r["kind"], r["metadata"].get("namespace"), r["metadata"]["name"]) for r in reports[:3]] == [
        ("PolicyReport", "team-a", "0b5d-team-a-d0"),  # named after the resource's uid
        ("PolicyReport", "default", "deployment-d1"),  # or, without one, after its kind and name
        ("PolicyReport", "team-b", "deployment-d2"),
    ]
    first = reports[0]
    assert first["scope"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "d0",
        "namespace": "team-a",
        "uid": "0b5d-team-a-d0",
    }
    assert first["metadata"]["ownerReferences"] == [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d0", "uid": "0b5d-team-a-d0"}
    ]
    assert "ownerReferences" not in reports[1]["metadata"]  # an owner needs a uid
    cluster = policy_reports([_cluster_scoped(rows[0])], DOCUMENTS)[0]
    assert cluster["kind"] == "ClusterPolicyReport" and "namespace" not in cluster["metadata"]
    assert cluster["scope"] == {"apiVersion": "v1", "kind": "Namespace", "name": "ns-x"}
    assert sum(len(r["results"]) for r in reports) == sum(len(row["policies"]) for row in rows)
    denied = next(r for r in first["results"] if r["policy"] == "replicas")
    assert denied == {
        "source": "ValidatingAdmissionPolicy",
        "policy": "replicas",
        "rule": "",
        "message": "too many replicas",
        "result": "fail",
        "scored": True,
        "timestamp": {"seconds": 1_700_000_000, "nanos": 0},
        "properties": {"binding": "replicas-binding"},
    }
    for report in reports:  # Kyverno's order: policy, rule, source
        keys = [(r["policy"], r["rule"], r["source"]) for r in report["results"]]
        assert keys == sorted(keys)
    audited = next(r for r in reports[2]["results"] if r["policy"] == "no-latest")
    assert (audited["source"], audited["rule"], audited["result"]) == ("kyverno", "pin-images", "fail")
    assert (audited["category"], audited["severity"]) == ("Best Practices", "medium")  # the policy's annotations
    summary = first["summary"]
    assert summary["fail"] == sum(1 for r in first["results"] if r["result"] == "fail") > 0
    assert set(summary) == {"pass", "fail", "warn", "error", "skip"}


def _cluster_scoped(row: dict) -> dict:
    """The row as if a cluster-scoped object had met the same policies (none of DOCUMENTS selects one)."""
    return {**row, "apiVersion": "v1", "kind": "Namespace", "namespace": "", "name": "ns-x", "uid": ""}


def test_a_report_over_the_limit_is_split_into_parts_under_it():
    """A resource with many long results: its report would be ~1.2 MB, over the 1 MiB limit."""
    row = run_chunk(DOCUMENTS, [deployment("big", 9)])[0]
    outcome = row["policies"][0]
    row["policies"] = [{**outcome, "policy": f"p{i:04d}", "message": "x" * 1000} for i in range(1200)]
    assert REPORT_LIMIT == 1 << 20
    whole = policy_reports([row], DOCUMENTS, limit=1 << 30)
    assert len(whole) == 1 and len(yaml.safe_dump(whole[0]).encode()) > REPORT_LIMIT
    out = io.StringIO()
    written = write_policy_reports([row], DOCUMENTS, out, now=0)
    texts = out.getvalue().split("\n---\n")
    assert written == len(texts) >= 2
    assert all(len(text.encode()) <= REPORT_LIMIT for text in texts)
    parts = [yaml.safe_load(text) for text in texts]
    assert [p["metadata"]["name"] for p in parts] == [f"deployment-big-{i + 1}" for i in range(len(parts))]
    assert all(p["scope"] == parts[0]["scope"] for p in parts)
    assert [r["policy"] for p in parts for r in p["results"]] == [f"p{i:04d}" for i in range(1200)]
    assert sum(p["summary"]["fail"] for p in parts) == 1200


AWKWARD = [
    "",
    " lead",
    "trail ",
    "a: b",
    "#x",
    "- x",
    "yes",
    "No",
    "on",
    "null",
    "~",
    "12",
    "1e3",
    "0x1f",
    ".5",
    'say "hi"',
    "it's",
    "line\nbreak",
    "tab\there",
    "ünï ✓",
    "\u0085",
    "{a}",
    "[1]",
    "*ref",
    "&a",
    "!tag",
    "%x",
    "@x",
    "`x`",
    "a #b",
    "x:",
    "?",
    "|",
    ">",
    "=",
    "2024-01-01",
    "TRUE",
    ".inf",
    "-.inf",
    "\\",
    "\x00",
    "\u2028",
    "a\u00a0b",
]


def test_written_reports_are_the_reports():
    rows = run_chunk(DOCUMENTS, mixed_objects(16))
    awkward = iter(AWKWARD * 10)
    for row in rows:  # messages and names a YAML writer must quote (or not) correctly
        row["policies"] = [{**o, "message": next(awkward), "binding": next(awkward)} for o in row["policies"]]
    rows[0]["name"] = "yes"
    out = io.StringIO()
    count = write_policy_reports(rows, DOCUMENTS, out, now=5)
    assert list(yaml.safe_load_all(out.getvalue())) == policy_reports(rows, DOCUMENTS, now=5)
    assert count == len(policy_reports(rows, DOCUMENTS, now=5))


def test_reports_are_valid_against_kyvernos_crds():
    """The engine's own CRD validation (the API server's) with Kyverno's PolicyReport CRDs."""
    crds = [(CRDS / name).read_text() for name in sorted(p.name for p in CRDS.iterdir())]
    rows = run_chunk(DOCUMENTS, mixed_objects(16))
    reports = policy_reports([*rows, _cluster_scoped(rows[0])], DOCUMENTS)
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
