"""SIGTERM to the server as deployed (daphne): every open WebSocket — project room, workshop teacher and
student, batch progress — is told `reconnect` and then closed with 4012, an edit is either acknowledged and
kept or not acknowledged, and the process exits within PLAYGROUND_SHUTDOWN_SECONDS. Slow: real processes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.playground.batch.dumps import dump
from tests.playground.live_server import Daphne
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.slow

SHUTDOWN_SECONDS = 8
EXIT_MARGIN_SECONDS = 4  # the reactor's own stop and the interpreter's exit


async def first(ws, kind: str) -> dict:
    async with asyncio.timeout(60):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message


async def until_closed(ws) -> list[dict]:
    """Every message the socket gets until the server closes it."""
    seen = []
    async with asyncio.timeout(SHUTDOWN_SECONDS + EXIT_MARGIN_SECONDS):
        try:
            while True:
                seen.append(json.loads(await ws.recv()))
        except ConnectionClosed:
            return seen


async def pusher(ws, doc: str, acked: list[str], told: list[dict]) -> int | None:
    """Push insertions one after another until the server closes; `acked` gets every acknowledged one."""
    version, length, n = 0, len("start"), 0
    try:
        async with asyncio.timeout(SHUTDOWN_SECONDS + EXIT_MARGIN_SECONDS):
            while True:
                marker = f"<{n}>"
                update = {"clientID": "k", "changes": [length, [0, marker]]}
                push = {"type": "push", "target": "document", "id": doc, "version": version, "clientSeq": n}
                await ws.send(json.dumps({**push, "updates": [update]}))
                while True:
                    message = json.loads(await ws.recv())
                    told.append(message)
                    if message["type"] == "ack" and message.get("clientSeq") == n:
                        acked.append(marker)
                        version, length, n = message["collabVersion"], length + len(marker), n + 1
                        break
                    assert message["type"] != "error", message
    except ConnectionClosed as closed:
        told.extend(await until_closed(ws))  # what came before the close and was not read yet (a send failed)
        return closed.rcvd.code if closed.rcvd else None


@pytest.fixture
def server(tmp_path):
    live = Daphne(tmp_path, PLAYGROUND_SHUTDOWN_SECONDS=str(SHUTDOWN_SECONDS))
    live.migrate()
    live.start()
    yield live
    live.stop()


async def test_sigterm_tells_every_socket_to_reconnect_and_exits_within_the_bound(server):
    one_document = {**project_body(), "documents": [{"name": "doc.yaml", "text": "start"}]}
    status, project = server.request("POST", "/api/v1/projects", one_document)
    assert status == 201, project
    status, room = server.request("POST", "/api/v1/workshops/rooms", {"set": "admission-basics"})
    assert status == 201, room
    status, student = server.request("POST", f"/api/v1/workshops/rooms/{room['code']}/join", {"displayName": "Ada"})
    assert status == 201, student
    status, policies = server.request("POST", "/api/v1/projects", project_body())
    assert status == 201
    status, job = server.request("POST", "/api/v1/batch/jobs", {"project": policies["id"], "text": dump(3)})
    assert status == 201, job

    origin = server.http
    room_url = f"{server.ws}/ws/projects/{project['id']}/"
    async with (
        connect(room_url, origin=origin) as viewer,
        connect(room_url, origin=origin) as editor,
        connect(f"{server.ws}/ws/rooms/{room['code']}/teacher/", origin=origin) as teacher,
        connect(f"{server.ws}/ws/rooms/{room['code']}/student/", origin=origin) as pupil,
        connect(f"{server.ws}/ws/batch/{job['id']}/", origin=origin) as batch,
    ):
        await first(viewer, "state")
        await editor.send(json.dumps({"type": "hello", "version": None, "token": project["editToken"]}))
        await first(editor, "state")
        await teacher.send(json.dumps({"type": "hello", "token": room["teacherToken"]}))
        await first(teacher, "dashboard")
        await pupil.send(json.dumps({"type": "hello", "token": student["token"]}))
        await first(pupil, "welcome")
        await batch.send(json.dumps({"type": "hello", "token": job["editToken"]}))
        await first(batch, "state")

        acked: list[str] = []
        told: list[dict] = []
        pushing = asyncio.create_task(pusher(editor, project["documents"][0]["id"], acked, told))
        while len(acked) < 5:  # edits in flight when the signal comes
            await asyncio.sleep(0.01)
        os.kill(server.process.pid, signal.SIGTERM)  # the server only, as Kubernetes signals a container
        signalled = time.monotonic()

        others = await asyncio.gather(*(until_closed(ws) for ws in (viewer, teacher, pupil, batch)))
        pushed_close = await pushing
        for ws, seen in zip((viewer, teacher, pupil, batch), others):
            assert seen and seen[-1]["type"] == "reconnect", seen[-3:]
            assert ws.close_code == 4012
        assert pushed_close == 4012
        assert told[-1]["type"] == "reconnect"

    await asyncio.to_thread(server.process.wait, SHUTDOWN_SECONDS + EXIT_MARGIN_SECONDS)
    exited_after = time.monotonic() - signalled
    assert exited_after < SHUTDOWN_SECONDS, f"{exited_after:.1f} s"  # every socket closed: no need to wait
    assert "Traceback" not in server.log()

    # Every acknowledged edit is kept (the server restarted on the same database).
    server.start()
    status, saved = server.request("GET", f"/api/v1/projects/{project['id']}")
    assert status == 200
    text = saved["documents"][0]["text"]
    assert all(marker in text for marker in acked), (acked, text)


async def test_a_socket_that_never_closes_is_cut_at_the_bound(server):
    """A client that ignores the close (its TCP stays open, it answers nothing): the process still exits,
    after PLAYGROUND_SHUTDOWN_SECONDS at the latest."""
    status, project = server.request("POST", "/api/v1/projects", project_body())
    assert status == 201
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        f"GET /ws/projects/{project['id']}/ HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {server.http}\r\n\r\n".encode()
    )
    assert b" 101 " in await asyncio.wait_for(reader.readline(), 30)
    await asyncio.sleep(0.5)  # connected in the server (never read from again)
    os.kill(server.process.pid, signal.SIGTERM)
    signalled = time.monotonic()
    await asyncio.to_thread(server.process.wait, SHUTDOWN_SECONDS + EXIT_MARGIN_SECONDS)
    assert time.monotonic() - signalled < SHUTDOWN_SECONDS + EXIT_MARGIN_SECONDS
    writer.close()
