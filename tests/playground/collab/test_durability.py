"""An acknowledged change survives `kill -9` of the server at any moment (PostgreSQL, a real daphne).

Three clients push changes to three documents as fast as the server acknowledges them; the server is killed
while changes are in flight, restarted, and every change that was acknowledged must be in the stored text."""

from __future__ import annotations

import asyncio
import json
import os
import random
import uuid

import psycopg
import pytest
import websockets

from tests import live_server

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def database_url():
    base = os.environ["DATABASE_URL"]
    name = f"collab_kill_{uuid.uuid4().hex[:8]}"
    admin = base.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield base.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def pusher(ws_url, origin, token, doc, acked: list[str], stop: asyncio.Event):
    async with websockets.connect(ws_url, origin=origin) as ws:
        await ws.send(json.dumps({"type": "hello", "version": None, "token": token}))
        version, length, n = 0, len("start"), 0
        while not stop.is_set():
            marker = f"<{doc}.{n}>"
            await ws.send(
                json.dumps(
                    {
                        "type": "push",
                        "target": "document",
                        "id": doc,
                        "version": version,
                        "clientSeq": n,
                        "updates": [{"clientID": "k", "changes": [length, [0, marker]]}],
                    }
                )
            )
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "ack" and message.get("clientSeq") == n:
                    acked.append(marker)
                    version, length, n = message["collabVersion"], length + len(marker), n + 1
                    break
                assert message["type"] != "error", message


async def run_until_killed(server, created):
    acked: list[str] = []
    stop = asyncio.Event()
    ws_url = server.url.replace("http", "ws") + f"/ws/projects/{created['id']}/"
    tasks = [
        asyncio.create_task(pusher(ws_url, server.url, created["editToken"], doc["id"], acked, stop))
        for doc in created["documents"]
    ]
    while len(acked) < 40:
        await asyncio.sleep(0.01)
    await asyncio.sleep(random.uniform(0, 0.05))
    server.stop(kill=True)  # kill -9 while pushes are in flight
    snapshot = list(acked)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return snapshot


def test_every_acknowledged_change_survives_kill_9(tmp_path, database_url):
    server = live_server.start(tmp_path, database_url=database_url)
    try:
        created = server.api(
            "POST",
            "/api/v1/projects",
            {"title": "durable", "documents": [{"name": f"d{i}.yaml", "text": "start"} for i in range(3)]},
        )
        acked = asyncio.run(run_until_killed(server, created))
        assert server.process.returncode == -9
        restarted = live_server.start(tmp_path, database_url=database_url, port=server.port, migrate=False)
        try:
            project = restarted.api("GET", f"/api/v1/projects/{created['id']}")
        finally:
            restarted.stop()
    finally:
        server.stop(kill=True)
    stored = "".join(doc["text"] for doc in project["documents"])
    missing = [marker for marker in acked if marker not in stored]
    assert len(acked) >= 40 and missing == []
    for doc in project["documents"]:  # the history and the text agree after the crash
        assert doc["collabVersion"] == doc["text"].count("<")
