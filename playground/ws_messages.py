"""What every WebSocket consumer of the playground shares: reading and checking a client message, wording
an error.

A message is read like a REST body (core/edge.py: strict JSON, storable text, 64-bit integers, bounded
depth) and then validated by the serializer registered for its type (api/messages.py), so a wrong type
names the field and never reaches a service or the database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rest_framework.serializers import Serializer

from playground.api.strict import validated_message
from playground.collab.changes import nul_passes
from playground.core import edge, limits
from playground.core.errors import ServiceError

TOO_LARGE_SLACK = 64 * 1024  # room for the JSON around a document-sized text


def parse_client_message(
    text_data: str | None, bytes_data: bytes | None, messages: Mapping[str, type[Serializer]] | None = None
) -> dict[str, Any]:
    """The client's JSON object, checked; raises ServiceError (too large, invalid JSON with its line and
    column, not an object, unknown type, a field of the wrong type), so bad input gets an error message and
    never drops the connection. With `messages` (type → serializer, api/messages.py) it returns the
    validated values only."""
    if text_data is None:
        try:
            text_data = (bytes_data or b"").decode("utf-8")
        except UnicodeDecodeError:
            raise ServiceError("invalid_json", "a binary message must be UTF-8 JSON") from None
    if len(text_data) > limits.document_limit() + TOO_LARGE_SLACK:
        raise ServiceError("too_large", "message is larger than the document limit", 413)
    message = edge.loads(text_data, nul_passes)
    if not isinstance(message, dict):
        raise ServiceError("invalid_message", "a message must be a JSON object")
    if messages is None:
        return message
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in messages:
        shown = kind if isinstance(kind, str) else edge.json_type(kind)
        raise ServiceError("invalid_message", f"unknown message type {shown!r}", path="type")
    return validated_message(messages[kind], message, code="invalid_message")


_TRAILING_SEQ = re.compile(r'"clientSeq"\s*:\s*(\d{1,15})\s*}\s*$')


def refused_seq(text_data: str | None, bytes_data: bytes | None) -> int | None:
    """The clientSeq of a message refused before it was read (too large, unstorable text, a field of the wrong
    type), so its answer names it: the page waits for the answer to a push before it pushes again. A message
    too large to read is only looked at where the page puts the seq, at its end."""
    text = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
    if len(text) > limits.document_limit() + TOO_LARGE_SLACK:
        found = _TRAILING_SEQ.search(text[-64:])
        return int(found.group(1)) if found else None
    try:
        return client_seq(json.loads(text))
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return None


def client_seq(message: Any) -> int | None:
    """The message's clientSeq when it is one (checked messages only carry integers)."""
    seq = message.get("clientSeq") if isinstance(message, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def error_message(error: ServiceError, client_seq: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {**error.as_dict(), "status": error.status}}
    if client_seq is not None:
        body["clientSeq"] = client_seq
    return body


def internal_error() -> ServiceError:
    """What a client hears of a failure that is ours, not its input (the details go to the log, once)."""
    return ServiceError("internal_error", "internal error", 500)
