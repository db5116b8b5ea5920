"""A JSON parser whose syntax errors carry line and column."""

from __future__ import annotations

import json

from rest_framework.parsers import JSONParser

from playground.api.errors import APIError


class LocatedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise APIError("invalid_json", f"request body is not UTF-8: {exc.reason} at byte {exc.start}")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise APIError("invalid_json", f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno)
        except RecursionError:
            raise APIError("invalid_json", "invalid JSON: nested too deeply")
