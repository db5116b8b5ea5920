"""Import → project → export → import gives the same documents, requests and expected outcomes, for every
format, on real folders (tests/data/formats: kyverno/kyverno test/cli folders, pfnet/kaptest examples)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from evaluator.project_tests import run_project
from evaluator.formats import admission_review, kaptest, kyverno_test, manifests, project_files
from evaluator.formats.archives import read_archive, write_zip
from evaluator.formats.bounded_yaml import FormatError, load_all

DATA = Path(__file__).resolve().parents[2] / "data" / "formats"
KYVERNO = sorted(p.name for p in (DATA / "kyverno-test").iterdir())
KAPTEST = sorted(p.name for p in (DATA / "kaptest").iterdir())


def folder(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def same(a: dict, b: dict) -> None:
    """Same documents, requests and expected outcomes (compared as data, so formatting does not matter)."""
    assert [(d["name"], load_all(d["text"])) for d in a["documents"]] == [
        (d["name"], load_all(d["text"])) for d in b["documents"]
    ]
    assert [(r["name"], load_all(r["text"]), r.get("expected")) for r in a["requests"]] == [
        (r["name"], load_all(r["text"]), r.get("expected")) for r in b["requests"]
    ]


def through_project_file(project: dict) -> dict:
    return project_files.read_project(project_files.write_project(project))


@pytest.mark.parametrize("name", KYVERNO)
def test_kyverno_test_folder_round_trip(name):
    first = kyverno_test.import_folder(folder(DATA / "kyverno-test" / name))
    assert first["documents"] and first["requests"]
    assert any(r["expected"] for r in first["requests"])
    files, warnings = kyverno_test.export_folder(through_project_file(first))
    assert warnings == []
    second = kyverno_test.import_folder(read_archive(write_zip(files, name)))
    same(first, second)


@pytest.mark.parametrize("name", KYVERNO)
def test_an_imported_kyverno_test_passes_as_a_project(name, tmp_path):
    project = kyverno_test.import_folder(folder(DATA / "kyverno-test" / name))
    report = run_project(project, tmp_path / "p.yaml")
    assert report.passed, (report.problems, report.cases)


def test_kyverno_rows_become_expectations():
    project = kyverno_test.import_folder(folder(DATA / "kyverno-test" / "disallow-service"))
    expected = {r["name"]: r["expected"] for r in project["requests"]}
    assert expected["CREATE Service ns3/svc2"] == {"allowed": False}  # fail row of an Enforce policy
    assert expected["CREATE Service ns1/svc1"] == {"allowed": True}  # skip row


@pytest.mark.parametrize("name", KAPTEST)
def test_kaptest_suite_round_trip(name):
    first = kaptest.import_suite(folder(DATA / "kaptest" / name))
    assert first["requests"] and all(r["expected"] for r in first["requests"])
    files, warnings = kaptest.export_suite(through_project_file(first))
    assert warnings == []
    second = kaptest.import_suite(files)
    same(first, second)


def test_what_an_import_cannot_keep_is_a_warning():
    simple = kaptest.import_suite(folder(DATA / "kaptest" / "simple"))
    assert simple["warnings"] == ["error-policy: Deployment good-deployment: expect error imported as denied"]
    files = folder(DATA / "kyverno-test" / "disallow-service")
    files["kyverno-test.yaml"] += "variables: values.yaml\n"
    files["values.yaml"] = "policies: []\n"
    assert kyverno_test.import_folder(files)["warnings"] == [
        "kyverno-test.yaml: variables is not imported (a project has no place for it)"
    ]


def test_kaptest_expectations_and_bindings():
    project = kaptest.import_suite(folder(DATA / "kaptest" / "complicated"))
    names = {r["name"]: r["expected"] for r in project["requests"]}
    assert names["policy-with-params: Deployment bad-deployment (param config)"] == {"allowed": False}
    assert names["policy-with-namespace: Deployment foo/good-deployment-with-namespace"] == {"allowed": True}
    assert "validatingadmissionpolicybinding: kaptest-policy-with-params-config" in [
        d["name"] for d in project["documents"]
    ]


BUNDLE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default}
  spec: {containers: [{name: c, image: nginx}]}
- apiVersion: v1
  kind: Namespace
  metadata: {name: default}
---
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"},
 "spec": {"validations": [{"expression": "true"}]}}
"""


def test_manifest_bundle_round_trip_with_lists():
    first = manifests.import_bundle(BUNDLE)
    assert [d["name"] for d in first["documents"]] == ["namespace: default", "validatingadmissionpolicy: p"]
    assert [r["name"] for r in first["requests"]] == ["CREATE Pod default/a"]
    text, warnings = manifests.export_bundle(first)
    assert warnings == []
    same(first, manifests.import_bundle(text))


def test_manifests_export_says_what_it_leaves_out():
    project = {"documents": [], "requests": [{"name": "r", "text": "kind: AdmissionReview\nrequest: {}\n"}]}
    assert manifests.export_bundle(project)[1] == ["request 'r' is not a plain object and is left out"]


REVIEW = {
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "request": {
        "uid": "1",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "operation": "CREATE",
        "name": "a",
        "namespace": "default",
        "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"}},
    },
    "response": {"uid": "1", "allowed": False},
}


def test_admission_review_round_trip_and_expected_from_response(tmp_path):
    first = admission_review.import_review(json.dumps(REVIEW))
    assert first["requests"][0]["name"] == "CREATE Pod default/a"
    assert first["requests"][0]["expected"] == {"allowed": False}
    same(first, through_project_file(first))
    # the engine reads the imported review: with no policy the pod is admitted, so the logged denial fails
    report = run_project(first, tmp_path / "p.yaml")
    assert [c.verdict for c in report.cases] == ["fail"]


def test_gallery_example_round_trips_through_every_file_format():
    example = project_files.read_project(
        (Path(__file__).resolve().parents[3] / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text()
    )
    same(example, through_project_file(example))
    bundle, _ = manifests.export_bundle(example)
    assert [d["name"] for d in manifests.import_bundle(bundle)["documents"]] == [
        "validatingadmissionpolicy: demo-policy.example.com",
        "validatingadmissionpolicybinding: demo-binding-test.example.com",
        "namespace: default",
    ]


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_archives_refuse_path_traversal_links_and_bombs():
    with pytest.raises(FormatError, match="outside"):
        read_archive(_zip({"../evil.yaml": b"a: 1"}))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("link.yaml")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    with pytest.raises(FormatError, match="link"):
        read_archive(buffer.getvalue())
    with pytest.raises(FormatError, match="more than"):
        read_archive(_zip({f"f{i}.yaml": b"a: 1" for i in range(201)}))
    with pytest.raises(FormatError, match="not a zip or tar"):
        read_archive(b"plain bytes")


def test_yaml_alias_bombs_are_refused():
    bomb = "a: &a [x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefghijklmnopqrstuvwxy", "bcdefghijklmnopqrstuvwxyz")
    )
    with pytest.raises(FormatError, match="aliases"):
        manifests.import_bundle(bomb)
