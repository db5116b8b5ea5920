"""The workshop sockets' messages (workshops/consumers.py), one serializer each, registered by type.

A teacher's action that REST offers too (advance, announce, present, timeBox) extends that endpoint's body
serializer (workshops/api/serializers.py), so the shape is defined once for both transports.
"""

from __future__ import annotations

from playground.api import strict
from playground.api.messages import Empty, ItemMessage, Message
from playground.workshops.api.serializers import (
    AdvanceInSerializer,
    AnnounceInSerializer,
    PresentInSerializer,
    TimeBoxInSerializer,
)


class TokenHello(Message):
    token = strict.Text(required=False, allow_null=True)


class StudentEdit(ItemMessage):
    text = strict.Text(required=False, allow_null=True)
    name = strict.Text(required=False, allow_null=True)


class StuckMinutes(Message):
    minutes = strict.Integer(required=False, allow_null=True)


class TimeBox(TimeBoxInSerializer, Message):
    pass


class Watch(Message):
    participant = strict.Integer()


class Announce(AnnounceInSerializer, Message):
    pass


class Advance(AdvanceInSerializer, Message):
    pass


class Present(PresentInSerializer, Message):
    pass


STUDENT_MESSAGES: dict[str, type[Message]] = {
    "hello": TokenHello,
    "evaluate": Empty,
    "submit": Empty,
    "ping": Empty,
    "edit": StudentEdit,
}
TEACHER_MESSAGES: dict[str, type[Message]] = {
    "hello": TokenHello,
    "stuckMinutes": StuckMinutes,
    "timeBox": TimeBox,
    "unwatch": Empty,
    "revealHint": Empty,
    "revealSolution": Empty,
    "close": Empty,
    "watch": Watch,
    "announce": Announce,
    "advance": Advance,
    "present": Present,
}
