"""Draining in one process (core/drain.py, ws.py), without daphne: what a socket is told when the server
shuts down, and when it connects while the server drains. The signal itself: test_shutdown_live.py."""

from __future__ import annotations

import asyncio
import weakref

import pytest

from playground.core import drain
from tests.playground.test_consumer import connect, make_project, receive_until

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 15


async def test_drain_all_tells_an_open_room_to_reconnect_and_waits_until_it_closed(monkeypatch):
    monkeypatch.setattr(drain, "_draining", False)  # undone after the test: this process serves the others
    monkeypatch.setattr(drain, "_live", weakref.WeakSet())  # this test's sockets only
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    assert drain.open_sockets() == 1
    task = asyncio.ensure_future(drain.drain_all(TIMEOUT))
    told, _ = await receive_until(ws, "reconnect")
    assert told == {"type": "reconnect", "reason": "server restarting"}
    closed = await ws.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4012}
    await ws.send_json_to({"type": "hello", "version": 0})  # after the close: not handled, not answered
    assert await ws.receive_nothing(timeout=0.3)
    assert not task.done()  # the client has not closed its side yet
    await ws.disconnect(timeout=TIMEOUT)
    assert await asyncio.wait_for(task, TIMEOUT) == 0


async def test_a_socket_opened_while_draining_is_told_to_reconnect_at_once(monkeypatch):
    monkeypatch.setattr(drain, "_draining", True)
    monkeypatch.setattr(drain, "_live", weakref.WeakSet())
    state, token = await make_project()
    ws = await connect(state["id"], token)
    told, seen = await receive_until(ws, "reconnect")
    assert seen[0]["type"] == "state"  # connected first (as the page expects), then told
    assert (await ws.receive_output(timeout=TIMEOUT)) == {"type": "websocket.close", "code": 4012}
    await ws.disconnect(timeout=TIMEOUT)
