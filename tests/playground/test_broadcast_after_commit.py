"""A change reaches the sockets only once it is committed: a rolled-back change is never broadcast.

REST changes go out through `transaction.on_commit` (services/notify.py for project rooms,
workshops/services/broadcast.py for workshop rooms); these tests listen on the real channel layer.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from playground.services import notify, project_service
from playground.workshops.services import broadcast

pytestmark = pytest.mark.django_db(transaction=True)


class Listener:
    """A channel in a group, read without waiting long (nothing arriving is the expected answer too)."""

    def __init__(self, group: str):
        self.layer = get_channel_layer()
        self.group = group
        self.channel = async_to_sync(self.layer.new_channel)()
        async_to_sync(self.layer.group_add)(group, self.channel)

    def received(self) -> list[dict]:
        async def drain():
            messages = []
            while True:
                try:
                    messages.append(await asyncio.wait_for(self.layer.receive(self.channel), 0.3))
                except TimeoutError:
                    return messages

        return async_to_sync(drain)()

    def close(self) -> None:
        async_to_sync(self.layer.group_discard)(self.group, self.channel)


@pytest.fixture
def project_room():
    state, token = project_service.create_project("t", documents=[{"name": "a.yaml", "text": "a: 1"}])
    listener = Listener(notify.group_name(state["id"]))
    yield state, token, listener
    listener.close()


def test_a_rolled_back_change_is_never_broadcast(project_room):
    state, token, listener = project_room
    with pytest.raises(RuntimeError), transaction.atomic():
        project_service.update_metadata(state["id"], token, "renamed", None, None)
        notify.project_changed(state["id"])
        raise RuntimeError("the request failed after the save")
    assert listener.received() == []
    assert project_service.project_state(state["id"])["title"] == "t"


def test_a_committed_change_is_broadcast_after_the_commit(project_room):
    state, token, listener = project_room
    with transaction.atomic():
        project_service.update_metadata(state["id"], token, "renamed", None, None)
        notify.project_changed(state["id"])
        assert listener.received() == []  # not yet: the transaction is still open
    (event,) = listener.received()
    sent = json.loads(event["text"])
    assert (event["kind"], sent["project"]["title"]) == ("state", "renamed")


def test_a_workshop_broadcast_waits_for_the_commit():
    listener = Listener("workshop.ROOM1.all")
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            broadcast.send("workshop.ROOM1.all", {"type": "announcement", "text": "rolled back"})
            raise RuntimeError
        assert listener.received() == []
        with transaction.atomic():
            broadcast.send("workshop.ROOM1.all", {"type": "announcement", "text": "kept"})
        assert [m["message"]["text"] for m in listener.received()] == ["kept"]
    finally:
        listener.close()
