"""Document texts parsed once: an edit in the live editor changes one text of a project, and the others (and
every other project's copy of the same example) are read again on each evaluation otherwise; a policy edit
runs every sample request again, each read from its text.

`load_documents` answers as `documents.load_documents` does, from a bounded cache of what each (text, name)
parsed to. Each call gets Document records of its own, holding copies of the parsed data (later stages may
replace or change a record's data); what no stage changes (field positions, scalar sources, load errors)
is shared. A text seen for the first time is read one YAML document at a time, each also remembered: an
edit changes one of a file's documents, and the others need not be parsed again.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

from evaluator.admission.documents import Document, LoadError, Parsed, parse_chunk
from evaluator.admission.documents import load_documents as parse_documents

MAX_ENTRIES = 256
MAX_TEXT_CHARS = 64 * 1024  # a bigger text (a dump) is parsed each time: it is seldom read twice
MAX_TOTAL_CHARS = 1024 * 1024  # the texts held, all entries together (parsed, with positions: ~27 bytes a character)

_PLAIN = frozenset({str, int, float, bool, type(None)})


def copied(value: Any) -> Any:
    """A deep copy of parsed YAML data (dicts, lists, scalars), several times quicker than `copy.deepcopy`."""
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _PLAIN else copied(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _PLAIN else copied(item) for item in value]
    if kind in _PLAIN:
        return value
    return copy.deepcopy(value)  # anything else YAML can make (a set, bytes): rare


Key = tuple[str, "str | None", bool]  # (text, source, with positions)


class _Cache:
    """(text, source, positions) -> (records, errors), least recently used first out, bounded in entries and
    characters."""

    def __init__(self) -> None:
        self.entries: OrderedDict[Key, tuple[list[Document], list[LoadError]]] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def get(self, key: Key) -> tuple[list[Document], list[LoadError]] | None:
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
            return found

    def put(self, key: Key, value: tuple[list[Document], list[LoadError]]) -> None:
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = value
            self.chars += len(key[0])
            while len(self.entries) > MAX_ENTRIES or self.chars > MAX_TOTAL_CHARS:
                (text, _, _), _ = self.entries.popitem(last=False)
                self.chars -= len(text)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.chars = 0


_CACHE = _Cache()


class _Chunks:
    """One YAML document's text -> what `parse_chunk` made of it, bounded in characters; what it holds is
    only ever read (the records made of it go into `_CACHE`, and callers get copies)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, Parsed] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def parse(self, chunk: str) -> Parsed:
        with self.lock:
            found = self.entries.get(chunk)
            if found is not None:
                self.entries.move_to_end(chunk)
                return found
        found = parse_chunk(chunk)  # a YAML error raises: nothing is kept
        with self.lock:
            if chunk not in self.entries:
                self.entries[chunk] = found
                self.chars += len(chunk)
                while self.chars > MAX_TOTAL_CHARS:
                    old, _ = self.entries.popitem(last=False)
                    self.chars -= len(old)
        return found

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.chars = 0


_CHUNKS = _Chunks()


def load_documents(
    text: str, source: str | None = None, positions: bool = True
) -> tuple[list[Document], list[LoadError]]:
    """`documents.load_documents(text, source, positions)`, parsing each text once."""
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return parse_documents(text, source, positions)
    key = (str(text), source, positions)
    found = _CACHE.get(key)
    if found is None:
        found = parse_documents(text, source, positions, _CHUNKS.parse)
        _CACHE.put(key, found)
    records, errors = found
    return [record.with_data(copied(record.data)) for record in records], list(errors)


def clear() -> None:
    _CACHE.clear()
    _CHUNKS.clear()
