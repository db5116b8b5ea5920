"""One edge validator for both transports (api/strict.py): the serializers of the REST bodies check the
WebSocket messages too, with the same wording, and services take validated keyword arguments only."""

from __future__ import annotations

import inspect
import json

import pytest

from playground.api import messages
from playground.api.serializers import ProjectPatchSerializer, RequestInSerializer
from playground.api.strict import validated
from playground.services import document_service, project_service
from playground.core.errors import ServiceError
from playground.ws_messages import parse_client_message, refused_seq
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.django_db


def refusal(serializer, data, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        validated(serializer, data, **kwargs)
    return caught.value


def ws_refusal(message: dict) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        parse_client_message(json.dumps(message), None, messages.PROJECT_MESSAGES)
    return caught.value


@pytest.mark.parametrize(
    "value, wanted",
    [(1, "must be a string, not number"), (True, "must be a string, not boolean"), ([], "must be a string, not array")],
)
def test_text_is_not_coerced(value, wanted):
    error = refusal(RequestInSerializer, {"text": value})
    assert (error.code, error.message, error.path, error.status) == ("invalid_request", f"text: {wanted}", "text", 400)


@pytest.mark.parametrize(
    "value, wanted",
    [
        ("7", "must be an integer, not string"),
        (True, "must be an integer, not boolean"),
        (1.5, "must be an integer, not number"),
        (None, "must be an integer, not null"),
        (2**64, "integer out of the 64-bit range"),
    ],
)
def test_integers_are_strict(value, wanted):
    # (the socket's JSON reader refuses 2**64 earlier, for any field: core/edge.py)
    error = refusal(messages.ItemMessage, {"type": "delete", "target": "document", "id": value}, code="invalid_message")
    assert (error.code, error.message, error.path) == ("invalid_message", f"id: {wanted}", "id")


def test_text_must_be_storable():
    error = refusal(ProjectPatchSerializer, {"title": "a\x00b"})
    assert (error.message, error.path) == ("title: contains a NUL character", "title")


def test_an_unstorable_character_is_placed_at_its_line_and_column():
    error = ws_refusal({"type": "edit", "target": "request", "id": 1, "text": "a: 1\nb: x\x00y\n"})
    assert (error.message, error.path, error.line, error.column) == ("text: contains a NUL character", "text", 2, 5)
    error = ws_refusal({"type": "edit", "target": "request", "id": 1, "text": "\n\n  \ud800"})
    assert (error.path, error.line, error.column) == ("text", 3, 3)
    assert "lone surrogate" in error.message


PUSH = {"type": "push", "target": "document", "id": 1, "version": 0, "clientSeq": 1}


def test_a_push_may_carry_a_nul_in_what_it_inserts_and_nowhere_else():
    """A NUL typed and deleted again within one push must not make everything typed after it unsaveable: the
    authority refuses a text that still holds one (collab/authority.py), and stores U+FFFD in its history."""
    changes = [5, [0, "a\x00b", ""]]
    message = parse_client_message(json.dumps({**PUSH, "updates": [{"changes": changes, "clientID": "c"}]}), None)
    assert message["updates"][0]["changes"] == changes
    error = ws_refusal({**PUSH, "updates": [{"changes": changes, "clientID": "c\x00"}]})
    assert error.path == "updates[0].clientID"
    error = ws_refusal({**PUSH, "updates": [{"changes": [5, [0, "\ud800"]], "clientID": "c"}]})
    assert "lone surrogate" in error.message  # no stand-in keeps a position for half a character
    error = ws_refusal({**PUSH, "updates": [{"changes": [5, [0, "a\x00\ud800"]], "clientID": "c"}]})
    assert (error.line, error.column) == (1, 3)  # placed where it is, the NUL before it counted
    error = ws_refusal({"type": "edit", "target": "document", "id": 1, "text": "x", "updates": [[0, [0, "\x00"]]]})
    assert error.path is not None and "NUL" in error.message


def test_a_refusal_names_the_clientseq_of_the_message_it_refuses(settings):
    """The page waits for the answer to its push before it pushes again: a refusal made before the message was
    read must still name it."""
    surrogate = json.dumps({**PUSH, "clientSeq": 41, "updates": [{"changes": [[0, "\ud800"]], "clientID": "c"}]})
    assert refused_seq(surrogate, None) == 41
    assert refused_seq(None, surrogate.encode()) == 41
    settings.PLAYGROUND_MAX_DOCUMENT_BYTES = 10
    head = {key: value for key, value in PUSH.items() if key != "clientSeq"}
    too_large = json.dumps({**head, "updates": [{"changes": [[0, "x" * 70_000]], "clientID": "c"}], "clientSeq": 7})
    assert refused_seq(too_large, None) == 7  # not read: found where the page puts it, at the end
    assert refused_seq(too_large[:-1] + ', "x": 1}', None) is None
    assert refused_seq("{not json", None) is None and refused_seq("[" * 100_000, None) is None


def test_text_is_kept_exactly_as_typed():
    assert validated(RequestInSerializer, {"name": "", "text": "  a: 1\n\n"}) == {"name": "", "text": "  a: 1\n\n"}


def test_a_rest_body_refuses_unknown_fields_a_message_drops_them():
    error = refusal(ProjectPatchSerializer, {"title": "t", "colour": "red"})
    assert (error.message, error.path) == (
        "colour: unknown field (expected title, description, kubernetesVersion)",
        "colour",
    )
    message = parse_client_message(
        json.dumps({"type": "meta", "title": "t", "colour": "red"}), None, messages.PROJECT_MESSAGES
    )
    assert message == {"type": "meta", "title": "t"}


def test_required_fields_and_null_as_not_given():
    error = ws_refusal({"type": "edit", "id": 1})
    assert (error.message, error.path) == ("target: this field is required", "target")
    edit = {"type": "edit", "target": "request", "id": 1, "text": None, "expected": None, "clientSeq": 3}
    assert parse_client_message(json.dumps(edit), None, messages.PROJECT_MESSAGES) == edit


def test_target_and_unknown_type_wording():
    assert ws_refusal({"type": "delete", "target": "pod", "id": 1}).message == 'target: must be "document" or "request"'
    error = ws_refusal({"type": "teleport"})
    assert (error.message, error.path) == ("unknown message type 'teleport'", "type")
    assert ws_refusal({"type": "rename", "target": "document", "id": 1, "name": ""}).message == (
        "name: rename needs a non-empty name"
    )


def test_rest_and_websocket_share_the_shape_and_its_wording(client):
    created = client.post("/api/v1/projects", project_body(), content_type="application/json").json()
    request_id = created["requests"][0]["id"]
    rest = client.put(
        f"/api/v1/projects/{created['id']}/requests/{request_id}",
        {"expected": "allowed"},
        content_type="application/json",
        HTTP_X_EDIT_TOKEN=created["editToken"],
    )
    assert rest.status_code == 400
    ws = ws_refusal({"type": "edit", "target": "request", "id": request_id, "expected": "allowed"})
    assert rest.json()["error"]["message"] == ws.message == "expected: must be an object or null, not string"
    assert rest.json()["error"]["path"] == ws.path == "expected"
    assert issubclass(messages.Edit, RequestInSerializer) and issubclass(messages.Meta, ProjectPatchSerializer)


def test_a_non_object_body_is_refused(client):
    response = client.post("/api/v1/evaluate", [1], content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "the body must be a JSON object"


@pytest.mark.parametrize(
    "service",
    [
        document_service.add_item,
        document_service.get_item,
        document_service.update_item,
        document_service.delete_item,
        project_service.update_metadata,
    ],
)
def test_services_take_keyword_only_arguments(service):
    parameters = inspect.signature(service).parameters.values()
    assert parameters and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)


def test_the_teacher_socket_and_rest_share_the_action_bodies():
    from playground.workshops.api import messages as workshop_messages
    from playground.workshops.api import serializers as workshop_bodies

    for message, body in [
        (workshop_messages.TimeBox, workshop_bodies.TimeBoxInSerializer),
        (workshop_messages.Announce, workshop_bodies.AnnounceInSerializer),
        (workshop_messages.Advance, workshop_bodies.AdvanceInSerializer),
        (workshop_messages.Present, workshop_bodies.PresentInSerializer),
    ]:
        assert issubclass(message, body)
    with pytest.raises(ServiceError) as caught:
        text = json.dumps({"type": "timeBox", "minutes": 5, "locks": 1})
        parse_client_message(text, None, workshop_messages.TEACHER_MESSAGES)
    assert (caught.value.code, caught.value.message) == ("invalid_message", "locks: must be true or false, not number")


def test_workshop_bodies_are_validated_at_the_edge(client):
    from tests.playground.workshops.workshop_fixtures import open_room

    room, _ = open_room()
    joined = client.post(f"/api/v1/workshops/rooms/{room['code']}/join", {"displayName": 5}, "application/json")
    assert (joined.status_code, joined.json()["error"]["path"]) == (400, "displayName")
    assert joined.json()["error"]["message"] == "displayName: must be a string, not number"
    opened = client.post("/api/v1/workshops/rooms", {"set": "admission-basics", "colour": 1}, "application/json")
    assert (opened.status_code, opened.json()["error"]["path"]) == (400, "colour")
    ada = client.post(f"/api/v1/workshops/rooms/{room['code']}/join", {"displayName": "Ada"}, "application/json")
    assert ada.status_code == 201
