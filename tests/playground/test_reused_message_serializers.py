"""WebSocket messages are checked by one reused serializer per type (api/strict.py validated_message): the
same values and the same errors as a serializer made for each message, whatever came before."""

from __future__ import annotations

import itertools

import pytest

from playground.api.messages import PROJECT_MESSAGES
from playground.api.strict import validated, validated_message
from playground.core.errors import ServiceError

MESSAGES = [
    {"type": "edit", "target": "document", "id": 3, "text": "a: 1", "clientSeq": 1},
    {"type": "edit", "target": "request", "id": 4, "text": "b: 2", "name": "r", "expected": {"allowed": True}},
    {"type": "edit", "target": "request", "id": 4, "text": "b", "expected": {"allowed": "yes"}},
    {"type": "edit", "target": "nowhere", "id": 3, "text": "a"},
    {"type": "edit", "target": "document", "id": "3", "text": "a"},
    {"type": "edit", "target": "document", "id": 3, "text": 5},
    {"type": "edit", "target": "document", "text": "a", "extra": [1]},
    {"type": "rename", "target": "document", "id": 3, "name": ""},
    {"type": "rename", "target": "document", "id": 3, "name": "new"},
    {"type": "create", "target": "request", "text": "c", "expected": None},
    {"type": "hello", "version": 2, "name": "Ann", "token": None},
    {"type": "hello", "version": True},
    {"type": "push", "target": "document", "id": 1, "version": 0, "updates": [{"changes": [1]}]},
    {"type": "cursor", "target": "document", "id": 1, "ranges": "no"},
    {"type": "meta", "title": "t", "kubernetesVersion": "1.31"},
    {"type": "meta", "title": 7},
    {"type": "evaluate", "clientSeq": -1},
]


def outcome(check, message: dict):
    try:
        return "ok", check(PROJECT_MESSAGES[message["type"]], message)
    except ServiceError as error:
        return "error", (error.code, error.message, error.status, error.path)


def fresh(serializer_class, message):
    return validated(serializer_class, message, code="invalid_message", known_only=False)


def reused(serializer_class, message):
    return validated_message(serializer_class, message, code="invalid_message")


@pytest.mark.parametrize("order", [MESSAGES, MESSAGES[::-1], list(itertools.chain(*zip(MESSAGES, MESSAGES[3:])))])
def test_reused_serializers_answer_as_fresh_ones(order):
    answers = [outcome(reused, message) for message in order]
    assert answers == [outcome(fresh, message) for message in order]
    assert {kind for kind, _ in answers} == {"ok", "error"}
