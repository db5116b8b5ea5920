"""A Redis outage against every kind of socket and the REST API, with the real Redis channel layer pointed at a
private redis-server that the tests stop and start: the sockets are told `unavailable` and closed with 4503
(never 1011, never a traceback), a socket opened meanwhile is told the same, REST writes keep succeeding, and
everything works again once Redis is back."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.batch import jobs
from playground.config import channel_layers_config
from playground.core import outage
from tests.playground.batch.dumps import dump
from tests.playground.live_server import PrivateRedis
from tests.playground.test_consumer import connect, make_project, receive_until
from tests.playground.workshops.workshop_fixtures import async_join, async_open_room, student_socket, teacher_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
TIMEOUT = 15
HOST = [(b"host", b"localhost"), (b"origin", b"http://localhost")]


@pytest.fixture
def redis(settings):
    """The Redis channel layer on a redis-server of this test's own."""
    server = PrivateRedis()
    server.start()
    settings.CHANNEL_LAYERS = channel_layers_config({"REDIS_URL": server.url, "REDIS_CONNECT_TIMEOUT_SECONDS": "0.5"})
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    yield server
    server.stop()


@pytest.fixture
def tracebacks(caplog):
    """Log records that carry a traceback: an outage must leave none."""
    caplog.set_level(logging.WARNING)
    return lambda: [record for record in caplog.records if record.exc_info]


async def told_unavailable_then_closed(ws: WebsocketCommunicator) -> None:
    """The socket's remaining output ends with the `unavailable` error and then the 4503 close."""
    seen = []
    async with asyncio.timeout(TIMEOUT):
        while True:
            output = await ws.receive_output(timeout=TIMEOUT)
            seen.append(output)
            if output["type"] == "websocket.close":
                break
    assert seen[-1].get("code") == 4503, seen
    assert seen[-2]["type"] == "websocket.send", seen
    assert json.loads(seen[-2]["text"])["error"]["code"] == "unavailable", seen
    await ws.send_input({"type": "websocket.disconnect", "code": 4503})
    await ws.wait(timeout=TIMEOUT)  # the consumer ends cleanly (an exception would be raised here)


async def test_a_project_room_is_told_and_closed_when_redis_goes_and_opens_again_when_it_returns(redis, tracebacks):
    state, token = await make_project()
    editor = await connect(state["id"], token)
    await receive_until(editor, "done")
    viewer = await connect(state["id"])
    await receive_until(editor, "viewers", lambda m: m["count"] == 2)
    redis.stop()
    for ws in (editor, viewer):  # the channel layer's read fails under both
        await told_unavailable_then_closed(ws)

    during = WebsocketCommunicator(application, f"/ws/projects/{state['id']}/", headers=HOST)
    connected, _ = await during.connect(timeout=TIMEOUT)
    assert connected  # accepted, so the page can read why it closes
    await told_unavailable_then_closed(during)

    redis.start()
    again = await connect(state["id"], token)
    await receive_until(again, "done")
    await again.disconnect(timeout=TIMEOUT)
    assert tracebacks() == []


async def test_workshop_sockets_are_told_and_closed_and_a_hello_during_the_outage_too(redis, tracebacks):
    room, teacher_token = await async_open_room()
    _, student_token, _ = await async_join(room["code"])
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    student, _ = await student_socket(room["code"], student_token)
    redis.stop()
    await told_unavailable_then_closed(teacher)
    await told_unavailable_then_closed(student)

    during = WebsocketCommunicator(application, f"/ws/rooms/{room['code']}/student/", headers=HOST)
    connected, _ = await during.connect(timeout=TIMEOUT)
    assert connected
    await during.send_json_to({"type": "hello", "token": student_token})
    await told_unavailable_then_closed(during)

    redis.start()
    student, welcome = await student_socket(room["code"], student_token)
    assert welcome["type"] == "welcome"
    await student.disconnect(timeout=TIMEOUT)
    assert tracebacks() == []


async def test_a_batch_progress_socket_is_told_and_closed(redis, tracebacks):
    state, _ = await make_project()
    job, token = await database_sync_to_async(jobs.create_job)(state["id"], None, [("dump.yaml", dump(3))])
    ws = WebsocketCommunicator(application, f"/ws/batch/{job['id']}/", headers=HOST)
    assert (await ws.connect(timeout=TIMEOUT))[0]
    redis.stop()
    await ws.send_json_to({"type": "hello", "token": token})  # joining its group needs Redis
    await told_unavailable_then_closed(ws)
    assert tracebacks() == []


async def test_rest_writes_succeed_during_the_outage_and_their_broadcast_is_one_warning(
    redis, tracebacks, async_client, caplog, monkeypatch
):
    monkeypatch.setattr(outage, "_LAST", {})  # no outage reported yet in this period
    state, token = await make_project()
    redis.stop()
    for title in ("first", "second"):
        response = await async_client.patch(
            f"/api/v1/projects/{state['id']}",
            {"title": title},
            content_type="application/json",
            headers={"X-Edit-Token": token},
        )
        assert response.status_code == 200, response.content
    assert response.json()["title"] == "second"
    warnings = [r.getMessage() for r in caplog.records if r.name == "playground.core.outage"]
    assert len(warnings) == 1 and all("broadcast unavailable" in w for w in warnings), warnings
    assert tracebacks() == []


async def test_the_layers_detached_cleanup_is_an_outage_line_not_a_lost_traceback(redis, caplog, monkeypatch):
    from channels.layers import get_channel_layer

    monkeypatch.setattr(outage, "_LAST", {})
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "x"})
    assert (await layer.receive(channel))["type"] == "x"
    redis.stop()
    await layer._clean_receive_backup(0, channel.split("!")[0] + "!")  # as its detached task does
    assert [r.getMessage()[:34] for r in caplog.records if r.name == "playground.core.outage"] == [
        "channel layer unavailable (Connect"
    ]
