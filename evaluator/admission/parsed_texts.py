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
from typing import Any

from evaluator.admission.documents import Document, LoadError, Parsed, parse_chunk
from evaluator.admission.documents import load_documents as parse_documents
from evaluator.cel.memo import RecentMemo

MAX_ENTRIES = 256
MAX_CHUNKS = 4096  # YAML documents
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


def _text_chars(key: tuple[str, str | None, bool]) -> int:
    return len(key[0])


# (text, source, with positions) -> (records, errors)
_CACHE: RecentMemo[tuple[list[Document], list[LoadError]]] = RecentMemo(MAX_ENTRIES, MAX_TOTAL_CHARS, _text_chars)
# One YAML document's text -> what `parse_chunk` made of it: only ever read (the records made of it go into
# `_CACHE`, and callers get copies). A chunk that does not parse raises: nothing is kept.
_CHUNKS: RecentMemo[Parsed] = RecentMemo(MAX_CHUNKS, MAX_TOTAL_CHARS, len)


def _parse_chunk(chunk: str) -> Parsed:
    return _CHUNKS.remember(chunk, lambda: parse_chunk(chunk))


def load_documents(
    text: str, source: str | None = None, positions: bool = True
) -> tuple[list[Document], list[LoadError]]:
    """`documents.load_documents(text, source, positions)`, parsing each text once."""
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return parse_documents(text, source, positions)
    text = str(text)
    records, errors = _CACHE.remember(
        (text, source, positions), lambda: parse_documents(text, source, positions, _parse_chunk)
    )
    return [record.with_data(copied(record.data)) for record in records], list(errors)


def clear() -> None:
    _CACHE.clear()
    _CHUNKS.clear()
