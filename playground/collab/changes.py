"""CodeMirror change sets in Python: read from their JSON, applied to text, mapped and composed.

The authority rebases a push made on an older version over the changes it missed (`rebase.py`), so it needs
the arithmetic of `@codemirror/state`'s `ChangeSet`/`ChangeDesc` (`map`, `mapDesc`, `compose`,
`composeDesc`) with exactly the library's tie-breaking: the client then holds the same text as the server.
Ported from its semantics (sections of `[length, inserted length or -1 for kept]`), not from a Python
library — there is none for CodeMirror's format.

CodeMirror counts positions in UTF-16 code units with every line break as one unit; the texts it edits use
"\\n" only. Inside this module text is held as "unit strings", one Python character per UTF-16 unit (a
character outside the BMP is two surrogate characters), so slicing by position is plain slicing. A change
set's JSON is a list of sections: a number retains that many units, `[n]` deletes n, `[n, line, line, ...]`
replaces n units with the lines joined by "\\n".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playground.core.errors import ServiceError

MAX_SECTIONS = 100_000
# What a change stores and sends in place of a NUL, which PostgreSQL cannot store: one UTF-16 unit, as NUL
# is, so every position stays where it was. A text holding a NUL is never saved (authority.push refuses it),
# so this is only ever seen between a NUL typed and its removal, in the changes of one push.
NUL_STAND_IN = "\ufffd"
_INSERTED_LINE = re.compile(r"updates\[\d+\]\.changes\[\d+\]\[[1-9]\d*\]")


def invalid(message: str) -> ServiceError:
    return ServiceError("invalid_message", f"invalid change set: {message}")


def normalise(text: str) -> str:
    """The text as CodeMirror holds it (it splits lines on \\r\\n, \\r and \\n and joins them with \\n)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def units(text: str) -> str:
    """The text with one character per UTF-16 code unit."""
    if text.isascii():
        return text
    raw = text.encode("utf-16-le", "surrogatepass")
    return "".join(map(chr, memoryview(raw).cast("H")))


def from_units(text: str) -> str:
    """A unit string back to text; raises when a change split a character in two."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise invalid("it splits a character in two") from None


def length(text: str) -> int:
    """The text's length as CodeMirror counts it (UTF-16 code units)."""
    return len(units(text))


def _inserted_line(path: str) -> bool:
    return _INSERTED_LINE.fullmatch(path) is not None


def nul_passes(message: Any) -> Callable[[str], bool] | None:
    """For the input checks (`core.edge`): a push's inserted lines may hold NUL. A NUL pasted and deleted
    again within one push must not make the push, and with it everything typed after it, unsaveable; a text
    that still holds one is refused by the authority, placed at its line and column."""
    return _inserted_line if isinstance(message, dict) and message.get("type") == "push" else None


def check(changes) -> list:
    """The change set's JSON, checked for shape; raises ServiceError on anything else."""
    if not isinstance(changes, list) or len(changes) > MAX_SECTIONS:
        raise invalid("must be a list of sections")
    for part in changes:
        if type(part) is int:
            if part < 0:
                raise invalid("a retained length must not be negative")
            continue
        if not isinstance(part, list) or not part or type(part[0]) is not int or part[0] < 0:
            raise invalid("a section is a length or a list [length, ...inserted lines]")
        if not all(isinstance(line, str) and "\n" not in line and "\r" not in line for line in part[1:]):
            raise invalid("inserted lines must be strings without line breaks")
    return changes


class ChangeSet:
    """`sections` is flat pairs (length in the old text, inserted length or -1 when kept); `inserted` holds
    each section's inserted unit string, or is None for a description (positions only, `ChangeDesc`)."""

    __slots__ = ("inserted", "sections")

    def __init__(self, sections: list[int], inserted: list[str] | None):
        self.sections = sections
        self.inserted = inserted

    @classmethod
    def from_json(cls, json) -> ChangeSet:
        sections: list[int] = []
        inserted: list[str] = []
        for index, part in enumerate(check(json)):
            if type(part) is int:
                sections += (part, -1)
            elif len(part) == 1:
                sections += (part[0], 0)
            else:
                text = units("\n".join(part[1:]))
                inserted += [""] * (index - len(inserted)) + [text]
                sections += (part[0], len(text))
        return cls(sections, inserted)

    def to_json(self) -> list:
        """The change set's JSON as stored and sent: a NUL inserted is written as NUL_STAND_IN."""
        parts: list = []
        for index in range(0, len(self.sections), 2):
            size, ins = self.sections[index], self.sections[index + 1]
            if ins < 0:
                parts.append(size)
            elif ins == 0:
                parts.append([size])
            else:
                parts.append([size, *from_units(self._inserted(index >> 1)).replace("\x00", NUL_STAND_IN).split("\n")])
        return parts

    def _inserted(self, index: int) -> str:
        return self.inserted[index] if self.inserted is not None and index < len(self.inserted) else ""

    @property
    def length(self) -> int:
        return sum(self.sections[0::2])

    @property
    def new_length(self) -> int:
        return sum(size if ins < 0 else ins for size, ins in zip(self.sections[0::2], self.sections[1::2], strict=True))

    @property
    def empty(self) -> bool:
        return not self.sections or (len(self.sections) == 2 and self.sections[1] < 0)

    @property
    def desc(self) -> ChangeSet:
        return ChangeSet(self.sections, None)

    def apply_units(self, text: str) -> str:
        if self.length != len(text):
            raise invalid(f"it applies to a text of length {self.length}, not {len(text)}")
        out, pos = [], 0
        for index in range(0, len(self.sections), 2):
            size, ins = self.sections[index], self.sections[index + 1]
            if ins < 0:
                out.append(text[pos : pos + size])
            elif ins:
                out.append(self._inserted(index >> 1))
            pos += size
        return "".join(out)

    def map(self, other: ChangeSet, before: bool = False) -> ChangeSet:
        """These changes moved to apply after `other` (both start from the same text); `before` orders ours
        first where both insert at one place (`ChangeSet.map`)."""
        return self if other.empty else _map(self, other, before)

    def map_desc(self, other: ChangeSet, before: bool = False) -> ChangeSet:
        """`mapDesc`: a change set maps fully even over nothing; a description returns itself then."""
        if self.inserted is None:
            return self if other.empty else _map(self, other, before)
        return _map(self, other, before)

    def compose(self, other: ChangeSet) -> ChangeSet:
        """These changes, then `other` (which starts from the text these produce), as one."""
        return other if self.empty else self if other.empty else _compose(self, other, self.inserted is not None)

    def compose_desc(self, other: ChangeSet) -> ChangeSet:
        return other if self.empty else self if other.empty else _compose(self, other, False)


def apply(text: str, changes) -> str:
    """The text after the change set (its JSON); the set must cover exactly the text's length."""
    return from_units(ChangeSet.from_json(changes).apply_units(units(text)))


def between(old: str, new: str) -> list:
    """A small change set turning `old` into `new` (common prefix and suffix kept): how a whole-text save
    (REST, an older client) enters the history, so co-editors' unsent changes still rebase onto it."""
    if old == new:
        return [length(old)] if old else []
    limit = min(len(old), len(new))
    start = _longest(lambda n: old[:n] == new[:n], limit)
    end = _longest(lambda n: old[len(old) - n :] == new[len(new) - n :], limit - start)
    head, removed, inserted = old[:start], old[start : len(old) - end], new[start : len(new) - end]
    tail = old[len(old) - end :]
    sections: list = []
    if head:
        sections.append(length(head))
    sections.append([length(removed), *inserted.split("\n")] if inserted else [length(removed)])
    if tail:
        sections.append(length(tail))
    return sections


def replacement(old_text: str, new_text: str) -> list | None:
    """The smallest change from one text to the other, as the history records it; None when they read the
    same once normalised (nothing to record). Its JSON form: a list."""
    changes = between(normalise(old_text), normalise(new_text))
    if not changes or changes == [length(normalise(old_text))]:
        return None
    return changes


def _longest(same, limit: int) -> int:
    """The largest n <= limit with same(n), for a `same` true up to some n and false beyond (a common prefix or
    suffix): found by halving, so the characters are compared by slices at C speed, not one by one in Python
    (a keystroke's save compares two whole texts)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


# ---- the section arithmetic of @codemirror/state (mapSet, composeSets and their helpers) ---------------


def _mismatch() -> ServiceError:
    return invalid("it does not apply to the text it was made on (lengths differ)")


class _Sections:
    """Walks a change set section by section, able to stop part-way through one (`off`)."""

    __slots__ = ("i", "ins", "inserted", "len", "off", "sections")

    def __init__(self, changes: ChangeSet):
        self.sections, self.inserted = changes.sections, changes.inserted
        self.i = 0
        self.next()

    def next(self) -> None:
        if self.i < len(self.sections):
            self.len, self.ins = self.sections[self.i], self.sections[self.i + 1]
            self.i += 2
        else:
            self.len, self.ins = 0, -2
        self.off = 0

    @property
    def done(self) -> bool:
        return self.ins == -2

    @property
    def len2(self) -> int:
        return self.len if self.ins < 0 else self.ins

    @property
    def text(self) -> str:
        index = (self.i - 2) >> 1
        return self.inserted[index] if self.inserted is not None and index < len(self.inserted) else ""

    def text_bit(self, size: int) -> str:
        return self.text[self.off : self.off + size]

    def forward(self, size: int) -> None:
        if size == self.len:
            self.next()
        else:
            self.len -= size
            self.off += size

    def forward2(self, size: int) -> None:
        if self.ins == -1:
            self.forward(size)
        elif size == self.ins:
            self.next()
        else:
            self.ins -= size
            self.off += size


def _add_section(sections: list[int], size: int, ins: int, force_join: bool = False) -> None:
    if size == 0 and ins <= 0:
        return
    last = len(sections) - 2
    if last >= 0 and ins <= 0 and ins == sections[last + 1]:
        sections[last] += size
    elif last >= 0 and size == 0 and sections[last] == 0:
        sections[last + 1] += ins
    elif force_join:
        sections[last] += size
        sections[last + 1] += ins
    else:
        sections += (size, ins)


def _add_insert(values: list[str], sections: list[int], value: str) -> None:
    if not value:
        return
    index = (len(sections) - 2) >> 1
    if index < len(values):
        values[-1] += value
    else:
        values += [""] * (index - len(values)) + [value]


def _map(set_a: ChangeSet, set_b: ChangeSet, before: bool) -> ChangeSet:
    """A copy of A that applies after B (both start from the same text): B's insertions are kept, A's
    changes move past them; where both insert at one place, B goes first unless `before`."""
    sections: list[int] = []
    insert: list[str] | None = [] if set_a.inserted is not None else None
    a, b = _Sections(set_a), _Sections(set_b)
    inserted = -1  # the section of A whose insertion is already written
    while True:
        if (a.done and b.len) or (b.done and a.len):
            raise _mismatch()
        if a.ins == -1 and b.ins == -1:  # kept by both
            size = min(a.len, b.len)
            _add_section(sections, size, -1)
            a.forward(size)
            b.forward(size)
        elif b.ins >= 0 and (
            a.ins < 0 or inserted == a.i or (a.off == 0 and (b.len < a.len or (b.len == a.len and not before)))
        ):
            inserted = _map_change_of_b(a, b, sections, insert, inserted)
        elif a.ins >= 0:
            inserted = _map_change_of_a(a, b, sections, insert, inserted)
        elif a.done and b.done:
            return ChangeSet(sections, insert)
        else:
            raise _mismatch()


def _map_change_of_b(a: _Sections, b: _Sections, sections: list[int], insert: list[str] | None, inserted: int) -> int:
    """B's change comes first: keep what it inserted, and drop the part of A it covers."""
    size = b.len
    _add_section(sections, b.ins, -1)
    while size:
        if a.done:  # A is shorter than B (the library would loop here for ever)
            raise _mismatch()
        piece = min(a.len, size)
        if a.ins >= 0 and inserted < a.i and a.len <= piece:
            _add_section(sections, 0, a.ins)
            if insert is not None:
                _add_insert(insert, sections, a.text)
            inserted = a.i
        a.forward(piece)
        size -= piece
    b.next()
    return inserted


def _map_change_of_a(a: _Sections, b: _Sections, sections: list[int], insert: list[str] | None, inserted: int) -> int:
    """A's change, up to the next change of B that is not a plain deletion inside it."""
    size, left = 0, a.len
    while left:
        if b.ins == -1:
            piece = min(left, b.len)
            size += piece
            left -= piece
            b.forward(piece)
        elif b.ins == 0 and b.len < left:
            left -= b.len
            b.next()
        else:
            break
    _add_section(sections, size, a.ins if inserted < a.i else 0)
    if insert is not None and inserted < a.i:
        _add_insert(insert, sections, a.text)
    inserted = a.i
    a.forward(a.len - left)
    return inserted


def _compose(set_a: ChangeSet, set_b: ChangeSet, make_set: bool) -> ChangeSet:
    """A then B as one change set (B starts from the text A produces)."""
    sections: list[int] = []
    insert: list[str] | None = [] if make_set else None
    a, b = _Sections(set_a), _Sections(set_b)
    is_open = False
    while True:
        if a.done and b.done:
            return ChangeSet(sections, insert)
        if a.ins == 0:  # a deletion in A
            _add_section(sections, a.len, 0, is_open)
            a.next()
        elif b.len == 0 and not b.done:  # an insertion in B
            _add_section(sections, 0, b.ins, is_open)
            if insert is not None:
                _add_insert(insert, sections, b.text)
            b.next()
        elif a.done or b.done:
            raise _mismatch()
        else:
            size, count = min(a.len2, b.len), len(sections)
            _compose_overlap(a, b, size, sections, insert, is_open)
            is_open = (a.ins > size or (b.ins >= 0 and b.len > size)) and (is_open or len(sections) > count)
            a.forward2(size)
            b.forward(size)


def _compose_overlap(
    a: _Sections, b: _Sections, size: int, sections: list[int], insert: list[str] | None, is_open: bool
) -> None:
    """Where A's result and B's input overlap for `size` characters: kept by A (B decides), kept by B (A's
    insertion survives), or changed by both (B's insertion wins)."""
    if a.ins == -1:
        ins_b = -1 if b.ins == -1 else 0 if b.off else b.ins
        _add_section(sections, size, ins_b, is_open)
        if insert is not None and ins_b:
            _add_insert(insert, sections, b.text)
    elif b.ins == -1:
        _add_section(sections, 0 if a.off else a.len, size, is_open)
        if insert is not None:
            _add_insert(insert, sections, a.text_bit(size))
    else:
        _add_section(sections, 0 if a.off else a.len, 0 if b.off else b.ins, is_open)
        if insert is not None and not b.off:
            _add_insert(insert, sections, b.text)
