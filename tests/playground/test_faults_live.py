"""Faults against the server as deployed: kill -9 of daphne, a Redis restart. Slow: real processes."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.playground.live_server import Daphne, PrivateRedis, alive
from tests.playground.playground_fixtures import deployment, project_body

pytestmark = pytest.mark.slow


async def receive_until(ws, kind: str, timeout: float = 60) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message


async def viewers_reach(ws, count: int, timeout: float = 60) -> None:
    """Until the socket is told of `count` viewers: in its `state`, or in a `viewers` message after it (two
    sockets joining at once may each count before the other's row is written; the later join tells both)."""
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if (message["type"], message.get("viewers", message.get("count"))) in (
                ("state", count),
                ("viewers", count),
            ):
                return


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def project_server(tmp_path):
    server = Daphne(tmp_path, PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS="0.5")
    server.migrate()
    server.start()
    status, project = server.request("POST", "/api/v1/projects", project_body())
    assert status == 201
    yield server, project
    server.stop()


async def test_kill_9_leaves_no_orphan_workers_and_viewer_counts_heal(project_server):
    server, project = project_server
    url = f"{server.ws}/ws/projects/{project['id']}/"
    async with connect(url, origin=server.http) as first, connect(url, origin=server.http) as second:
        await receive_until(first, "done")
        await viewers_reach(second, 2)
        workers = server.worker_pids()
        assert workers and all(alive(pid) for pid in workers)
        server.kill9()
        assert wait_for(lambda: not any(alive(pid) for pid in workers), 10), "evaluation workers outlived daphne"
    time.sleep(2)  # longer than three missed heartbeats: the dead server's two viewers have expired
    server.start()
    async with connect(url, origin=server.http) as again:
        state = await receive_until(again, "state")
        assert state["viewers"] == 1
        done = await receive_until(again, "done")
        assert done["version"] == state["version"]


@pytest.mark.postgres
async def test_a_redis_restart_degrades_gracefully_and_recovers(tmp_path):
    redis = PrivateRedis()
    redis.start()
    server = Daphne(tmp_path, REDIS_URL=redis.url)
    server.migrate()
    server.start()
    try:
        status, project = server.request("POST", "/api/v1/projects", project_body())
        assert status == 201
        url = f"{server.ws}/ws/projects/{project['id']}/?token={project['editToken']}"
        async with connect(url, origin=server.http) as held:
            await receive_until(held, "done")
            redis.stop()
            # An open socket is told and closed with 4503 (not 1011): the page reconnects by itself.
            error = await receive_until(held, "error", timeout=20)
            assert error["error"]["code"] == "unavailable"
            with pytest.raises(ConnectionClosed) as closed:
                await receive_until(held, "state", timeout=20)
            assert closed.value.rcvd.code == 4503
        # REST keeps evaluating (and saving) without Redis; /healthz says what is down.
        body = {"documents": project["documents"], "requests": [{"name": "r", "text": deployment(9)}]}
        body["documents"] = [{"name": d["name"], "text": d["text"]} for d in body["documents"]]
        for _ in range(5):
            status, result = server.request("POST", "/api/v1/evaluate", body)
            assert status == 200 and result["requests"][0]["result"]["allowed"] is False
        status, saved = server.request(
            "PATCH",
            f"/api/v1/projects/{project['id']}",
            {"title": "during the outage"},
            {"X-Edit-Token": project["editToken"]},
        )
        assert status == 200
        status, health = server.request("GET", "/healthz")
        assert status == 200 and health["status"] == "degraded"
        assert health["channel_layer"] == "error" and health["database"] == "ok"
        # A room cannot open without its channel layer: the client is told and closed, not given an HTTP 500.
        for _ in range(5):
            async with connect(url, origin=server.http) as ws:
                error = await receive_until(ws, "error", timeout=20)
                assert error["error"]["code"] == "unavailable"
                with pytest.raises(ConnectionClosed) as closed:
                    await receive_until(ws, "state", timeout=20)
                assert closed.value.rcvd.code == 4503
        log = server.log()
        assert " 500 " not in log and "Traceback" not in log, log[-3000:]
        redis.start()  # same port: the server reconnects by itself
        deadline = time.monotonic() + 30
        while True:
            try:
                async with connect(url, origin=server.http) as ws:
                    state = await receive_until(ws, "state", timeout=20)
                    assert state["project"]["title"] == "during the outage"
                    await ws.send(
                        json.dumps(
                            {
                                "type": "edit",
                                "target": "request",
                                "id": project["requests"][0]["id"],
                                "text": deployment(1),
                                "clientSeq": 1,
                            }
                        )
                    )
                    ack = await receive_until(ws, "ack")
                    done = await receive_until(ws, "done")
                    assert done["version"] == ack["version"]
                    break
            except (ConnectionClosed, AssertionError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
    finally:
        server.stop()
        redis.stop()
