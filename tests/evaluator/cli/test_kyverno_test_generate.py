"""`kyverno-test` on generate rules: generatedResource / cloneSourceResource rows compared as the Kyverno CLI
compares them (kyverno/kyverno cmd/cli/kubectl-kyverno/commands/test/output.go and compare.go: the generated
object found by apiVersion/kind/namespace/name in the expected file, generate.kyverno.io labels dropped and
`managed-by: kyverno` set on both sides, nulls and empty maps/lists tidied away).

The folders under tests/data/kyverno-generate are copied from kyverno/kyverno test/cli/test-generate and
kyverno/policies (see tests/data/NOTICE.md); Kyverno's CLI passes every row of them."""

import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.cli.kyverno_test import run_file
from tests.shared_data import DATA

FOLDERS = sorted(p.parent for p in (DATA / "kyverno-generate").rglob("kyverno-test.yaml"))


@pytest.mark.parametrize("test_file", [f / "kyverno-test.yaml" for f in FOLDERS], ids=lambda p: p.parent.name)
def test_kyvernos_generate_folders_pass(test_file):
    report = run_file(test_file)
    assert report.rows, "the folder has rows"
    assert [(r.rule, r.status, r.message) for r in report.rows if not r.ok] == []
    assert all(r.status == "ok" for r in report.rows)  # evaluated and compared, never skipped or excluded


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(DATA / "kyverno-generate" / name, target)
    return target


def test_a_generated_object_that_differs_from_the_expected_file_fails(tmp_path):
    folder = _copy(tmp_path, "sync-secrets")
    expected = yaml.safe_load((folder / "generatedResource.yaml").read_text())
    expected["data"] = {"password": "c29tZXRoaW5nIGVsc2U="}
    (folder / "generatedResource.yaml").write_text(yaml.safe_dump(expected))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "failed"
    assert "generated resource differs" in row.message


def test_generate_labels_and_empty_fields_are_ignored_when_comparing(tmp_path):
    folder = _copy(tmp_path, "sync-secrets")
    expected = yaml.safe_load((folder / "generatedResource.yaml").read_text())
    labels = expected["metadata"].setdefault("labels", {})
    labels["generate.kyverno.io/policy-name"] = "something-else"
    expected["metadata"]["annotations"] = {}
    (folder / "generatedResource.yaml").write_text(yaml.safe_dump(expected))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "ok"


def test_a_generated_object_missing_from_the_expected_file_fails_with_the_clis_message(tmp_path):
    folder = _copy(tmp_path, "sync-secrets")
    expected = yaml.safe_load((folder / "generatedResource.yaml").read_text())
    expected["metadata"]["name"] = "another-name"
    (folder / "generatedResource.yaml").write_text(yaml.safe_dump(expected))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert row.status == "failed"
    assert "resource with name regcred not found in manifest" in row.message


def test_without_its_clone_source_the_rule_keeps_its_status_and_compares_no_object(tmp_path):
    # the CLI logs the failed generation and reports the rule's background status (pass) with no object
    folder = _copy(tmp_path, "sync-secrets")
    (folder / "cloneSourceResource.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: unrelated, namespace: default}\n"
    )
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert (row.status, row.actual) == ("ok", "pass")
    assert "source resource v1/Secret/hello-world-namespace/regcred not found" in row.message


def test_a_wrong_expected_status_fails(tmp_path):
    folder = _copy(tmp_path, "sync-secrets")
    test = yaml.safe_load((folder / "kyverno-test.yaml").read_text())
    test["results"][0]["result"] = "skip"
    (folder / "kyverno-test.yaml").write_text(yaml.safe_dump(test))
    [row] = run_file(folder / "kyverno-test.yaml").rows
    assert (row.status, row.actual) == ("failed", "pass")
