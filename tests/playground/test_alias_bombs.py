"""A YAML alias bomb on every input path is answered with a clear error within 2 s, and others still work.

The paths: REST documents, a request text, a stored project opened over WebSocket (no token needed), and a
workshop fork a student saves. Each answer is go-yaml's "document contains excessive aliasing".
"""

from __future__ import annotations

import time

import pytest
from channels.db import database_sync_to_async

from playground.evaluation import pool
from playground.services import project_service
from tests.evaluator.admission.test_yaml_aliases import CONFIGMAP_BOMB
from tests.playground.playground_fixtures import BINDING, POLICY, deployment
from tests.playground.test_consumer import connect, receive_until
from tests.playground.workshops.workshop_fixtures import async_join, async_open_room, student_socket
from tests.playground.workshops.workshop_fixtures import receive_until as receive_workshop

MESSAGE = "invalid YAML: document contains excessive aliasing"
BOUND_SECONDS = 2.0


@pytest.fixture(autouse=True)
def warm_workers():
    """Time the answer, not the start of the worker processes (caches are reset by conftest.py)."""
    assert pool.wait_until_started()


def evaluate(client, documents, requests):
    return client.post(
        "/api/v1/evaluate", {"documents": documents, "requests": requests}, content_type="application/json"
    )


@pytest.mark.django_db
def test_rest_documents(client):
    started = time.monotonic()
    response = evaluate(client, [{"name": "bomb", "text": CONFIGMAP_BOMB}], [{"name": "r", "text": deployment(9)}])
    assert time.monotonic() - started < BOUND_SECONDS
    assert response.status_code == 200 and len(response.content) < 50_000
    body = response.json()
    assert [e["message"] for e in body["documents"][0]["errors"]] == [MESSAGE]
    assert body["requests"][0]["result"]["allowed"] is True  # the request is still evaluated


@pytest.mark.django_db
def test_rest_request_text(client):
    started = time.monotonic()
    response = evaluate(client, [{"name": "policy", "text": POLICY}], [{"name": "bomb", "text": CONFIGMAP_BOMB}])
    assert time.monotonic() - started < BOUND_SECONDS
    assert response.status_code == 200 and len(response.content) < 50_000
    errors = response.json()["requests"][0]["result"]["requestErrors"]
    assert MESSAGE in [e["message"] for e in errors]


@pytest.mark.django_db(transaction=True)
async def test_stored_project_opened_over_websocket_while_another_room_evaluates():
    bomb, _ = await database_sync_to_async(project_service.create_project)(
        "bomb",
        documents=[{"name": "bomb", "text": CONFIGMAP_BOMB}],
        requests=[{"name": "bomb", "text": CONFIGMAP_BOMB}],
    )
    honest, _ = await database_sync_to_async(project_service.create_project)(
        "honest",
        documents=[{"name": "p", "text": POLICY}, {"name": "b", "text": BINDING}],
        requests=[{"name": "r", "text": deployment(9)}],
    )
    started = time.monotonic()
    attacker = await connect(bomb["id"])  # a viewer: no token needed to make the server evaluate
    other = await connect(honest["id"])
    errors, _ = await receive_until(attacker, "documentErrors")
    assert time.monotonic() - started < BOUND_SECONDS
    assert [e["message"] for e in errors["documents"][0]["errors"]] == [MESSAGE]
    result, _ = await receive_until(other, "result")
    assert result["request"]["result"]["allowed"] is False and time.monotonic() - started < BOUND_SECONDS
    await attacker.disconnect()
    await other.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_workshop_fork_saved_by_a_student(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 2  # the workshop tests otherwise evaluate in threads
    assert await database_sync_to_async(pool.wait_until_started)()
    room, _ = await async_open_room()
    _, ada_token, _ = await async_join(room["code"], "Ada")
    _, bob_token, _ = await async_join(room["code"], "Bob")
    ada, welcome = await student_socket(room["code"], ada_token)
    bob, _ = await student_socket(room["code"], bob_token)
    await receive_workshop(ada, "evaluation")
    await receive_workshop(bob, "evaluation")
    document = welcome["fork"]["project"]["documents"][0]
    started = time.monotonic()
    await ada.send_json_to(
        {"type": "edit", "target": "document", "id": document["id"], "text": CONFIGMAP_BOMB, "clientSeq": 1}
    )
    await bob.send_json_to({"type": "evaluate"})
    result = await receive_workshop(ada, "evaluation", lambda m: any(d["errors"] for d in m["documents"]))
    assert time.monotonic() - started < BOUND_SECONDS
    assert MESSAGE in [e["message"] for d in result["documents"] for e in d["errors"]]
    honest = await receive_workshop(bob, "evaluation")
    assert not any(d["errors"] for d in honest["documents"]) and time.monotonic() - started < BOUND_SECONDS
    await ada.disconnect()
    await bob.disconnect()
