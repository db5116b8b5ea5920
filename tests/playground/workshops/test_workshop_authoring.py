"""Exercise sets as one YAML file: export → import → a room → a student passes; imports are validated."""

from __future__ import annotations

import copy

import pytest
import yaml
from rest_framework.test import APIClient

from playground.services import document_service
from playground.evaluation.workshop import engine
from playground.workshops.services import participants, progress, rooms

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

    room, token = rooms.create_room(set_slug="my-class", title="Round trip")
    participant, _, _ = participants.join(code=room["code"], display_name="Ada")
    state = participants.student_state(participant)
    solution = data["exercises"][0]["documents"]
    for doc, wanted in zip(state["fork"]["project"]["documents"], solution):
        document_service.update_item(
            project_id=state["fork"]["projectId"],
            token=state["fork"]["editToken"],
            target="document",
            item_id=doc["id"],
            text=wanted["text"],
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


def _authored() -> dict:
    """What the authoring page sends: a project's documents as the solution, a starter that lets all through."""
    solution = _exported(APIClient())["exercises"][0]["documents"]
    starter = copy.deepcopy(solution)
    starter[0]["text"] = starter[0]["text"].replace("object.spec.replicas <= 5", '"true"')
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: default}\nspec:\n  replicas: 9\n"
    )
    return {
        "slug": "authored",
        "title": "Written in the page",
        "description": "",
        "exercises": [
            {
                "slug": "limit",
                "title": "A limit",
                "task": "Deny **more than 5** replicas.",
                "hints": ["Use `object.spec.replicas`."],
                "starter": starter,
                "documents": solution,
                "checks": [
                    {
                        "name": "nine",
                        "title": "9 replicas are denied",
                        "text": deployment,
                        "hidden": False,
                        "show_expected": False,
                        "expected": {"outcome": "denied", "messageContains": "replicas <= 5"},
                    },
                    {
                        "name": "three",
                        "title": "3 replicas are allowed",
                        "text": deployment.replace("replicas: 9", "replicas: 3"),
                        "hidden": True,
                        "show_expected": False,
                        "expected": {"outcome": "allowed"},
                    },
                ],
            }
        ],
    }


def test_the_authoring_page_composes_the_yaml_file_and_it_round_trips_to_a_passing_student():
    client = APIClient()
    built = client.post(f"{API}/sets/compose", {"set": _authored()}, format="json")
    assert built.status_code == 200, built.json()
    assert built.json()["valid"] is True, built.json()
    text = built.json()["yaml"]
    data = yaml.safe_load(text)
    assert data["exercises"][0]["checks"][1] == {
        "name": "three",
        "title": "3 replicas are allowed",
        "hidden": True,
        "show_expected": False,
        "text": _authored()["exercises"][0]["checks"][1]["text"],
        "expected": {"outcome": "allowed"},
    }
    assert "text: |" in text  # documents as literal blocks: a file that reads and diffs well in git
    assert client.get(f"{API}/sets/authored").status_code == 404  # composing stores nothing

    imported = client.post(f"{API}/sets/import", {"yaml": text}, format="json")
    assert imported.status_code == 201, imported.json()
    room, _ = rooms.create_room(set_slug="authored", title="Authored class")
    participant, _, _ = participants.join(code=room["code"], display_name="Ada")
    state = participants.student_state(participant)
    assert "replicas <= 5" not in str(state["exercise"])  # the expected message is not shown to students
    fork = state["fork"]
    for doc, wanted in zip(fork["project"]["documents"], data["exercises"][0]["documents"]):
        document_service.update_item(
            project_id=fork["projectId"],
            token=fork["editToken"],
            target="document",
            item_id=doc["id"],
            text=wanted["text"],
        )
    ctx = progress.context(participant.id, submit=True)
    result = engine.evaluate(ctx)
    seen = progress.record(ctx, result["checks"], result["version"], True, result["diagnosis"])["student"]
    assert seen["complete"] is True and seen["passed"] == seen["total"] == 2


def test_composing_reports_what_the_import_would_refuse():
    client = APIClient()
    authored = _authored()
    authored["exercises"][0]["starter"] = authored["exercises"][0]["documents"]  # the starter already passes
    answer = client.post(f"{API}/sets/compose", {"set": authored}, format="json").json()
    assert answer["valid"] is False and "the starter already passes every check" in answer["error"]["message"]
    assert answer["yaml"].startswith("slug: authored")

    authored["exercises"][0]["documents"] = []
    shape = client.post(f"{API}/sets/compose", {"set": authored}, format="json")
    assert shape.status_code == 400 and "exercise 1" in shape.json()["error"]["message"]
    assert client.post(f"{API}/sets/compose", {"set": "x"}, format="json").status_code == 400
    authored = _authored()
    authored["slug"] = "Not A Slug"
    bad_slug = client.post(f"{API}/sets/compose", {"set": authored}, format="json").json()
    assert bad_slug["valid"] is False and "slug" in bad_slug["error"]["message"]


@pytest.mark.parametrize(
    ("endpoint", "body", "message"),
    [
        ("import", {}, "yaml: this field is required"),
        ("import", {"yaml": 7}, "yaml: must be a string, not number"),
        ("import", {"yaml": "a: 1", "colour": 1}, "colour: unknown field (expected yaml)"),
        ("compose", {"set": "x"}, "set: must be an object, not string"),
        ("compose", {"set": None}, "set: must be an object, not null"),
        ("compose", [], "the body must be a JSON object"),
    ],
)
def test_import_and_compose_bodies_are_checked_by_their_serializers(endpoint, body, message):
    answer = APIClient().post(f"{API}/sets/{endpoint}", body, format="json")
    assert answer.status_code == 400
    assert (answer.json()["error"]["code"], answer.json()["error"]["message"]) == ("invalid_request", message)


def test_the_authoring_page_is_served():
    page = APIClient().get("/workshops/author")
    assert page.status_code == 200 and b"dist/workshop-author.js" in page.content


def test_a_sets_source_is_its_file_as_json_and_composes_back_to_the_same_yaml():
    client = APIClient()
    source = client.get(f"{API}/sets/admission-basics/source")
    assert source.status_code == 200
    assert source.json() == _exported(client)
    built = client.post(f"{API}/sets/compose", {"set": source.json()}, format="json").json()
    assert built["yaml"] == client.get(f"{API}/sets/admission-basics/export").content.decode()
    assert built["valid"] is True
    assert client.get(f"{API}/sets/no-such-set/source").status_code == 404


def test_an_export_has_one_key_order_whatever_order_the_database_kept():
    from playground.workshops.services.authoring import _expected

    as_jsonb_keeps_it = {"kyverno": [{"rule": "r", "result": "pass", "policy": "p"}], "outcome": "denied"}
    assert list(_expected(as_jsonb_keeps_it)) == ["outcome", "kyverno"]
    assert list(_expected(as_jsonb_keeps_it)["kyverno"][0]) == ["policy", "result", "rule"]
