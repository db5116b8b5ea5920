"""Import and export endpoints: every format in and out through HTTP, errors in the one error shape."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from evaluator.formats.archives import read_archive

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def zipped(root: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                archive.writestr(str(path.relative_to(root.parent)), path.read_text())
    return buffer.getvalue()


def contents(state: dict) -> tuple[list, list]:
    return (
        [(d["name"], d["text"]) for d in state["documents"]],
        [(r["name"], r["text"], r["expected"]) for r in state["requests"]],
    )


@pytest.mark.parametrize(
    "fmt, root",
    [("kyverno-test", DATA / "kyverno-test" / "disallow-service"), ("kaptest", DATA / "kaptest" / "simple")],
)
def test_folder_import_export_import(client, fmt, root):
    first = client.post(f"/api/v1/import/{fmt}", zipped(root), content_type="application/zip")
    assert first.status_code == 201, first.content
    state = first.json()
    assert state["editToken"] and state["requests"]
    assert state["warnings"][:1] == (
        ["error-policy: Deployment good-deployment: expect error imported as denied"] if fmt == "kaptest" else []
    )
    exported = client.get(f"/api/v1/projects/{state['id']}/export/{fmt}")
    assert exported.status_code == 200 and exported["Content-Type"] == "application/zip"
    assert json.loads(exported["X-Export-Warnings"]) == []
    assert read_archive(exported.content)
    second = client.post(f"/api/v1/import/{fmt}", exported.content, content_type="application/octet-stream")
    assert second.status_code == 201, second.content
    assert contents(second.json()) == contents(state)


def test_multipart_upload_and_project_file_export(client):
    bundle = b"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n"
    upload = io.BytesIO(bundle)
    upload.name = "bundle.yaml"
    state = client.post("/api/v1/import/manifests", {"file": upload}).json()
    assert [r["name"] for r in state["requests"]] == ["CREATE Pod a/p"]
    exported = client.get(f"/api/v1/projects/{state['id']}/export/project")
    assert exported.status_code == 200 and b"documents:" in exported.content
    again = client.post("/api/v1/import/project", exported.content, content_type="application/yaml").json()
    assert contents(again) == contents(state)


def test_admission_review_import(client):
    review = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "1",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "operation": "DELETE",
            "name": "p",
            "namespace": "a",
        },
    }
    state = client.post("/api/v1/import/admission-review", json.dumps(review).encode(), content_type="application/json")
    assert state.status_code == 201, state.content
    assert state.json()["requests"][0]["name"] == "DELETE Pod a/p"


def test_errors(client):
    bad = client.post("/api/v1/import/kyverno-test", b"not an archive", content_type="application/zip")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_import"
    unknown = client.post("/api/v1/import/nope", b"x", content_type="application/zip")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_format"
    traversal = io.BytesIO()
    with zipfile.ZipFile(traversal, "w") as archive:
        archive.writestr("../kyverno-test.yaml", "a: 1")
    refused = client.post("/api/v1/import/kyverno-test", traversal.getvalue(), content_type="application/zip")
    assert refused.status_code == 400 and "outside" in refused.json()["error"]["message"]
    assert client.get("/api/v1/projects/nope/export/project").status_code == 404


def test_a_project_exports_as_admission_reviews_with_the_rest_decision(client):
    state = client.post("/api/v1/examples/seed-vap-basic-deny/fork").json()
    evaluated = client.post(f"/api/v1/projects/{state['id']}/evaluate").json()
    exported = client.get(f"/api/v1/projects/{state['id']}/export/admission-review")
    assert exported.status_code == 200 and exported["Content-Type"] == "application/json"
    assert exported["Content-Disposition"].endswith('-admissionreview.json"')
    review = json.loads(exported.content)  # the example has one request: one review
    result = evaluated["requests"][0]["result"]
    assert (review["apiVersion"], review["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
    assert review["request"]["object"]["kind"] == "Deployment" and review["request"]["operation"] == "CREATE"
    assert review["response"]["allowed"] is result["allowed"] is False
    assert review["response"]["status"]["message"] == result["status"]["message"]
    # one request of several, by id; an unknown id is a 404 in the one error shape
    client.post(
        f"/api/v1/projects/{state['id']}/requests",
        {"name": "second", "text": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"},
        content_type="application/json",
        headers={"X-Edit-Token": state["editToken"]},
    )
    both = json.loads(client.get(f"/api/v1/projects/{state['id']}/export/admission-review").content)
    assert [r["response"]["allowed"] for r in both] == [False, True]
    first_id = state["requests"][0]["id"]
    one = client.get(f"/api/v1/projects/{state['id']}/export/admission-review?request={first_id}")
    assert json.loads(one.content)["response"]["allowed"] is False
    missing = client.get(f"/api/v1/projects/{state['id']}/export/admission-review?request=999999")
    assert missing.status_code == 404 and missing.json()["error"]["path"] == "request"
    # and back in: the reviews become requests expecting their decisions
    again = client.post("/api/v1/import/admission-review", exported.content, content_type="application/json")
    assert again.status_code == 201 and [r["expected"] for r in again.json()["requests"]] == [{"allowed": False}]


def test_a_project_file_keeps_its_kubernetes_version_through_import_and_export(client):
    text = (
        "title: old cluster\nkubernetesVersion: '1.30'\ndocuments:\n- name: ns\n  text: |\n"
        "    apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\nrequests: []\n"
    )
    state = client.post("/api/v1/import/project", text.encode(), content_type="application/yaml").json()
    assert state["kubernetesVersion"] == "1.30"
    exported = client.get(f"/api/v1/projects/{state['id']}/export/project")
    assert b"kubernetesVersion: '1.30'" in exported.content or b'kubernetesVersion: "1.30"' in exported.content
    again = client.post("/api/v1/import/project", exported.content, content_type="application/yaml").json()
    assert again["kubernetesVersion"] == "1.30"


STORED = ("title", "description", "kubernetesVersion")


@pytest.mark.parametrize("fmt", ["project", "manifests"])
@pytest.mark.parametrize(
    "example", ["vap-only-ci-deploys", "kyverno-gpol-namespace-setup", "webhook-timeout-failure-policy"]
)
def test_everything_the_page_stores_comes_back_through_project_files_and_manifests(client, fmt, example):
    """Titles, descriptions, the Kubernetes version, document and request names and texts as typed, expected
    outcomes and AdmissionReview requests: a manifests export classified objects by kind again (a Secret
    document became a request, a WebhookMock a request) and dropped names, expectations and reviews."""
    text = (Path(__file__).resolve().parents[2] / "playground" / "examples" / f"{example}.yaml").read_text()
    text = "kubernetesVersion: '1.31'\n" + text
    state = client.post("/api/v1/import/project", text.encode(), content_type="application/yaml").json()
    assert state["kubernetesVersion"] == "1.31" and any(r["expected"] for r in state["requests"])
    exported = client.get(f"/api/v1/projects/{state['id']}/export/{fmt}")
    assert exported.status_code == 200
    again = client.post(f"/api/v1/import/{fmt}", exported.content, content_type="application/yaml").json()
    assert contents(again) == contents(state)
    assert {k: again[k] for k in STORED} == {k: state[k] for k in STORED}


def test_a_project_following_the_newest_release_is_not_exported_pinned(client):
    """The page shows the newest release for a project that chose none; exporting wrote that release, so the
    imported copy stayed on it when a newer one came."""
    text = b"title: follows\ndocuments: []\nrequests: []\n"
    state = client.post("/api/v1/import/project", text, content_type="application/yaml").json()
    for fmt in ("project", "manifests"):
        exported = client.get(f"/api/v1/projects/{state['id']}/export/{fmt}")
        assert b"kubernetesVersion" not in exported.content, fmt
