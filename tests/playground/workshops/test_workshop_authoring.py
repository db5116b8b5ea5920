"""Exercise sets as one YAML file: export → import → a room → a student passes; imports are validated."""

from __future__ import annotations

import copy

import pytest
import yaml
from rest_framework.test import APIClient

from playground.services import document_service
from playground.workshops.services import engine, participants, progress, rooms

pytestmark = pytest.mark.django_db

API = "/api/v1/workshops"


def _exported(client) -> dict:
    response = client.get(f"{API}/sets/admission-basics/export")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/yaml")
    return yaml.safe_load(response.content.decode())


def test_export_import_room_and_a_student_passes():
    client = APIClient()
    data = _exported(client)
    data["slug"], data["title"] = "my-class", "My class"
    data["exercises"] = data["exercises"][:2]
    data["exercises"][0]["checks"][0]["title"] = "seven replicas? no"
    imported = client.post(f"{API}/sets/import", {"yaml": yaml.safe_dump(data)}, format="json")
    assert imported.status_code == 201, imported.json()
    assert imported.json() == {"slug": "my-class", "title": "My class", "exercises": 2}

    room, token = rooms.create_room("my-class", "Round trip")
    participant, _, _ = participants.join(room["code"], "Ada")
    state = participants.student_state(participant)
    solution = data["exercises"][0]["documents"]
    for doc, wanted in zip(state["fork"]["project"]["documents"], solution):
        document_service.update_item(
            state["fork"]["projectId"], state["fork"]["editToken"], "document", doc["id"], text=wanted["text"]
        )
    ctx = progress.context(participant.id, submit=True)
    result = engine.evaluate(ctx)
    seen = progress.record(ctx, result["checks"], result["version"], True, result["diagnosis"])["student"]
    assert seen["complete"] is True and seen["passed"] == seen["total"] == 3
    assert "seven replicas? no" in [c["title"] for c in seen["checks"]]


def test_imports_are_validated_and_never_overwrite_a_set():
    client = APIClient()
    data = _exported(client)
    assert client.post(f"{API}/sets/import", {"yaml": yaml.safe_dump(data)}, format="json").status_code == 409

    data["slug"] = "broken-solution"
    first = data["exercises"][0]
    first["documents"] = copy.deepcopy(first["starter"])  # the solution cannot pass
    answer = client.post(f"{API}/sets/import", {"yaml": yaml.safe_dump(data)}, format="json")
    assert answer.status_code == 400 and "the solution fails" in answer.json()["error"]["message"]

    data = _exported(client)
    data["slug"] = "solved-starter"
    data["exercises"][1]["starter"] = copy.deepcopy(data["exercises"][1]["documents"])  # nothing to do
    answer = client.post(f"{API}/sets/import", {"yaml": yaml.safe_dump(data)}, format="json")
    assert answer.status_code == 400 and "exercise 2" in answer.json()["error"]["message"]
    assert "already passes" in answer.json()["error"]["message"]

    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nslug: bomb\nexercises: [*b]\n"
    answer = client.post(f"{API}/sets/import", {"yaml": bomb}, format="json")
    assert answer.status_code == 400 and "aliases" in answer.json()["error"]["message"]
    assert client.post(f"{API}/sets/import", {"yaml": "exercises: ["}, format="json").status_code == 400
    assert client.get(f"{API}/sets/solved-starter").status_code == 404  # nothing half-stored
