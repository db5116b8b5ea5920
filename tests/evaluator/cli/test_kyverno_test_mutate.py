"""`kyverno-test` on mutate rows: test folders copied from kyverno/policies and kyverno/kyverno (see
tests/data/NOTICE.md) are evaluated and compared as `kyverno test` compares a patched resource, and a changed
expectation makes the row fail."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaluator.cli.kyverno_test import run_paths
from evaluator.cli.kyverno_test.mutate_rows import compare_resources
from evaluator.cli.kyverno_test.report import counts

DATA = Path(__file__).resolve().parents[2] / "data" / "kyverno-mutate"


def test_the_copied_mutate_folders_all_pass_and_nothing_is_skipped():
    reports, problems = run_paths([str(DATA)])
    assert problems == []
    c = counts(reports)
    assert c["results"] == 42
    assert (c["passed"], c["failed"], c["skipped"], c["errors"], c["excluded"]) == (42, 0, 0, 0, 0)
    assert all(rep.verdict == "PASS" for rep in reports)


def test_a_different_expected_resource_fails_the_row(tmp_path):
    folder = tmp_path / "add-labels"
    shutil.copytree(DATA / "add-labels", folder)
    expected = folder / ".kyverno-test" / "patchedResource.yaml"
    expected.write_text(expected.read_text().replace("foo: bar", "foo: baz"))
    (report,) = run_paths([str(folder)])[0]
    statuses = [(r.resource, r.status) for r in report.rows]
    assert statuses == [("default/myapp-pod", "failed"), ("default/my-service", "ok")]
    assert report.rows[0].message.startswith("Patched resource didn't match the patched resource in the test result")
    assert "-    foo: baz\n+    foo: bar\n" in report.rows[0].message


def test_a_wrong_expected_status_fails_even_when_the_resource_matches(tmp_path):
    folder = tmp_path / "add-labels"
    shutil.copytree(DATA / "add-labels", folder)
    test = folder / ".kyverno-test" / "kyverno-test.yaml"
    test.write_text(test.read_text().replace("result: pass", "result: skip", 1))
    (report,) = run_paths([str(folder)])[0]
    assert [(r.expected, r.actual, r.status) for r in report.rows][0] == ("skip", "pass", "failed")


def test_mutate_existing_rows_compare_the_patched_targets():
    (report,) = run_paths([str(DATA / "cli-same-name-mutate-existing")])[0]
    assert [(r.resource, r.status) for r in report.rows] == [("staging/secret-1", "ok"), ("prod/secret-1", "ok")]


def test_the_comparison_tidies_empty_values_and_kyvernos_generate_labels():
    # cmd/cli/kubectl-kyverno/resource: Tidy drops nulls and empty maps/lists; FixupGenerateLabels drops
    # generate.kyverno.io/ labels before comparing
    actual = {"kind": "Pod", "metadata": {"name": "a", "labels": {"generate.kyverno.io/x": "y"}, "annotations": {}}}
    expected = {"kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": []}}
    assert compare_resources(actual, expected)
    assert not compare_resources({**actual, "spec": {"x": 1}}, expected)
    assert not compare_resources({"kind": "Pod", "spec": {"x": True}}, {"kind": "Pod", "spec": {"x": 1}})


@pytest.mark.parametrize("fail_on_missing", [False, True])
def test_a_patched_resource_missing_from_the_file_is_skipped_unless_fail_on_missing_resources(
    tmp_path, fail_on_missing
):
    folder = tmp_path / "add-labels"
    shutil.copytree(DATA / "add-labels", folder)
    test = folder / ".kyverno-test" / "kyverno-test.yaml"
    flag = "  failOnMissingResources: true\n" if fail_on_missing else ""
    text = test.read_text().replace(
        "  patchedResources: patchedResource.yaml\n", f"{flag}  patchedResources: patchedResource1.yaml\n"
    )
    test.write_text(text)
    (report,) = run_paths([str(folder)])[0]
    pod = report.rows[0]
    assert pod.resource == "default/myapp-pod"
    assert "resource with name myapp-pod not found in manifest" in pod.message
    assert pod.status == ("failed" if fail_on_missing else "excluded")
