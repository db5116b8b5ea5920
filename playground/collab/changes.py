"""CodeMirror change sets (their JSON form) applied to Python text.

CodeMirror counts positions in UTF-16 code units with every line break as one unit; the texts it edits use
"\n" only. A change set's JSON is a list of sections: a number retains that many units, `[n]` deletes n,
`[n, line, line, ...]` replaces n units with the lines joined by "\n".
"""

from __future__ import annotations

from playground.services.errors import ServiceError

MAX_SECTIONS = 100_000


def invalid(message: str) -> ServiceError:
    return ServiceError("invalid_message", f"invalid change set: {message}")


def normalise(text: str) -> str:
    """The text as CodeMirror holds it (it splits lines on \\r\\n, \\r and \\n and joins them with \\n)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def length(text: str) -> int:
    """The text's length as CodeMirror counts it (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(_units(text)) // 2


def check(changes) -> list:
    """The change set's sections, checked for shape; raises ServiceError on anything else."""
    if not isinstance(changes, list) or len(changes) > MAX_SECTIONS:
        raise invalid("must be a list of sections")
    for part in changes:
        if type(part) is int:
            if part < 0:
                raise invalid("a retained length must not be negative")
            continue
        if not isinstance(part, list) or not part or type(part[0]) is not int or part[0] < 0:
            raise invalid("a section is a length or a list [length, ...inserted lines]")
        if not all(isinstance(line, str) for line in part[1:]):
            raise invalid("inserted lines must be strings")
    return changes


def input_length(changes: list) -> int:
    """The length of the document the change set applies to."""
    return sum(part if type(part) is int else part[0] for part in changes)


def apply(text: str, changes) -> str:
    """The text after the change set; the set must cover exactly the text's length."""
    check(changes)
    ascii_only = text.isascii() and all(type(p) is int or all(line.isascii() for line in p[1:]) for p in changes)
    if ascii_only:
        return _apply_ascii(text, changes)
    units = _units(text)
    if input_length(changes) * 2 != len(units):
        raise invalid(f"it applies to a text of length {input_length(changes)}, not {len(units) // 2}")
    out, pos = [], 0
    for part in changes:
        if type(part) is int:
            out.append(units[pos : pos + part * 2])
            pos += part * 2
        else:
            pos += part[0] * 2
            if len(part) > 1:
                out.append(_units("\n".join(part[1:])))
    try:
        result = b"".join(out).decode("utf-16-le")
    except UnicodeDecodeError:
        raise invalid("it splits a character in two") from None
    return result


def _apply_ascii(text: str, changes: list) -> str:
    if input_length(changes) != len(text):
        raise invalid(f"it applies to a text of length {input_length(changes)}, not {len(text)}")
    out, pos = [], 0
    for part in changes:
        if type(part) is int:
            out.append(text[pos : pos + part])
            pos += part
        else:
            pos += part[0]
            if len(part) > 1:
                out.append("\n".join(part[1:]))
    return "".join(out)


def between(old: str, new: str) -> list:
    """A small change set turning `old` into `new` (common prefix and suffix kept): how a whole-text save
    (REST, an older client) enters the history, so co-editors' unsent changes still rebase onto it."""
    if old == new:
        return [length(old)] if old else []
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    head, removed, inserted = old[:start], old[start : len(old) - end], new[start : len(new) - end]
    tail = old[len(old) - end :]
    sections: list = []
    if head:
        sections.append(length(head))
    sections.append([length(removed), *inserted.split("\n")] if inserted else [length(removed)])
    if tail:
        sections.append(length(tail))
    return sections
