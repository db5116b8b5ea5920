"""Kyverno mutate and generate results reach users whole: the REST evaluation (stateless and per project) and the
WebSocket result stream carry `kyvernoMutation` (each rule's patches, the patched object, the diff) and each
policy's `generate` objects exactly as the engine returns them (nothing summarised away on the way)."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.evaluation import pool
from playground.services import project_service

TIMEOUT = 10
HOST = [(b"host", b"localhost"), (b"origin", b"http://localhost")]

MUTATE_POLICY = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-labels
spec:
  rules:
  - name: add-team
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            +(team): platform
"""

GENERATE_POLICY = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-networkpolicy
spec:
  rules:
  - name: default-deny
    match:
      any:
      - resources:
          kinds: [Namespace]
    generate:
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      name: default-deny
      namespace: "{{request.object.metadata.name}}"
      synchronize: true
      data:
        spec:
          podSelector: {}
          policyTypes: [Ingress, Egress]
"""

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n"

DOCUMENTS = [{"name": "mutate", "text": MUTATE_POLICY}, {"name": "generate", "text": GENERATE_POLICY}]
REQUESTS = [
    {"name": "pod", "text": POD, "expected": {"allowed": True}},
    {"name": "namespace", "text": NAMESPACE, "expected": {"allowed": True}},
]


def assert_mutated(result: dict) -> None:
    mutation = result["kyvernoMutation"]
    [step] = mutation["mutations"]
    assert (step["policy"], step["rule"], step["result"]) == ("add-labels", "add-team", "pass")
    assert step["patches"] == [{"op": "add", "path": "/metadata/labels", "value": {"team": "platform"}}]
    assert step["object"]["metadata"]["labels"] == {"team": "platform"}
    assert mutation["patch"] == step["patches"]
    assert mutation["patchedObject"]["metadata"]["labels"] == {"team": "platform"}
    assert "+  labels:\n+    team: platform\n" in mutation["diff"]


def assert_generated(result: dict) -> None:
    [policy] = [p for p in result["kyverno"] if p["policy"] == "add-networkpolicy"]
    [rule] = policy["generate"]
    assert (rule["rule"], rule["result"]) == ("default-deny", "pass")
    [made] = rule["objects"]
    assert (made["action"], made["role"], made["policy"], made["rule"]) == (
        "create",
        "downstream",
        "add-networkpolicy",
        "default-deny",
    )
    obj = made["object"]
    assert (obj["kind"], obj["metadata"]["name"], obj["metadata"]["namespace"]) == (
        "NetworkPolicy",
        "default-deny",
        "team-a",
    )
    assert obj["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


@pytest.mark.django_db
def test_the_stateless_rest_evaluation_carries_patches_and_generated_objects(client):
    response = client.post(
        "/api/v1/evaluate", {"documents": DOCUMENTS, "requests": REQUESTS}, content_type="application/json"
    )
    assert response.status_code == 200
    pod, namespace = response.json()["requests"]
    assert [pod["verdict"], namespace["verdict"]] == ["pass", "pass"]
    assert_mutated(pod["result"])
    assert_generated(namespace["result"])
    # the Namespace is not a Pod: the mutate policy has nothing for it, and the Pod generates nothing
    assert (namespace["result"]["kyvernoMutation"]["mutations"], namespace["result"]["kyvernoMutation"]["patch"]) == (
        [],
        [],
    )
    assert [p.get("generate") for p in pod["result"]["kyverno"]] == [None, []]


@pytest.mark.django_db
def test_the_project_evaluation_carries_them_too(client):
    created = client.post(
        "/api/v1/projects",
        {"title": "kyverno", "documents": DOCUMENTS, "requests": REQUESTS},
        content_type="application/json",
    ).json()
    pod, namespace = client.post(f"/api/v1/projects/{created['id']}/evaluate").json()["requests"]
    assert_mutated(pod["result"])
    assert_generated(namespace["result"])


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_result_stream_carries_them():
    state, token = await database_sync_to_async(project_service.create_project)(
        title="kyverno", documents=DOCUMENTS, requests=REQUESTS
    )
    await asyncio.to_thread(pool.wait_until_started)
    ws = WebsocketCommunicator(application, f"/ws/projects/{state['id']}/?token={token}", headers=HOST)
    connected, _ = await ws.connect(timeout=TIMEOUT)
    assert connected
    results = {}
    while True:
        message = await ws.receive_json_from(timeout=TIMEOUT)
        if message["type"] == "result":
            results[message["request"]["name"]] = message["request"]
        if message["type"] == "done":
            break
    await ws.disconnect(timeout=TIMEOUT)
    assert [results["pod"]["verdict"], results["namespace"]["verdict"]] == ["pass", "pass"]
    assert_mutated(results["pod"]["result"])
    assert_generated(results["namespace"]["result"])
