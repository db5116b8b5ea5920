"""A JSON parser whose errors carry line and column, and that applies the edge checks (core/edge.py)."""

from __future__ import annotations

from rest_framework.parsers import JSONParser

from playground.core import edge
from playground.core.errors import ServiceError


class LocatedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ServiceError("invalid_json", f"request body is not UTF-8: {exc.reason} at byte {exc.start}")
        return edge.loads(text)
