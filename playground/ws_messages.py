"""What every WebSocket consumer of the playground shares: reading and checking a client message, wording
an error.

A message is checked at the edge, like a REST body (services/edge.py: strict JSON, storable text, 64-bit
integers, bounded depth), and then against its type's fields below, so a wrong type names the field and
never reaches a service or the database. Fields not listed are ignored.
"""

from __future__ import annotations

from typing import Any

from playground.services import edge, limits
from playground.services.errors import ServiceError

TOO_LARGE_SLACK = 64 * 1024  # room for the JSON around a document-sized text

# Field kinds: "str", "int", "target", "object?" (object or null), "list?" (array or null), "any".
COMMON = {"type": "str", "clientSeq": "int"}
PROJECT_MESSAGES = {
    "hello": {"version": "int", "name": "str", "token": "str"},
    "edit": {"target": "target", "id": "int", "text": "str", "name": "str", "expected": "object?"},
    "create": {"target": "target", "name": "str", "text": "str", "expected": "object?"},
    "delete": {"target": "target", "id": "int"},
    "rename": {"target": "target", "id": "int", "name": "str"},
    "meta": {"title": "str", "description": "str", "kubernetesVersion": "str"},
    "evaluate": {},
    # Co-editing (playground/collab): the shapes inside "updates" and "ranges" are checked there.
    "push": {"target": "target", "id": "int", "version": "int", "updates": "list?"},
    "pull": {"target": "target", "id": "int", "version": "int"},
    "cursor": {"target": "target", "id": "int", "version": "int", "ranges": "list?"},
}
STUDENT_MESSAGES = {
    "hello": {"token": "str"},
    "evaluate": {},
    "submit": {},
    "ping": {},
    "edit": {"target": "target", "id": "int", "text": "str", "name": "str"},
}
TEACHER_MESSAGES = {
    "hello": {"token": "str"},
    "stuckMinutes": {"minutes": "int"},
    "timeBox": {"minutes": "int", "locks": "any"},
    "unwatch": {},
    "revealHint": {},
    "revealSolution": {},
    "close": {},
    "watch": {"participant": "int"},
    "announce": {"text": "str"},
    "advance": {"position": "int"},
    "present": {"documents": "list?", "title": "str"},
}
REQUIRED = {
    "edit": ("target", "id"),
    "create": ("target",),
    "delete": ("target", "id"),
    "push": ("target", "id"),
    "pull": ("target", "id"),
    "cursor": ("target", "id"),
    "rename": ("target", "id", "name"),
    "watch": ("participant",),
    "announce": ("text",),
}


def parse_client_message(
    text_data: str | None, bytes_data: bytes | None, schema: dict[str, dict[str, str]] | None = None
) -> dict[str, Any]:
    """The client's JSON object, checked; raises ServiceError (too large, invalid JSON with its line and
    column, not an object, unknown type, a field of the wrong type), so bad input gets an error message and
    never drops the connection."""
    if text_data is None:
        try:
            text_data = (bytes_data or b"").decode("utf-8")
        except UnicodeDecodeError:
            raise ServiceError("invalid_json", "a binary message must be UTF-8 JSON") from None
    if len(text_data) > limits.document_limit() + TOO_LARGE_SLACK:
        raise ServiceError("too_large", "message is larger than the document limit", 413)
    message = edge.loads(text_data)
    if not isinstance(message, dict):
        raise ServiceError("invalid_message", "a message must be a JSON object")
    if schema is not None:
        check_message(message, schema)
    return message


def _check_field(kind: str, value: Any, name: str) -> None:
    if kind == "str" and not isinstance(value, str):
        raise _wrong(name, "a string", value)
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise _wrong(name, "an integer", value)
    if kind == "target" and value not in ("document", "request"):
        raise ServiceError("invalid_message", f'{name}: must be "document" or "request"', path=name)
    if kind == "object?" and value is not None and not isinstance(value, dict):
        raise _wrong(name, "an object or null", value)
    if kind == "list?" and value is not None and not isinstance(value, list):
        raise _wrong(name, "an array or null", value)


def _wrong(name: str, wanted: str, value: Any) -> ServiceError:
    return ServiceError("invalid_message", f"{name}: must be {wanted}, not {edge.json_type(value)}", path=name)


def check_message(message: dict, schema: dict[str, dict[str, str]]) -> None:
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in schema:
        shown = kind if isinstance(kind, str) else edge.json_type(kind)
        raise ServiceError("invalid_message", f"unknown message type {shown!r}", path="type")
    fields = {**COMMON, **schema[kind]}
    required = REQUIRED.get(kind, ())
    for name, value in message.items():
        if name in fields and not (value is None and name not in required):  # null: "not given"
            _check_field(fields[name], value, name)
    for name in REQUIRED.get(kind, ()):
        if name in schema[kind] and name not in message:
            raise ServiceError("invalid_message", f"{name}: this field is required", path=name)


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
