"""A project's Kubernetes version: stored, validated, and followed by every evaluation of the project."""

import pytest

from evaluator.cel.versions import NEWEST

pytestmark = pytest.mark.django_db

SEMVER_POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: semver}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "isSemver(object.data.v)", message: not a version}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: semver}
spec: {policyName: semver, validationActions: [Deny]}
"""
REQUEST = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {v: nope}\n"


def body(**extra):
    return {
        "title": "t",
        "documents": [{"name": "policy", "text": SEMVER_POLICY}],
        "requests": [{"name": "cm", "text": REQUEST}],
        **extra,
    }


def test_a_project_follows_the_newest_release_until_set(client):
    created = client.post("/api/v1/projects", body(), content_type="application/json").json()
    assert created["kubernetesVersion"] == NEWEST
    url, auth = f"/api/v1/projects/{created['id']}", {"HTTP_X_EDIT_TOKEN": created["editToken"]}
    denied = client.post(f"{url}/evaluate").json()["requests"][0]["result"]
    assert denied["allowed"] is False and denied["kubernetesVersion"] == NEWEST
    patched = client.patch(url, {"kubernetesVersion": "1.33"}, content_type="application/json", **auth)
    assert patched.status_code == 200 and patched.json()["kubernetesVersion"] == "1.33"
    refused = client.post(f"{url}/evaluate").json()
    assert refused["requests"][0]["result"]["allowed"] is True  # isSemver is refused in a new 1.33 policy
    assert any("isSemver" in e["message"] for doc in refused["documents"] for e in doc["errors"])
    bad = client.patch(url, {"kubernetesVersion": "1.2"}, content_type="application/json", **auth)
    assert bad.status_code == 400 and "supported are" in bad.json()["error"]["message"]


def test_stateless_evaluate_takes_a_version(client):
    stateless = {key: value for key, value in body().items() if key != "title"}  # /evaluate takes no title
    response = client.post(
        "/api/v1/evaluate", {**stateless, "kubernetesVersion": "1.33"}, content_type="application/json"
    )
    assert response.json()["requests"][0]["result"]["kubernetesVersion"] == "1.33"
    bad = client.post("/api/v1/evaluate", {**stateless, "kubernetesVersion": "x"}, content_type="application/json")
    assert bad.status_code == 400


def test_version_is_kept_by_snapshots_and_forks(client):
    created = client.post("/api/v1/projects", body(kubernetesVersion="1.32"), content_type="application/json").json()
    assert created["kubernetesVersion"] == "1.32"
    snapshot = client.post(f"/api/v1/projects/{created['id']}/snapshots").json()
    forked = client.post(f"/api/v1/snapshots/{snapshot['id']}/fork").json()
    assert forked["kubernetesVersion"] == "1.32"


def test_editor_page_offers_every_supported_version(client):
    created = client.post("/api/v1/projects", body(), content_type="application/json").json()
    page = client.get(f"/p/{created['id']}").content.decode()
    assert 'id="kubernetes-version"' in page and '"kubernetesVersions"' in page and f'"{NEWEST}"' in page
