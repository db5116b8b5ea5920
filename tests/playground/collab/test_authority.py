"""The central authority: every push is saved, rebased over what it missed; a lost ack never doubles a change."""

import pytest

from playground.collab import authority
from playground.collab import changes as change_sets
from playground.models import TextChange
from playground.services import document_service, project_service
from playground.core.errors import ServiceError

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    state, token = project_service.create_project("t", documents=[{"name": "a.yaml", "text": "hello"}])
    return state["id"], token, state["documents"][0]["id"]


def push(project, version, *changes, client="c1"):
    project_id, token, doc = project
    return authority.push(
        project_id=project_id,
        token=token,
        target="document",
        item_id=doc,
        version=version,
        updates=[{"changes": c, "clientID": client} for c in changes],
    )


def test_a_push_on_the_newest_version_is_saved_and_numbered(project):
    answer = push(project, 0, [5, [0, " world"]])
    assert answer["accepted"] and answer["collabVersion"] == 1 and answer["from"] == 0
    assert answer["item"]["text"] == "hello world"
    state = project_service.project_state(project[0])
    assert state["documents"][0]["text"] == "hello world" and state["documents"][0]["collabVersion"] == 1
    assert state["version"] == answer["version"]


def test_a_push_on_an_older_version_is_rebased_and_saved_at_once(project):
    push(project, 0, [5, [0, "!"]], client="first")
    answer = push(project, 0, [[0, ">"], 5], client="second")
    assert answer["accepted"] and answer["from"] == 0 and answer["collabVersion"] == 2 and answer["added"] == 1
    assert answer["updates"] == [  # what it missed, then its own as saved
        {"changes": [5, [0, "!"]], "clientID": "first"},
        {"changes": [[0, ">"], 6], "clientID": "second"},
    ]
    assert project_service.project_state(project[0])["documents"][0]["text"] == ">hello!"
    assert list(TextChange.objects.order_by("version").values_list("version", "client_id")) == [
        (1, "first"),
        (2, "second"),
    ]


def test_a_push_sent_again_after_a_lost_ack_is_saved_once(project):
    push(project, 0, [5, [0, "1"]], client="me")
    push(project, 1, [6, [0, "2"]], client="other")
    answer = push(project, 0, [5, [0, "1"]], [6, [0, "3"]], client="me")  # the first was saved already
    assert answer["added"] == 1 and answer["collabVersion"] == 3
    assert answer["updates"][-1] == {"changes": [7, [0, "3"]], "clientID": "me"}
    assert project_service.project_state(project[0])["documents"][0]["text"] == "hello123"
    again = push(project, 0, [5, [0, "1"]], client="me")
    assert again["added"] == 0 and len(again["updates"]) == 3


def test_a_push_whose_lengths_do_not_chain_is_refused(project):
    with pytest.raises(ServiceError, match="length 6, not 5"):
        push(project, 0, [6, [0, "x"]])
    push(project, 0, [5, [0, "!"]], client="first")
    with pytest.raises(ServiceError, match="length 7, not 6"):
        push(project, 0, [5, [0, "x"]], [7, [0, "y"]], client="second")  # its second must apply to 6 units
    assert project_service.project_state(project[0])["documents"][0]["text"] == "hello!"


def test_pull_returns_the_changes_since_a_version(project):
    push(project, 0, [5, [0, "1"]], [6, [0, "2"]])
    assert [
        u["changes"]
        for u in authority.pull(project_id=project[0], target="document", item_id=project[2], since=1)["updates"]
    ] == [[6, [0, "2"]]]


def test_a_whole_text_save_enters_the_history_as_a_small_change(project):
    project_id, token, doc = project
    document_service.update_item(project_id=project_id, token=token, target="document", item_id=doc, text="help")
    answer = authority.pull(project_id=project_id, target="document", item_id=doc, since=0)
    assert answer["updates"] == [{"changes": [3, [2, "p"]], "clientID": "server"}]
    assert push(project, 0, [5, [0, "x"]])["item"]["text"] == "helpx"  # rebased onto it


def test_pushes_need_the_edit_token(project):
    project_id, _, doc = project
    with pytest.raises(ServiceError) as error:
        authority.push(
            project_id=project_id,
            token="wrong",
            target="document",
            item_id=doc,
            version=0,
            updates=[{"changes": [5], "clientID": "c"}],
        )
    assert error.value.status == 403


@pytest.mark.parametrize(
    "updates",
    [[], "x", [{"changes": [5]}], [{"changes": [4], "clientID": "c"}], [{"changes": [5], "clientID": "c" * 100}], [7]],
)
def test_bad_pushes_are_refused_without_saving(project, updates):
    project_id, token, doc = project
    with pytest.raises(ServiceError):
        authority.push(project_id=project_id, token=token, target="document", item_id=doc, version=0, updates=updates)
    assert project_service.project_state(project_id)["documents"][0]["text"] == "hello"
    assert not TextChange.objects.exists()


def test_a_client_too_far_behind_gets_the_text(project, monkeypatch):
    project_id, _, doc = project
    push(project, 0, [5, [0, "1"]])
    TextChange.objects.all().delete()  # as if pruned
    answer = authority.pull(project_id=project_id, target="document", item_id=doc, since=0)
    assert answer["reset"] is True and answer["text"] == "hello1" and answer["collabVersion"] == 1


def test_deleting_a_text_forgets_its_history(project):
    project_id, token, doc = project
    push(project, 0, [5, [0, "1"]])
    document_service.delete_item(project_id=project_id, token=token, target="document", item_id=doc)
    assert not TextChange.objects.exists()


# -- a NUL typed and removed again (PostgreSQL cannot store it) ---------------------------------------------


def test_a_push_whose_text_holds_a_nul_is_refused_where_the_nul_is(project):
    with pytest.raises(ServiceError) as refused:
        push(project, 0, [5, [0, "", "b\x00c"]])
    error = refused.value
    assert (error.code, error.status, error.document, error.line, error.column) == (
        "invalid_request",
        400,
        "a.yaml",
        2,
        2,
    )
    assert "contains a NUL character" in error.message and "until it is removed" in error.message
    assert project_service.project_state(project[0])["documents"][0]["text"] == "hello"
    assert not TextChange.objects.exists()


@pytest.mark.parametrize("late", [False, True], ids=["newest version", "rebased"])
def test_a_nul_removed_within_the_push_saves_everything_typed_and_the_history_holds_a_stand_in(project, late):
    """Typed after a NUL, then the NUL deleted: one push of three changes. The history stores U+FFFD for the NUL
    (one UTF-16 unit, as the NUL), so a co-editor replaying it ends with the saved text."""
    if late:
        push(project, 0, [[0, ">"], 5], client="other")
    answer = push(project, 0, [5, [0, "\x00"]], [6, [0, " world"]], [5, [1], 6], client="me")
    assert answer["accepted"] and answer["item"]["text"] == (">hello world" if late else "hello world")
    mine = [u["changes"] for u in answer["updates"] if u["clientID"] == "me"]
    assert mine[0] == ([6, [0, "\ufffd"]] if late else [5, [0, "\ufffd"]])
    stored = list(TextChange.objects.order_by("version").values_list("changes", flat=True))
    assert "\x00" not in repr(stored) and "\ufffd" in repr(stored)
    replayed = "hello"
    for changes in stored:
        replayed = change_sets.apply(replayed, changes)
    assert replayed == answer["item"]["text"]


def test_a_squashed_push_is_never_rebased_it_gets_what_it_missed_and_goes_again(project):
    """The page squashes its unsent changes after a refusal; mapped as one over a co-editor's change it could
    break a tie otherwise than the page, which maps them one by one, so the server answers what it missed."""
    push(project, 0, [5, [0, "!"]], client="other")
    project_id, token, doc = project
    squashed = [{"changes": [[0, "ab"], 5], "clientID": "me"}, {"changes": [7], "clientID": "me"}]
    answer = authority.push(
        project_id=project_id, token=token, target="document", item_id=doc, version=0, updates=squashed, squashed=True
    )
    assert not answer["accepted"] and answer["updates"] == [{"changes": [5, [0, "!"]], "clientID": "other"}]
    assert TextChange.objects.count() == 1
    on_top = [{"changes": [[0, "ab"], 6], "clientID": "me"}, {"changes": [8], "clientID": "me"}]
    answer = authority.push(
        project_id=project_id, token=token, target="document", item_id=doc, version=1, updates=on_top, squashed=True
    )
    assert answer["accepted"] and answer["item"]["text"] == "abhello!" and answer["collabVersion"] == 3
