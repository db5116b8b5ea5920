"""`kyverno-test` on GeneratingPolicy and DeletingPolicy rows, scored as the Kyverno CLI scores them
(cmd/cli/kubectl-kyverno: the policy processor's gpol branch + test/output.go's generated-resource comparison;
commands/test/test.go applyDeletingPolicies). The folders under tests/data/kyverno-gpol and kyverno-dpol are
copied from kyverno/kyverno test/cli and kyverno/policies (see tests/data/NOTICE.md); Kyverno's CLI passes
every row of them."""

import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.cli.kyverno_test import run_file
from tests.shared_data import DATA

FOLDERS = sorted(p.parent for sub in ("kyverno-gpol", "kyverno-dpol") for p in (DATA / sub).rglob("kyverno-test.yaml"))


@pytest.mark.parametrize("test_file", [f / "kyverno-test.yaml" for f in FOLDERS], ids=lambda p: p.parent.name)
def test_kyvernos_gpol_and_dpol_folders_pass(test_file):
    report = run_file(test_file)
    assert report.rows, "the folder has rows"
    assert [(r.policy, r.resource, r.status, r.message) for r in report.rows if r.status != "ok"] == []


def _copy(tmp_path: Path, sub: str, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(DATA / sub / name, target)
    return target


def test_generated_objects_are_compared_with_the_expected_file(tmp_path):
    folder = _copy(tmp_path, "kyverno-gpol", "clone-generate-secrets")
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert (row.status, row.actual, row.message) == ("ok", "pass", "3 generated object(s) compared")
    docs = list(yaml.safe_load_all((folder / "generated-resources.yaml").read_text()))
    docs[1]["data"] = {"key": "b3RoZXI="}
    (folder / "generated-resources.yaml").write_text(yaml.safe_dump_all(docs))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "failed"
    assert row.message == "Secret/test-secret-2: generated resource differs from generated-resources.yaml"


def test_a_generated_object_missing_from_the_expected_file_fails_with_the_clis_message(tmp_path):
    folder = _copy(tmp_path, "kyverno-gpol", "template-generate-cm-interpolated")
    expected = yaml.safe_load((folder / "generated-resource.yaml").read_text())
    expected["metadata"]["name"] = "another-name"
    (folder / "generated-resource.yaml").write_text(yaml.safe_dump(expected))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "failed"
    assert row.message.startswith(
        "error: failed to load GeneratedResource resource (resource with name test-ns-config not found in manifest)"
    )


def test_a_gpol_that_does_not_compile_is_an_error_row(tmp_path):
    folder = _copy(tmp_path, "kyverno-gpol", "data-generate-clusterrolebinding")
    policy = (
        (folder / "policy.yaml").read_text().replace('generator.Apply("", variables.downstream)', "generator.Apply(")
    )
    (folder / "policy.yaml").write_text(policy)
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "error"
    assert row.message.startswith("failed to compile policy generate-clusterrolebinding (")
    assert "spec.generate[0].expression" in row.message


def test_dpol_rows_are_the_clis_pass_and_fail_per_resource(tmp_path):
    folder = _copy(tmp_path, "kyverno-dpol", "deleting-pod-by-namespaceObject")
    rows = run_file(folder / "kyverno-test.yaml").rows
    assert [(r.resource, r.expected, r.actual, r.status) for r in rows] == [
        ("nginx-1", "fail", "fail", "ok"),
        ("nginx-2", "fail", "fail", "ok"),
        ("test/test-nginx-1", "pass", "pass", "ok"),
        ("test/test-nginx-2", "pass", "pass", "ok"),
    ]
    test = yaml.safe_load((folder / "kyverno-test.yaml").read_text())
    test["results"][0]["result"] = "pass"
    (folder / "kyverno-test.yaml").write_text(yaml.safe_dump(test))
    rows = run_file(folder / "kyverno-test.yaml").rows
    assert [(r.resource, r.actual, r.status) for r in rows[:2]] == [
        ("nginx-1", "fail", "failed"),
        ("nginx-2", "fail", "failed"),
    ]


def test_a_dpol_result_without_resources_checks_the_json_payloads():
    rows = run_file(DATA / "kyverno-dpol" / "deleting-json" / "kyverno-test.yaml").rows
    assert [(r.policy, r.actual, r.status) for r in rows] == [
        ("deleting-json", "pass", "ok"),
        ("deleting-json-fail", "fail", "ok"),
    ]
