"""A late push through the real project consumer: saved at once, its ack carries what the pusher missed and
its own change as saved, the others get only the new change."""

import asyncio

import pytest
from channels.db import database_sync_to_async

from playground.services import live, project_service
from tests.playground.test_consumer import TIMEOUT, connect, receive_until

pytestmark = pytest.mark.django_db(transaction=True)


def create():
    state, token = project_service.create_project("t", documents=[{"name": "a.yaml", "text": "hello"}])
    return state["id"], token, state["documents"][0]["id"]


def push(doc, version, changes, client, seq):
    return {
        "type": "push",
        "target": "document",
        "id": doc,
        "version": version,
        "updates": [{"changes": changes, "clientID": client}],
        "clientSeq": seq,
    }


async def test_a_late_push_is_rebased_and_acknowledged_with_what_was_missed():
    project_id, token, doc = await database_sync_to_async(create)()
    first, second = await connect(project_id), await connect(project_id)
    for ws in (first, second):
        await ws.send_json_to({"type": "hello", "token": token, "version": 0})
        await receive_until(ws, "state", lambda m: m["canEdit"])
    await first.send_json_to(push(doc, 0, [5, [0, "!"]], "first", 1))
    await receive_until(first, "ack", lambda m: m["clientSeq"] == 1)
    await second.send_json_to(push(doc, 0, [[0, ">"], 5], "second", 7))  # made before it saw "!"
    ack, _ = await receive_until(second, "ack", lambda m: m["clientSeq"] == 7)
    assert (ack["from"], ack["collabVersion"]) == (0, 2)
    assert ack["updates"] == [
        {"changes": [5, [0, "!"]], "clientID": "first"},
        {"changes": [[0, ">"], 6], "clientID": "second"},
    ]
    echo, _ = await receive_until(first, "updates", lambda m: m.get("by") is not None)
    assert (echo["from"], echo["updates"]) == (1, [{"changes": [[0, ">"], 6], "clientID": "second"}])
    saved = await database_sync_to_async(project_service.project_state)(project_id)
    assert saved["documents"][0]["text"] == ">hello!"
    for ws in (first, second):
        await ws.disconnect(timeout=TIMEOUT)


async def test_a_push_is_evaluated_at_once_with_no_wait_for_more_typing():
    """The page holds its next push until this one's results are shown, so the server must not wait for more
    typing: by the time the pusher reads its ack, the project's runner has been asked for that version."""
    project_id, token, doc = await database_sync_to_async(create)()
    ws = await connect(project_id)
    await ws.send_json_to({"type": "hello", "token": token, "version": 0})
    await receive_until(ws, "state", lambda m: m["canEdit"])
    await ws.send_json_to(push(doc, 0, [5, [0, "!"]], "me", 1))
    ack, _ = await receive_until(ws, "ack", lambda m: m["clientSeq"] == 1)
    for _ in range(5):  # the handler's last steps after its ack; no clock time passes
        await asyncio.sleep(0)
    runner = live._RUNNERS.get(project_id)  # the project's runner, made by the first evaluation it was asked for
    assert runner is not None and runner.wanted == ack["version"]
    done, _ = await receive_until(ws, "done", lambda m: m["version"] == ack["version"])
    assert done["version"] == ack["version"]
    await ws.disconnect(timeout=TIMEOUT)


async def test_a_push_holding_a_nul_is_refused_by_its_clientseq_and_the_one_deleting_it_saves_both():
    """The NUL is placed in the document (line and column), not in the message; a push refused by the input
    checks (half a character) names its clientSeq too, so the page pushes again."""
    project_id, token, doc = await database_sync_to_async(create)()
    ws = await connect(project_id)
    await ws.send_json_to({"type": "hello", "token": token, "version": 0})
    await receive_until(ws, "state", lambda m: m["canEdit"])
    await ws.send_json_to(push(doc, 0, [5, [0, "", "a\x00"]], "me", 3))
    error, _ = await receive_until(ws, "error", lambda m: m.get("clientSeq") == 3)
    assert (error["error"]["document"], error["error"]["line"], error["error"]["column"]) == ("a.yaml", 2, 2)
    await ws.send_json_to(push(doc, 0, [5, [0, "\ud800"]], "me", 4))
    error, _ = await receive_until(ws, "error", lambda m: m.get("clientSeq") == 4)
    assert "lone surrogate" in error["error"]["message"]
    message = push(doc, 0, [5, [0, "", "a\x00"]], "me", 5)
    message["updates"].append({"changes": [7, [1]], "clientID": "me"})  # the NUL deleted
    await ws.send_json_to(message)
    ack, _ = await receive_until(ws, "ack", lambda m: m["clientSeq"] == 5)
    assert ack["collabVersion"] == 2 and ack["updates"][0]["changes"] == [5, [0, "", "a\ufffd"]]
    saved = await database_sync_to_async(project_service.project_state)(project_id)
    assert saved["documents"][0]["text"] == "hello\na"
    await ws.disconnect(timeout=TIMEOUT)
