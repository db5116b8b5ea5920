"""The events of an audit log, one at a time, whatever its layout: `(line, event | None, problem | None)`.

Layouts: JSON lines (the API server's `--audit-log-format=json`: one `audit.k8s.io/v1` Event per line, the
webhook backend's one `EventList` per line too) and one `EventList` document, compact or pretty-printed;
either gzip-compressed (recognised by its magic bytes). Nothing is read whole: lines are read one by one
(at most MAX_EVENT_BYTES each), an EventList's `items` are decoded one by one from a sliding buffer. A line
that is not JSON, or JSON that is not an Event, is a problem at its line (and column), and reading goes on;
an EventList broken in the middle ends there (a problem names the place: the rest cannot be framed).
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from typing import IO, Any

import orjson

from evaluator.cel.errors import long_number_message

__all__ = ["events", "MAX_EVENT_BYTES", "Problem"]

MAX_EVENT_BYTES = 64 * 1024 * 1024  # one event (a line, an item of an EventList)
READ_BYTES = 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
Problem = tuple[int, int | None, str]  # (line, column, message)


def _opened(stream: IO[bytes]) -> IO[bytes]:
    """The stream, inflated when it is gzip (peeked without consuming: a buffered reader)."""
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)  # type: ignore[arg-type,type-var]
    head = stream.peek(2)[:2]  # type: ignore[attr-defined]
    return gzip.GzipFile(fileobj=stream) if head == GZIP_MAGIC else stream  # type: ignore[return-value]


def events(stream: IO[bytes]) -> Iterator[tuple[int, Any, Problem | None]]:
    """(line, event, None) per event, (line, None, problem) per unreadable line; `layout` first: the first
    yield is (0, "lines" | "EventList", None)."""
    stream = _opened(stream)
    first, line_no = _first_line(stream)
    if first is None:
        yield 0, "lines", None
        return
    text = first.strip()
    parsed = _loads(text) if text.startswith(b"{") else None
    if text == b"{" or (parsed is None and text.startswith(b"{") and (b'"EventList"' in text or b'"items"' in text)):
        yield 0, "EventList", None  # a pretty-printed document: frame it with the incremental decoder
        yield from _event_list(first, stream, line_no)
        return
    yield 0, "lines", None
    yield from _lines(first, line_no, stream)


def _first_line(stream: IO[bytes]) -> tuple[bytes | None, int]:
    line_no = 0
    while True:
        raw = stream.readline(MAX_EVENT_BYTES + 1)
        if not raw:
            return None, line_no
        line_no += 1
        if raw.strip():
            return raw, line_no


def _loads(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _slow_read(text: bytes) -> tuple[Any, tuple[int | None, str] | None]:
    """The line read by the standard library, or the (column, message) of why it is not JSON."""
    try:
        return json.loads(text.rstrip(b"\r\n")), None
    except json.JSONDecodeError as exc:
        return None, (exc.colno, f"not JSON: {exc.msg}")
    except (UnicodeDecodeError, RecursionError) as exc:
        return None, (None, f"not JSON: {exc.__class__.__name__}")
    except ValueError as exc:  # more digits than Python converts
        return None, (None, long_number_message(exc) or f"not JSON: {exc}")


def _lines(first: bytes, line_no: int, stream: IO[bytes]) -> Iterator[tuple[int, Any, Problem | None]]:
    raw: bytes | None = first
    while raw:
        if len(raw) > MAX_EVENT_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of an over-long line
                raw = stream.readline(READ_BYTES)
            yield line_no, None, (line_no, None, f"line longer than {MAX_EVENT_BYTES:,} bytes: not read")
        elif raw.strip():
            yield from _one_line(raw, line_no)
        raw = stream.readline(MAX_EVENT_BYTES + 1)
        line_no += 1


def _one_line(raw: bytes, line_no: int) -> Iterator[tuple[int, Any, Problem | None]]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data, problem = _slow_read(raw)  # orjson refuses integers past 64 bits; the standard library reads them
        if problem is not None:
            yield line_no, None, (line_no, *problem)
            return
    if isinstance(data, dict) and data.get("kind") == "EventList" and isinstance(data.get("items"), list):
        for item in data["items"]:
            yield from _checked(item, line_no)
    else:
        yield from _checked(data, line_no)


def _checked(data: Any, line_no: int) -> Iterator[tuple[int, Any, Problem | None]]:
    if isinstance(data, dict) and (data.get("kind") in (None, "Event")) and "verb" in data:
        yield line_no, data, None
    else:
        what = data.get("kind") if isinstance(data, dict) else type(data).__name__
        yield line_no, None, (line_no, 1, f"not an audit.k8s.io Event (kind {what!r}, or no verb)")


class _Buffer:
    """A sliding window over the stream's text, with the line number of any position in it."""

    def __init__(self, first: bytes, stream: IO[bytes], first_line: int):
        self.stream = stream
        self.text = first.decode("utf-8", errors="replace")
        self.pos = 0
        self.line_base = first_line  # the line number at text[0]
        self.eof = False
        self._pending = b""

    def more(self) -> bool:
        if self.eof:
            return False
        chunk = self._pending + self.stream.read(READ_BYTES)
        if not chunk:
            self.eof = True
            return False
        cut = len(chunk)  # keep a UTF-8 sequence split by the read for the next read
        while cut > 0 and len(chunk) - cut < 4 and (chunk[cut - 1] & 0xC0) == 0x80:
            cut -= 1
        if cut > 0 and chunk[cut - 1] >= 0xC0:
            cut -= 1
        self._pending = chunk[cut:] if 0 < cut < len(chunk) else b""
        self.text += chunk[:cut].decode("utf-8", errors="replace") if cut else chunk.decode("utf-8", errors="replace")
        return True

    def skip_space(self) -> str:
        """The next non-space character ("" at the end), at `pos`."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in " \t\r\n":
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.more():
                return ""

    def line(self) -> int:
        return self.line_base + self.text.count("\n", 0, self.pos)

    def drop_read(self) -> None:
        if self.pos > READ_BYTES:
            self.line_base += self.text.count("\n", 0, self.pos)
            self.text, self.pos = self.text[self.pos :], 0

    def decode(self, decoder: json.JSONDecoder) -> Any:
        """The JSON value at `pos` (reading more while it is cut short); ValueError when it is not one."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if len(self.text) - self.pos > MAX_EVENT_BYTES or not self.more():
                    raise
                continue
            self.pos = end
            return value


def _event_list(first: bytes, stream: IO[bytes], first_line: int) -> Iterator[tuple[int, Any, Problem | None]]:
    buf = _Buffer(first, stream, first_line)
    decoder = json.JSONDecoder()

    def problem(message: str, at: int | None = None) -> tuple[int, Any, Problem]:
        pos = buf.pos if at is None else at
        line = buf.line_base + buf.text.count("\n", 0, pos)
        start = buf.text.rfind("\n", 0, pos) + 1
        return line, None, (line, pos - start + 1, message)

    if buf.skip_space() != "{":
        yield problem("not JSON: expected an EventList object")
        return
    buf.pos += 1
    try:
        while True:
            char = buf.skip_space()
            if char == "}":
                return
            if char == ",":
                buf.pos += 1
                continue
            key = buf.decode(decoder)
            if buf.skip_space() != ":":
                yield problem("not JSON: expected ':' after a key")
                return
            buf.pos += 1
            if key != "items":
                buf.skip_space()
                buf.decode(decoder)  # apiVersion, kind, metadata: small
                continue
            if buf.skip_space() != "[":
                yield problem("EventList items is not a list")
                return
            buf.pos += 1
            while True:
                char = buf.skip_space()
                if char == "]":
                    buf.pos += 1
                    break
                if char == ",":
                    buf.pos += 1
                    continue
                if char == "":
                    yield problem("not JSON: the EventList ends inside its items")
                    return
                line = buf.line()
                item = buf.decode(decoder)
                yield from _checked(item, line)
                buf.drop_read()
    except json.JSONDecodeError as exc:
        yield problem(f"not JSON: {exc.msg}; the rest of the EventList is not read", exc.pos)
    except RecursionError:
        yield problem("not JSON: nested too deeply; the rest of the EventList is not read")
