"""The short save of an edited text (playground/collab/text_save.py) leaves the same rows and answers as the
general save (`document_service.update_item` through the ORM), refusals included."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.core.errors import ServiceError
from playground.models import Document, Project, SampleRequest, TextChange
from playground.collab import text_save
from playground.services import document_service, project_service

pytestmark = pytest.mark.django_db(transaction=True)

POLICY = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits}\ndata: {max: '3'}\n"
REQUEST = "kind: AdmissionReview\nrequest:\n  operation: CREATE\n  object: {apiVersion: v1, kind: Pod}\n"
EXPECTED = {"allowed": False, "messageContains": "too many"}


def project() -> tuple[dict, str]:
    state, token = project_service.create_project(
        "p", "", [{"name": "limits", "text": POLICY}], [{"name": "pod", "text": REQUEST, "expected": EXPECTED}]
    )
    return state, token


@pytest.fixture
def general(monkeypatch):
    """Saves take the general (ORM) path."""
    monkeypatch.setattr(text_save, "can_save", lambda *args: False)


def rows(project_id: str) -> dict:
    """What a save leaves in the database, without ids and timestamps."""
    return {
        "version": Project.objects.get(pk=project_id).version,
        "documents": list(
            Document.objects.filter(project_id=project_id).values(
                "name", "text", "version", "position", "collab_version"
            )
        ),
        "requests": list(
            SampleRequest.objects.filter(project_id=project_id).values(
                "name", "text", "version", "position", "collab_version", "expected"
            )
        ),
        "changes": list(
            TextChange.objects.filter(project_id=project_id)
            .order_by("target", "version")
            .values("target", "version", "changes", "client_id")
        ),
    }


def edits(state: dict, token: str) -> list:
    """A run of saves: typing, the same text again, a request edit, a change back; each answer without ids."""
    document, request = state["documents"][0], state["requests"][0]
    answers = []
    for target, item, text in [
        ("document", document, POLICY.replace("'3'", "'4'")),
        ("document", document, POLICY.replace("'3'", "'45'")),
        ("document", document, POLICY.replace("'3'", "'45'")),  # unchanged: a new version, no history row
        ("request", request, REQUEST.replace("Pod", "Pod\n    # é ✓ 𝄞")),
        ("document", document, POLICY),
    ]:
        saved = document_service.update_item(
            project_id=state["id"], token=token, target=target, item_id=item["id"], text=text
        )
        assert saved["item"].pop("id") == item["id"]
        answers.append(saved)
    return answers


def test_the_short_save_answers_and_stores_what_the_general_one_does(monkeypatch):
    short_state, short_token = project()
    short = edits(short_state, short_token)
    monkeypatch.setattr(text_save, "can_save", lambda *args: False)
    general_state, general_token = project()
    assert edits(general_state, general_token) == short
    assert rows(short_state["id"]) == rows(general_state["id"])
    assert short[3]["item"]["expected"] == EXPECTED
    assert [answer["version"] for answer in short] == [2, 3, 4, 5, 6]


def test_the_short_save_takes_fewer_statements():
    state, token = project()
    with CaptureQueriesContext(connection) as short:
        document_service.update_item(
            project_id=state["id"], token=token, target="document", item_id=state["documents"][0]["id"], text="a: 1"
        )
    assert len(short.captured_queries) <= 8  # BEGIN, version, fork check, item and sums, history, item, COMMIT


@pytest.mark.parametrize("path", ["short", "general"])
def test_refusals_are_the_same_and_change_nothing(path, request):
    if path == "general":
        request.getfixturevalue("general")
    state, token = project()
    item_id = state["documents"][0]["id"]
    before = rows(state["id"])

    def save(**overrides):
        fields = {"project_id": state["id"], "token": token, "target": "document", "item_id": item_id, "text": "x: 1"}
        with pytest.raises(ServiceError) as refused:
            document_service.update_item(**{**fields, **overrides})
        return refused.value.code, refused.value.status

    assert save(token="wrong") == ("forbidden", 403)
    assert save(project_id="nope") == ("not_found", 404)
    assert save(item_id=state["requests"][0]["id"] + 1000) == ("not_found", 404)
    assert save(target="request", item_id=item_id + 1000) == ("not_found", 404)
    assert rows(state["id"]) == before


@pytest.mark.parametrize("path", ["short", "general"])
def test_a_project_over_its_size_limit_is_refused_either_way(path, request, settings):
    if path == "general":
        request.getfixturevalue("general")
    state, token = project()
    settings.PLAYGROUND_MAX_PROJECT_BYTES = len(POLICY) + len(REQUEST) + 10
    fields = {"project_id": state["id"], "token": token, "target": "document", "item_id": state["documents"][0]["id"]}
    saved = document_service.update_item(**fields, text=POLICY + "#" * 10)  # at the limit: near it, saved
    assert saved["item"]["text"] == POLICY + "#" * 10
    before = rows(state["id"])
    with pytest.raises(ServiceError) as refused:
        document_service.update_item(**fields, text=POLICY + "é" * 6)  # 11 characters, 12 bytes: over
    assert refused.value.code == "too_large"
    assert rows(state["id"]) == before


def pushes(state: dict, token: str) -> list:
    """A run of co-editing pushes: typing, a non-BMP character, a push behind the history (rebased), two
    refused ones (wrong length, over the text limit); each answer or refusal, without ids."""
    from playground.collab import authority

    request = state["requests"][0]
    answers = []
    for version, changes, client in [
        (0, [len(REQUEST), [0, "# a"]], "one"),
        (1, [len(REQUEST) + 3, [0, " 𝄞"]], "one"),
        (1, [[0, "# b", ""], len(REQUEST) + 3], "two"),  # made before "one"'s second push: rebased over it
        (3, [1, [0, "x"]], "one"),  # the wrong length: refused
        (3, [len(REQUEST) + 10, [0, "y" * 70_000]], "one"),  # over the text's limit: refused
    ]:
        try:
            answer = authority.push(
                project_id=state["id"],
                token=token,
                target="request",
                item_id=request["id"],
                version=version,
                updates=[{"changes": changes, "clientID": client}],
            )
        except ServiceError as refused:
            answers.append((refused.code, refused.status))
            continue
        assert answer["item"].pop("id") == request["id"]
        answer["item"].pop("origin", None)
        answers.append(answer)
    return answers


def statements_of_one_push() -> int:
    """The statements a push typed on the newest text takes."""
    from playground.collab import authority

    state, token = project()
    item = state["documents"][0]
    with CaptureQueriesContext(connection) as captured:
        authority.push(
            project_id=state["id"],
            token=token,
            target="document",
            item_id=item["id"],
            version=0,
            updates=[{"changes": [len(POLICY), [0, "#"]], "clientID": "one"}],
        )
    return len(captured.captured_queries)


def test_a_push_takes_the_short_save_and_answers_and_stores_what_the_orm_push_does(monkeypatch, settings):
    settings.PLAYGROUND_MAX_DOCUMENT_BYTES = 64_000
    short_state, short_token = project()
    short_statements = statements_of_one_push()
    short = pushes(short_state, short_token)
    monkeypatch.setattr(text_save, "can_save", lambda *args: False)
    general_state, general_token = project()
    assert pushes(general_state, general_token) == short
    assert short_statements < statements_of_one_push()
    assert rows(short_state["id"]) == rows(general_state["id"])
    assert [a if isinstance(a, tuple) else a["collabVersion"] for a in short] == [
        1,
        2,
        3,
        ("invalid_message", 400),
        ("too_large", 413),
    ]
    assert short[2]["updates"][0]["clientID"] == "one"  # what "two" missed, then its own
