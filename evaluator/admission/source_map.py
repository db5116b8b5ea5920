"""From a character of a YAML string's value back to the line and column the user typed it at.

An expression error says "line 3, column 7 of the expression"; the user needs "line 17, column 12 of the
file". The value the engine sees is not the text in the file: quotes, escapes (``\\x41``, ``\\``-newline),
folding (a line break becomes a space) and block indentation all move characters. So we take the YAML
parser's own marks for the scalar (start, end, style), re-read the raw source between them with the same
rules the parser applies (PyYAML's scanner: ``scan_flow_scalar``, ``scan_plain``, ``scan_block_scalar``),
and keep, for every character of the value, the source index it came from. The result is checked
against the parser's value; when it does not reproduce it, we say nothing rather than point somewhere
wrong (callers then fall back to the scalar's first character).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import yaml

Position = tuple[int, int]  # 1-based line, 1-based column (code points, as editors count)

_ESCAPE_ONE = '0abt\tnvfre "\\/N_LP'
_ESCAPE_HEX = {"x": 2, "u": 4, "U": 8}
_BLOCK_HEADER = re.compile(r"[|>]([+-]?)([1-9]?)([+-]?)")


@dataclass
class SourceText:
    """One parsed chunk of the user's text and where its first line sits in the whole text."""

    text: str
    line_offset: int = 0  # 0-based line of the chunk's first line in the user's text
    _starts: list[int] = field(default_factory=list, repr=False)

    def position(self, index: int) -> Position:
        if not self._starts:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        row = bisect.bisect_right(self._starts, index) - 1
        return self.line_offset + row + 1, index - self._starts[row] + 1


@dataclass(slots=True)
class ScalarSource:
    """A string scalar: its style, its span in the source, and its value as the parser built it."""

    source: SourceText
    start: int
    end: int
    style: str | None
    value: str
    _offsets: list[int] | None = field(default=None, repr=False)
    _mapped: bool = field(default=False, repr=False)

    @property
    def start_position(self) -> Position:
        """Where the scalar's text begins (its quote or block indicator included)."""
        return self.source.position(self.start)

    def offsets(self) -> list[int] | None:
        """Source index of each value character, plus one past the last; None if it cannot be mapped."""
        if not self._mapped:
            self._mapped = True
            self._offsets = map_scalar(self.source.text, self.start, self.end, self.style, self.value)
        return self._offsets

    def value_position(self, offset: int) -> Position | None:
        """The source position of value character ``offset`` (clamped to the value)."""
        offsets = self.offsets()
        if offsets is None:
            return None
        return self.source.position(offsets[max(0, min(offset, len(offsets) - 1))])

    def expression_position(self, line: int, column: int) -> Position | None:
        """The source position of (line, column), both 1-based, inside the value (CEL counts this way)."""
        offset = value_offset(self.value, line, column)
        return None if offset is None else self.value_position(offset)

    def first_character(self) -> Position:
        """The value's first character, or the scalar's start when the value is empty or unmapped."""
        offsets = self.offsets()
        if offsets and self.value:
            return self.source.position(offsets[0])
        return self.start_position


def value_offset(value: str, line: int, column: int) -> int | None:
    """Offset in ``value`` of 1-based (line, column); None when the line does not exist."""
    if line < 1 or column < 1:
        return None
    start = 0
    for _ in range(line - 1):
        found = value.find("\n", start)
        if found < 0:
            return None
        start = found + 1
    end = value.find("\n", start)
    end = len(value) if end < 0 else end
    return min(start + column - 1, end)


def scalar_sources(node: yaml.Node, source: SourceText, prefix: str = "") -> dict[str, ScalarSource]:
    """Every string scalar under ``node`` by field path (``spec.validations[0].expression``)."""
    out: dict[str, ScalarSource] = {}
    stack: list[tuple[yaml.Node, str]] = [(node, prefix)]
    seen: set[int] = set()
    while stack:
        current, path = stack.pop()
        if id(current) in seen:  # an alias: its text is at the anchor, already mapped
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode):
            if path and current.tag == "tag:yaml.org,2002:str":
                out[path] = ScalarSource(
                    source, current.start_mark.index, current.end_mark.index, current.style or None, current.value
                )
        elif isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                key = str(key_node.value)
                stack.append((value_node, f"{path}.{key}" if path else key))
        elif isinstance(current, yaml.SequenceNode):
            for i, item in enumerate(current.value):
                stack.append((item, f"{path}[{i}]"))
    return out


def map_scalar(text: str, start: int, end: int, style: str | None, value: str) -> list[int] | None:
    """Source index of each character of ``value`` (+ one past the end), read from text[start:end]."""
    try:
        if style in ("|", ">"):
            return _map_block(text, start, end, style == ">", value)
        built, offsets = _map_flow(text, start, end, style)
    except IndexError:
        return None
    return offsets if built == value else None


# -- plain and quoted: PyYAML's scan_plain / scan_flow_scalar -----------------------------------------
def _map_flow(text: str, start: int, end: int, style: str | None) -> tuple[str, list[int]]:
    quote = style if style in ("'", '"') else None
    i, stop = (start + 1, end - 1) if quote else (start, end)
    chars: list[str] = []
    offsets: list[int] = []

    def emit(ch: str, at: int) -> None:
        chars.append(ch)
        offsets.append(at)

    while i < stop:
        ch = text[i]
        if quote == "'" and ch == "'" and text[i + 1] == "'":
            emit("'", i)
            i += 2
        elif quote == '"' and ch == "\\":
            nxt = text[i + 1]
            if nxt in _ESCAPE_ONE:
                emit(_unescape(nxt), i)
                i += 2
            elif nxt in _ESCAPE_HEX:
                digits = _ESCAPE_HEX[nxt]
                emit(chr(int(text[i + 2 : i + 2 + digits], 16)), i)
                i += 2 + digits
            elif nxt == "\n":  # an escaped line break: nothing, then the next lines' breaks
                i = _fold(text, i + 1, stop, emit, escaped=True)
            else:
                raise IndexError("unknown escape")
        elif ch in " \t":
            run = i
            while run < stop and text[run] in " \t":
                run += 1
            if run < stop and text[run] == "\n":
                i = _fold(text, run, stop, emit)
            else:
                for k in range(i, run):
                    emit(text[k], k)
                i = run
        elif ch == "\n":
            i = _fold(text, i, stop, emit)
        else:
            emit(ch, i)
            i += 1
    offsets.append(stop)
    return "".join(chars), offsets


def _fold(text: str, i: int, stop: int, emit, escaped: bool = False) -> int:
    """At a line break inside a flow or plain scalar: one break folds to a space, n breaks to n-1
    newlines; leading blanks of the following lines are dropped. Returns the index after them."""
    breaks: list[int] = []
    while i < stop and text[i] == "\n":
        breaks.append(i)
        i += 1
        while i < stop and text[i] in " \t":
            i += 1
    if escaped:
        for at in breaks[1:]:
            emit("\n", at)
    elif len(breaks) == 1:
        emit(" ", breaks[0])
    else:
        for at in breaks[1:]:
            emit("\n", at)
    return i


def _unescape(ch: str) -> str:
    return {
        "0": "\0",
        "a": "\x07",
        "b": "\x08",
        "t": "\t",
        "\t": "\t",
        "n": "\n",
        "v": "\x0b",
        "f": "\x0c",
        "r": "\r",
        "e": "\x1b",
        " ": " ",
        '"': '"',
        "\\": "\\",
        "/": "/",
        "N": "\x85",
        "_": "\xa0",
        "L": "\u2028",
        "P": "\u2029",
    }[ch]


# -- literal and folded blocks: PyYAML's scan_block_scalar ----------------------------------------------
def _map_block(text: str, start: int, end: int, folded: bool, value: str) -> list[int] | None:
    header = _BLOCK_HEADER.match(text, start)
    if header is None:
        return None
    chomp = header.group(1) or header.group(3)
    body = text.find("\n", start)
    if body < 0 or body >= end:  # nothing after the header: the value can only be line breaks
        return [end] * (len(value) + 1) if not value.strip("\n") else None
    body += 1
    lines = _lines(text, body, end)
    if header.group(2):  # an explicit indentation indicator: relative to the parent, which we do not
        candidates = range(1, 1 + max(1, max((_indent(text, a, b) for a, b in lines), default=1)))  # know: try each
    else:
        candidates = [_auto_indent(text, lines)]
    near = None
    for indent in candidates:
        built, offsets = _block_with_indent(text, lines, indent, folded, chomp)
        if built == value:
            return offsets
        if near is None and built.rstrip("\n") == value.rstrip("\n"):
            near = offsets
    if near is None:  # the text differs, not only the trailing line breaks (chomping at the stream's end)
        return None
    keep = len(value.rstrip("\n"))
    last = near[keep - 1] + 1 if keep else (lines[0][0] if lines else end)
    return near[:keep] + [min(last + k, end) for k in range(len(value) - keep + 1)]


def _lines(text: str, begin: int, end: int) -> list[tuple[int, int]]:
    out = []
    i = begin
    while i < end:
        j = text.find("\n", i)
        j = len(text) if j < 0 else j
        out.append((i, j))
        i = j + 1
    return out


def _indent(text: str, a: int, b: int) -> int:
    k = a
    while k < b and text[k] == " ":
        k += 1
    return k - a


def _auto_indent(text: str, lines: list[tuple[int, int]]) -> int:
    deepest = 0
    for a, b in lines:
        n = _indent(text, a, b)
        if a + n < b:  # the first line with content sets the indentation
            return max(n, deepest, 1)
        deepest = max(deepest, n)
    return max(deepest, 1)


def _add(chars: list[str], offsets: list[int], added: Iterable[str], at: Iterable[int]) -> None:
    chars.extend(added)
    offsets.extend(at)


def _chomp(
    chars: list[str], offsets: list[int], end: int, chomp: str, last_break: int | None, pending: list[int]
) -> None:
    """The block's final line breaks: clip keeps the last line's (if it has one), strip (`-`) none, keep
    (`+`) every trailing one."""
    if last_break is not None and chomp != "-" and last_break < end:
        chars.append("\n")
        offsets.append(last_break)
    if chomp == "+":
        kept = [at for at in pending if at < end]
        _add(chars, offsets, ["\n"] * len(kept), kept)


def _block_with_indent(
    text: str, lines: list[tuple[int, int]], indent: int, folded: bool, chomp: str
) -> tuple[str, list[int]]:
    chars: list[str] = []
    offsets: list[int] = []
    pending: list[int] = []  # line breaks seen since the last content line (source index of each)
    last_break: int | None = None
    last_leading_blank = True
    for a, b in lines:
        n = _indent(text, a, b)
        if a + min(n, indent) >= b and n <= indent:  # an empty line
            pending.append(b)
            continue
        if n < indent:  # less indented: the block ended (text after it belongs to the parent)
            break
        content_start = a + indent
        leading_blank = text[content_start] in " \t"
        if last_break is not None:  # the break between this content line and the one before
            joined = folded and not last_leading_blank and not leading_blank
            if not (joined and pending):
                chars.append(" " if joined else "\n")
                offsets.append(last_break)
        _add(chars, offsets, ["\n"] * len(pending), pending)
        pending = []
        _add(chars, offsets, text[content_start:b], range(content_start, b))
        last_break, last_leading_blank = b, leading_blank
    _chomp(chars, offsets, len(text), chomp, last_break, pending)
    offsets.append(offsets[-1] + 1 if offsets else (lines[0][0] if lines else 0))
    return "".join(chars), offsets
