"""The WebSocket messages, one serializer each (PROTOCOL.md), registered by type for each socket.

RoomConsumer (playground/ws.py) checks an incoming message with the serializer registered for its type and
hands its handler the validated values only. A message that carries a REST body's fields reuses that body's
serializer (an edit is a DocumentIn/RequestIn plus which item; `meta` is the project PATCH body), so a
shape is defined once for both transports. Fields not declared are ignored; a null optional field is "not
given". The shapes inside co-editing's "updates" and "ranges" are checked by playground/collab. The
workshop sockets' messages are in playground/workshops/api/messages.py.
"""

from __future__ import annotations

from rest_framework import serializers

from playground.api import strict
from playground.api.serializers import ProjectPatchSerializer, RequestInSerializer


class Message(serializers.Serializer):
    type = strict.Text()
    clientSeq = strict.Integer(required=False, allow_null=True)


class Empty(Message):
    pass


class ItemMessage(Message):
    """A message about one item of a project."""

    target = strict.Target()
    id = strict.Integer()


# -- project room (playground/consumers.py, collab/consumer.py) ------------------------------------------


class ProjectHello(Message):
    version = strict.Integer(required=False, allow_null=True)
    name = strict.Text(required=False, allow_null=True)
    token = strict.Text(required=False, allow_null=True)
    bundle = strict.Boolean(required=False)
    unchanged = strict.Boolean(required=False)


class Evaluate(Message):
    full = strict.Boolean(required=False)


class Edit(RequestInSerializer, ItemMessage):
    pass


class Create(RequestInSerializer, Message):
    target = strict.Target()


class Rename(ItemMessage):
    name = strict.Text()

    def validate_name(self, value: str) -> str:
        if not value:
            raise serializers.ValidationError("rename needs a non-empty name")
        return value


class Meta(ProjectPatchSerializer, Message):
    pass


class Push(ItemMessage):
    version = strict.Integer(required=False, allow_null=True)
    updates = strict.Array(required=False, allow_null=True)
    squashed = strict.Boolean(required=False)


class Pull(ItemMessage):
    version = strict.Integer(required=False, allow_null=True)


class Cursor(ItemMessage):
    version = strict.Integer(required=False, allow_null=True)
    ranges = strict.Array(required=False, allow_null=True)


PROJECT_MESSAGES: dict[str, type[Message]] = {
    "hello": ProjectHello,
    "edit": Edit,
    "create": Create,
    "delete": ItemMessage,
    "rename": Rename,
    "meta": Meta,
    "evaluate": Evaluate,
    "push": Push,
    "pull": Pull,
    "cursor": Cursor,
}


# -- a batch job's progress (playground/batch/consumer.py) --------------------------------------------------


class BatchHello(Message):
    token = strict.Text(required=False, allow_null=True)


BATCH_MESSAGES: dict[str, type[Message]] = {"hello": BatchHello}
