"""A change reaches the sockets only once it is committed: a rolled-back change is never broadcast.

REST changes go out through `transaction.on_commit` (services/broadcast.py; services/notify.py for project
rooms, workshops/services/groups.py for workshop rooms); these tests listen on the real channel layer (Redis
when REDIS_URL is set), from the test's own event loop, while the saving code runs in a worker thread as a
view's would.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction

from playground.services import notify, project_service
from playground.workshops.services.groups import tell_room

pytestmark = pytest.mark.django_db(transaction=True)


async def listen(group: str):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)

    async def received() -> list[dict]:
        """What arrived so far (waiting briefly: nothing arriving is an expected answer too)."""
        messages = []
        while True:
            try:
                messages.append(await asyncio.wait_for(layer.receive(channel), 0.3))
            except TimeoutError:
                return messages

    return received


def create_project():
    return project_service.create_project("t", documents=[{"name": "a.yaml", "text": "a: 1"}])


async def test_a_rolled_back_change_is_never_broadcast():
    state, token = await database_sync_to_async(create_project)()
    received = await listen(notify.group_name(state["id"]))

    def rename_then_fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            project_service.update_metadata(project_id=state["id"], token=token, title="renamed")
            notify.project_changed(state["id"])
            raise RuntimeError("the request failed after the save")

    await database_sync_to_async(rename_then_fail)()
    assert await received() == []
    assert (await database_sync_to_async(project_service.project_state)(state["id"]))["title"] == "t"


async def test_a_committed_change_is_broadcast_after_the_commit():
    state, token = await database_sync_to_async(create_project)()
    received = await listen(notify.group_name(state["id"]))

    def rename() -> list[dict]:
        with transaction.atomic():
            project_service.update_metadata(project_id=state["id"], token=token, title="renamed")
            notify.project_changed(state["id"])
            return async_to_sync(received)()  # the transaction is still open

    assert await database_sync_to_async(rename)() == []
    (event,) = await received()
    assert (event["kind"], json.loads(event["text"])["project"]["title"]) == ("state", "renamed")


async def test_a_workshop_broadcast_waits_for_the_commit():
    received = await listen("workshop.ROOM1.all")

    def announce(text: str, fail: bool) -> None:
        with transaction.atomic():
            tell_room("ROOM1", {"type": "announcement", "text": text})
            if fail:
                raise RuntimeError

    with pytest.raises(RuntimeError):
        await database_sync_to_async(announce)("rolled back", True)
    assert await received() == []
    await database_sync_to_async(announce)("kept", False)
    assert [m["message"]["text"] for m in await received()] == ["kept"]
