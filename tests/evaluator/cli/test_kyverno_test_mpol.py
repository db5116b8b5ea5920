"""`kyverno-test` on MutatingPolicy and MutatingAdmissionPolicy rows: test folders copied from kyverno/policies and
kyverno/kyverno (see tests/data/NOTICE.md) are evaluated, each rule response compared with the patched
resource as `kyverno test` does, and a changed expectation makes the row fail."""

from __future__ import annotations

import shutil
from pathlib import Path

from evaluator.cli.kyverno_test import run_paths
from evaluator.cli.kyverno_test.report import counts

DATA = Path(__file__).resolve().parents[2] / "data" / "kyverno-mpol"


def _rows(folder: Path) -> list[tuple[str, str, str, str]]:
    (report,) = run_paths([str(folder)])[0]
    return [(r.resource, r.expected, r.actual, r.status) for r in report.rows]


def test_the_copied_folders_all_pass_and_nothing_is_skipped():
    reports, problems = run_paths([str(DATA)])
    assert problems == []
    c = counts(reports)
    assert c["results"] == 16
    assert (c["passed"], c["failed"], c["skipped"], c["errors"], c["excluded"]) == (16, 0, 0, 0, 0)


def test_unmet_match_conditions_are_skip_and_applied_mutations_pass():
    assert _rows(DATA / "add-safe-to-evict") == [
        ("myapp-pod03", "pass", "pass", "ok"),
        ("myapp-pod01", "skip", "skip", "ok"),
        ("myapp-pod04", "pass", "pass", "ok"),
        ("myapp-pod02", "skip", "skip", "ok"),
    ]


def test_a_policy_exception_skips_with_kyvernos_message():
    (report,) = run_paths([str(DATA / "cli-exceptions-mutate-deployment")])[0]
    assert [(r.resource, r.actual, r.message) for r in report.rows] == [
        ("dev/dev-deploy-2", "pass", ""),
        ("default/dev-deploy-1", "skip", "rule is skipped due to policy exception: exclude-namespace"),
    ]


def test_a_different_expected_resource_fails_the_row(tmp_path):
    folder = tmp_path / "apply-pss-restricted-profile"
    shutil.copytree(DATA / "apply-pss-restricted-profile", folder)
    expected = folder / ".kyverno-test" / "mutatedmypod.yaml"
    expected.write_text(expected.read_text().replace("runAsUser: 1000", "runAsUser: 1001"))
    (report,) = run_paths([str(folder)])[0]
    (row,) = report.rows
    assert (row.status, row.actual) == ("failed", "resource diff")
    assert row.message.startswith("Patched resource didn't match the patched resource in the test result")
    assert "-    runAsUser: 1001\n+    runAsUser: 1000\n" in row.message


def test_a_wrong_expected_status_fails(tmp_path):
    folder = tmp_path / "add-safe-to-evict"
    shutil.copytree(DATA / "add-safe-to-evict", folder)
    test = folder / ".kyverno-test" / "kyverno-test.yaml"
    test.write_text(test.read_text().replace("result: skip", "result: pass", 1))
    assert _rows(folder)[1] == ("myapp-pod01", "pass", "skip", "failed")


def test_kyvernos_regex_library_and_subresource_requests():
    assert _rows(DATA / "cli-cel-regex-replace") == [("default/test-pod", "pass", "pass", "ok")]
    assert _rows(DATA / "cli-mutate-pod-binding-subresource") == [
        ("default/pod-to-get-aws-zone-id", "pass", "pass", "ok")
    ]


def test_mutate_existing_targets_selected_by_a_cel_expression(tmp_path):
    assert _rows(DATA / "cli-mutate-existing-cel-expression") == [("test-ns/target-cm", "pass", "pass", "ok")]
    folder = tmp_path / "cel"
    shutil.copytree(DATA / "cli-mutate-existing-cel-expression", folder)
    policy = folder / "policy.yaml"
    policy.write_text(policy.read_text().replace('"target-cm"', '"other-cm"'))
    # the expression selects nothing: no response for the target, which `kyverno test` reports as not found
    assert _rows(folder) == [("test-ns/target-cm", "pass", "fail", "failed")]


def test_mutating_admission_policy_rows(tmp_path):
    assert _rows(DATA / "cli-map-with-match-conditions") == [
        ("matched-cm", "pass", "pass", "ok"),
        ("unmatched-cm", "skip", "skip", "ok"),
    ]
    # a paramRef selector hands the policy every selected param as one list (`params.items`)
    assert _rows(DATA / "cli-map-with-two-params") == [("", "pass", "pass", "ok")]
    folder = tmp_path / "params"
    shutil.copytree(DATA / "cli-map-with-two-params", folder)
    expected = folder / "patched-resource.yaml"
    expected.write_text(expected.read_text().replace("replicas: 10", "replicas: 3"))
    assert _rows(folder)[0][3] == "failed"


def test_a_mutating_admission_policy_whose_mutation_fails_gives_no_response(tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(DATA / "cli-map-with-match-conditions", folder)
    policy = folder / "policy.yaml"
    policy.write_text(policy.read_text().replace('labels: {"lfx-mentorship": "kyverno"}', "labels: 42"))
    (report,) = run_paths([str(folder)])[0]
    # the CLI logs the mutation error and has no response for the resource: `kyverno test` says Not found
    assert [(r.resource, r.actual, r.status, r.message) for r in report.rows] == [
        ("matched-cm", "fail", "failed", "Not found"),
        ("unmatched-cm", "skip", "ok", "match conditions aren't met"),
    ]
