"""The project room over a WebSocket (channels' WebsocketCommunicator against the real ASGI application)."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.evaluation import pool
from playground.services import project_service
from tests.playground.playground_fixtures import deployment, project_body

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10
HOST = [(b"host", b"localhost"), (b"origin", b"http://localhost")]


async def make_project():
    return await database_sync_to_async(project_service.create_project)(**_create_args())


def _create_args():
    body = project_body()
    return {"title": body["title"], "documents": body["documents"], "requests": body["requests"]}


async def connect(project_id, token=None):
    await asyncio.to_thread(pool.wait_until_started)  # time the room, not the start of the worker processes
    path = f"/ws/projects/{project_id}/" + (f"?token={token}" if token else "")
    communicator = WebsocketCommunicator(application, path, headers=HOST)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def receive_until(communicator, kind, predicate=lambda m: True):
    """Messages up to and including the first of this type that satisfies the predicate."""
    seen = []
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        seen.append(message)
        if message["type"] == kind and predicate(message):
            return message, seen


async def test_connect_sends_state_then_streams_results_request_by_request():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    first = await ws.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "state" and first["version"] == state["version"] and first["canEdit"] is True
    assert first["viewers"] == 1 and "editToken" not in first["project"]
    done, seen = await receive_until(ws, "done")
    results = [m for m in seen if m["type"] == "result"]
    assert [r["request"]["name"] for r in results] == ["small", "big"]
    assert [r["request"]["verdict"] for r in results] == ["pass", "pass"]
    assert any(m["type"] == "documentErrors" for m in seen)
    assert done["version"] == state["version"] and done["ms"] >= 0
    await ws.disconnect(timeout=TIMEOUT)


async def test_edit_is_acked_saved_broadcast_and_re_evaluated():
    state, token = await make_project()
    editor = await connect(state["id"], token)
    await receive_until(editor, "done")
    viewer = await connect(state["id"])
    viewer_state, _ = await receive_until(viewer, "state")
    assert viewer_state["canEdit"] is False
    await receive_until(viewer, "done")
    await receive_until(editor, "viewers", lambda m: m["count"] == 2)

    req_id = state["requests"][0]["id"]
    await editor.send_json_to(
        {"type": "edit", "target": "request", "id": req_id, "text": deployment(8), "clientSeq": 7}
    )
    ack, _ = await receive_until(editor, "ack")
    assert ack["clientSeq"] == 7 and ack["version"] == state["version"] + 1
    result, _ = await receive_until(editor, "result", lambda m: m["version"] == ack["version"])
    assert result["request"]["name"] == "small" and result["request"]["verdict"] == "fail"
    assert result["request"]["result"]["allowed"] is False

    edited, _ = await receive_until(viewer, "edited")
    assert edited["text"] == deployment(8) and edited["version"] == ack["version"] and edited["id"] == req_id
    viewer_result, _ = await receive_until(viewer, "result", lambda m: m["version"] == ack["version"])
    assert viewer_result["request"]["verdict"] == "fail"
    saved = await database_sync_to_async(project_service.project_state)(state["id"])
    assert saved["requests"][0]["text"] == deployment(8) and saved["version"] == ack["version"]
    await editor.disconnect(timeout=TIMEOUT)
    await viewer.disconnect(timeout=TIMEOUT)


async def test_broken_yaml_is_saved_and_reported_at_its_line():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    doc_id = state["documents"][1]["id"]
    broken = "kind: ValidatingAdmissionPolicyBinding\nspec: [\n"
    await ws.send_json_to({"type": "edit", "target": "document", "id": doc_id, "text": broken, "clientSeq": 1})
    ack, _ = await receive_until(ws, "ack")
    errors, _ = await receive_until(ws, "documentErrors", lambda m: m["version"] == ack["version"])
    bad = errors["documents"][1]
    assert bad["id"] == doc_id and bad["errors"][0]["line"] == 3
    saved = await database_sync_to_async(project_service.project_state)(state["id"])
    assert saved["documents"][1]["text"] == broken
    await ws.disconnect(timeout=TIMEOUT)


async def test_viewers_without_token_cannot_write():
    state, _ = await make_project()
    ws = await connect(state["id"], "not-the-token")
    await receive_until(ws, "done")
    await ws.send_json_to(
        {"type": "edit", "target": "document", "id": state["documents"][0]["id"], "text": "x", "clientSeq": 3}
    )
    error, _ = await receive_until(ws, "error")
    assert error["error"]["code"] == "forbidden" and error["clientSeq"] == 3
    saved = await database_sync_to_async(project_service.project_state)(state["id"])
    assert saved["version"] == state["version"]
    await ws.disconnect(timeout=TIMEOUT)


async def test_hello_resyncs_a_client_that_is_behind_only():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    await ws.send_json_to({"type": "hello", "version": state["version"]})
    await ws.send_json_to({"type": "hello", "version": state["version"] - 1})
    resync, seen = await receive_until(ws, "state")
    assert resync["version"] == state["version"]
    assert not [m for m in seen[:-1] if m["type"] == "state"]  # the up-to-date hello got no state
    await ws.disconnect(timeout=TIMEOUT)


async def test_a_client_that_asks_for_bundles_gets_each_evaluation_in_one_frame_in_order():
    """hello {bundle: true}: documentErrors, every result and done of a version come as one `bundle` frame,
    alone in a room and through the group beside a viewer who did not ask (and still gets a frame each)."""
    state, token = await make_project()
    editor = await connect(state["id"], token)
    await receive_until(editor, "done")
    await editor.send_json_to({"type": "hello", "version": state["version"], "bundle": True})
    req_id = state["requests"][0]["id"]

    async def edit_and_read_frames(ws, replicas, seq):
        await ws.send_json_to(
            {"type": "edit", "target": "request", "id": req_id, "text": deployment(replicas), "clientSeq": seq}
        )
        ack, _ = await receive_until(ws, "ack", lambda m: m["clientSeq"] == seq)
        bundle, _ = await receive_until(ws, "bundle", lambda m: m["messages"][-1]["version"] == ack["version"])
        return ack, bundle

    ack, bundle = await edit_and_read_frames(editor, 8, 1)
    parts = bundle["messages"]
    assert [m["type"] for m in parts] == ["documentErrors", "result", "result", "done"]
    assert {m["version"] for m in parts} == {ack["version"]}
    assert [m["request"]["name"] for m in parts[1:3]] == ["small", "big"]
    assert parts[1]["request"]["result"]["allowed"] is False

    viewer = await connect(state["id"])
    await receive_until(viewer, "done")
    await receive_until(editor, "viewers", lambda m: m["count"] == 2)
    ack, bundle = await edit_and_read_frames(editor, 2, 2)
    assert [m["type"] for m in bundle["messages"]] == ["documentErrors", "result", "result", "done"]
    done, seen = await receive_until(viewer, "done", lambda m: m["version"] == ack["version"])
    one_by_one = [m for m in seen if m.get("version") == ack["version"] and m["type"] != "edited"]
    assert one_by_one == bundle["messages"]  # the same messages, a frame each for who did not ask
    await viewer.disconnect(timeout=TIMEOUT)
    await editor.disconnect(timeout=TIMEOUT)


async def test_a_client_that_keeps_results_is_sent_only_the_results_that_changed():
    """hello {unchanged: true}: a result this connection last sent the client comes as `unchanged` (its digest,
    the head with the verdict of now, no result), a changed one in full; alone in a room and through the group
    beside a viewer who did not ask (who still gets every result in full). evaluate {full: true} (the client
    lacks one) sends every result in full again."""
    state, token = await make_project()
    editor = await connect(state["id"], token)
    await receive_until(editor, "done")
    await editor.send_json_to({"type": "hello", "version": state["version"], "unchanged": True})
    small_id, big_id = (r["id"] for r in state["requests"])
    seq = 0

    async def results_after(message) -> dict:
        nonlocal seq
        seq += 1
        await editor.send_json_to({**message, "clientSeq": seq})
        ack, _ = await receive_until(editor, "ack", lambda m: m["clientSeq"] == seq)
        _, seen = await receive_until(editor, "done", lambda m: m["version"] == ack["version"])
        return {m["request"]["name"]: {**m["request"], "at": m["version"]} for m in seen if m["type"] == "result"}

    def edit(item_id, text=None, expected=None) -> dict:
        fields = {"text": text} if text is not None else {"expected": expected}
        return {"type": "edit", "target": "request", "id": item_id, **fields}

    first = await results_after(edit(big_id, deployment(8)))
    assert all("result" in r and "unchanged" not in r for r in first.values())  # after the hello: all in full
    second = await results_after(edit(big_id, deployment(7)))
    kept = {k: v for k, v in first["small"].items() if k not in ("result", "at")}
    assert second["small"] == {**kept, "unchanged": True, "at": second["big"]["at"]}
    assert second["big"]["result"]["allowed"] is False and second["big"]["digest"] != first["big"]["digest"]
    third = await results_after(edit(small_id, expected={"allowed": False}))
    assert third["small"]["unchanged"] is True and third["small"]["verdict"] == "fail"  # the verdict of now
    assert third["small"]["digest"] == first["small"]["digest"] and third["big"]["unchanged"] is True

    viewer = await connect(state["id"])
    await receive_until(viewer, "done")
    await receive_until(editor, "viewers", lambda m: m["count"] == 2)
    fourth = await results_after(edit(big_id, deployment(6)))
    assert fourth["small"]["unchanged"] is True and "result" in fourth["big"]
    _, seen = await receive_until(viewer, "done", lambda m: m["version"] == fourth["big"]["at"])
    shown = [m["request"] for m in seen if m["type"] == "result" and m["version"] == fourth["big"]["at"]]
    assert len(shown) == 2 and all("result" in r for r in shown)  # who did not ask: every result in full

    seq += 1
    await editor.send_json_to({"type": "evaluate", "full": True, "clientSeq": seq})
    _, seen = await receive_until(editor, "done")
    assert sorted(m["request"]["name"] for m in seen if m["type"] == "result" and "result" in m["request"]) == [
        "big",
        "small",
    ]
    await viewer.disconnect(timeout=TIMEOUT)
    await editor.disconnect(timeout=TIMEOUT)


async def test_superseded_versions_are_not_sent():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    req_id = state["requests"][1]["id"]
    for seq, replicas in enumerate(range(10, 16)):
        await ws.send_json_to(
            {"type": "edit", "target": "request", "id": req_id, "text": deployment(replicas), "clientSeq": seq}
        )
    last = state["version"] + 6
    _, seen = await receive_until(ws, "done", lambda m: m["version"] == last)
    acks = [m["version"] for m in seen if m["type"] == "ack"]
    assert acks == list(range(state["version"] + 1, last + 1))
    results = [m for m in seen if m["type"] == "result"]
    # versions only go up, and the newest state's results all arrive
    versions = [m["version"] for m in results]
    assert versions == sorted(versions)
    assert {m["request"]["name"] for m in results if m["version"] == last} == {"small", "big"}
    await ws.disconnect(timeout=TIMEOUT)


async def test_create_rename_delete_broadcast_state():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    await ws.send_json_to(
        {
            "type": "create",
            "target": "request",
            "name": "new",
            "text": deployment(1),
            "expected": {"allowed": True},
            "clientSeq": 1,
        }
    )
    ack, _ = await receive_until(ws, "ack")
    new_state, _ = await receive_until(ws, "state", lambda m: m["version"] == ack["version"])
    assert [r["name"] for r in new_state["project"]["requests"]] == ["small", "big", "new"]
    await ws.send_json_to({"type": "rename", "target": "request", "id": ack["id"], "name": "renamed", "clientSeq": 2})
    renamed, _ = await receive_until(ws, "state", lambda m: m["version"] == ack["version"] + 1)
    assert renamed["project"]["requests"][2]["name"] == "renamed"
    await ws.send_json_to({"type": "delete", "target": "request", "id": ack["id"], "clientSeq": 3})
    deleted, _ = await receive_until(ws, "state", lambda m: m["version"] == ack["version"] + 2)
    assert len(deleted["project"]["requests"]) == 2
    await ws.disconnect(timeout=TIMEOUT)


async def test_bad_messages_get_errors_not_a_dropped_connection():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    await ws.send_to(text_data="{not json")
    error, _ = await receive_until(ws, "error")
    assert error["error"]["code"] == "invalid_json" and error["error"]["column"] == 2
    await ws.send_json_to({"type": "teleport"})
    error, _ = await receive_until(ws, "error")
    assert error["error"]["code"] == "invalid_message"
    await ws.send_json_to({"type": "edit", "target": "document", "id": 999999, "text": "", "clientSeq": 1})
    error, _ = await receive_until(ws, "error")
    assert error["error"]["code"] == "not_found"
    await ws.send_json_to({"type": "hello", "version": 0})
    await receive_until(ws, "state")
    await ws.disconnect(timeout=TIMEOUT)


async def test_unknown_project_is_refused():
    ws = WebsocketCommunicator(application, "/ws/projects/missing/", headers=HOST)
    connected, _ = await ws.connect(timeout=TIMEOUT)
    assert connected
    error = await ws.receive_json_from(timeout=TIMEOUT)
    assert error["type"] == "error" and error["error"]["code"] == "not_found"
    closed = await ws.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4404


async def test_explicit_evaluate_is_rate_limited(settings):
    settings.PLAYGROUND_WS_EVALUATIONS_BURST = 2
    settings.PLAYGROUND_WS_EVALUATIONS_PER_SECOND = 0.01
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    for _ in range(3):
        await ws.send_json_to({"type": "evaluate"})
    error, _ = await receive_until(ws, "error")
    assert error["error"]["code"] == "rate_limited" and error["error"]["status"] == 429
    await ws.disconnect(timeout=TIMEOUT)


async def test_viewer_count_follows_connections():
    state, _ = await make_project()
    first = await connect(state["id"])
    await receive_until(first, "viewers", lambda m: m["count"] == 1)
    second = await connect(state["id"])
    await receive_until(first, "viewers", lambda m: m["count"] == 2)
    await second.disconnect(timeout=TIMEOUT)
    await receive_until(first, "viewers", lambda m: m["count"] == 1)
    await first.disconnect(timeout=TIMEOUT)
    await asyncio.sleep(0)


async def test_meta_sets_the_kubernetes_version_and_re_evaluates():
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    await ws.send_json_to({"type": "meta", "kubernetesVersion": "1.32", "clientSeq": 3})
    ack, _ = await receive_until(ws, "ack")
    new_state, _ = await receive_until(ws, "state", lambda m: m["version"] == ack["version"])
    assert new_state["project"]["kubernetesVersion"] == "1.32"
    result, _ = await receive_until(ws, "result", lambda m: m["version"] == ack["version"])
    assert result["request"]["result"]["kubernetesVersion"] == "1.32"
    await ws.send_json_to({"type": "meta", "kubernetesVersion": "0.1", "clientSeq": 4})
    error, _ = await receive_until(ws, "error")
    assert "supported are" in error["error"]["message"]
    await ws.disconnect(timeout=TIMEOUT)


async def test_a_room_of_one_gets_its_results_without_the_channel_layer_and_a_room_of_two_through_it(monkeypatch):
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    sent_kinds: list[str] = []
    group_send = layer.group_send

    async def counted(group, message):
        sent_kinds.append(message.get("kind"))
        await group_send(group, message)

    monkeypatch.setattr(layer, "group_send", counted)
    state, token = await make_project()
    editor = await connect(state["id"], token)
    await receive_until(editor, "done")
    req_id = state["requests"][0]["id"]
    await editor.send_json_to(
        {"type": "edit", "target": "request", "id": req_id, "text": deployment(8), "clientSeq": 1}
    )
    ack, _ = await receive_until(editor, "ack")
    await receive_until(editor, "done", lambda m: m["version"] == ack["version"])
    assert "batch" not in sent_kinds  # the one viewer got the results directly

    viewer = await connect(state["id"])
    await receive_until(viewer, "done")
    await receive_until(editor, "viewers", lambda m: m["count"] == 2)
    await editor.send_json_to(
        {"type": "edit", "target": "request", "id": req_id, "text": deployment(2), "clientSeq": 2}
    )
    ack, _ = await receive_until(editor, "ack")
    for ws in (editor, viewer):
        result, _ = await receive_until(ws, "result", lambda m: m["version"] == ack["version"])
        assert result["request"]["result"]["allowed"] is True
    assert "batch" in sent_kinds  # two viewers: through the group
    await viewer.disconnect(timeout=TIMEOUT)
    await editor.disconnect(timeout=TIMEOUT)


async def test_a_viewer_joining_a_room_of_one_catches_up_on_what_the_room_sent_it_directly(monkeypatch):
    """While the first viewer has not yet heard of the second, its room's messages go to it alone; the
    newcomer looks again a moment after joining and gets the newer state and its results."""
    from playground.services import document_service, presence

    monkeypatch.setattr("playground.consumers.CATCH_UP_SECONDS", 0.3)
    state, token = await make_project()
    await database_sync_to_async(presence.join)(state["id"], "a-viewer-elsewhere")  # the room of one
    viewer = await connect(state["id"])
    joined, _ = await receive_until(viewer, "state")
    assert joined["viewers"] == 2
    await receive_until(viewer, "done")
    req_id = state["requests"][0]["id"]
    saved = await database_sync_to_async(document_service.update_item)(  # saved, told only to the other one
        project_id=state["id"], token=token, target="request", item_id=req_id, text=deployment(2)
    )
    caught_up, _ = await receive_until(viewer, "state", lambda m: m["version"] == saved["version"])
    assert "replicas: 2" in caught_up["project"]["requests"][0]["text"]
    result, _ = await receive_until(viewer, "result", lambda m: m["version"] == saved["version"])
    assert result["request"]["result"]["allowed"] is True
    await viewer.disconnect(timeout=TIMEOUT)
