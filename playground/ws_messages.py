"""What every WebSocket consumer of the playground shares: reading a client message and wording an error."""
from __future__ import annotations

import json
from typing import Any

from playground.services import limits
from playground.services.errors import ServiceError


def parse_client_message(text_data: str | None, bytes_data: bytes | None) -> dict[str, Any]:
    """The client's JSON object; raises ServiceError (too large, invalid JSON with its line and column, not
    an object), so bad input gets an error message and never drops the connection."""
    raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
    if len(raw) > limits.document_limit() + 64 * 1024:
        raise ServiceError("too_large", "message is larger than the document limit", 413)
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ServiceError("invalid_json", f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    if not isinstance(message, dict):
        raise ServiceError("invalid_message", "a message must be a JSON object")
    return message


def error_message(error: ServiceError, client_seq: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {**error.as_dict(), "status": error.status}}
    if client_seq is not None:
        body["clientSeq"] = client_seq
    return body
