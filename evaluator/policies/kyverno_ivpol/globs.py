"""`matchImageReferences[].glob`: gobwas/glob patterns without separators (`*` and `**` match any run of
characters, `/` included; `?` one character; `[abc]`, `[!abc]`, `[a-z]` classes; `{a,b}` alternatives;
`\\` escapes), compiled to a regular expression. A pattern that does not parse raises GlobError."""

from __future__ import annotations

import re
from functools import lru_cache


class GlobError(ValueError):
    pass


def _translate(pattern: str, i: int, in_braces: bool) -> tuple[str, int]:
    out: list[str] = []
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern):
                raise GlobError("unexpected end of input")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif ch == "*":
            while i < len(pattern) and pattern[i] == "*":
                i += 1
            out.append(".*")
        elif ch == "?":
            out.append(".")
            i += 1
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                raise GlobError(f"unexpected end of input: unclosed '[' at {i}")
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            if not body:
                raise GlobError(f"empty character class at {i}")
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\").replace("^", "\\^") + "]")
            i = end + 1
        elif ch == "{":
            alternatives = []
            i += 1
            while True:
                part, i = _translate(pattern, i, True)
                alternatives.append(part)
                if i >= len(pattern):
                    raise GlobError("unexpected end of input: unclosed '{'")
                if pattern[i] == "}":
                    i += 1
                    break
                i += 1  # the comma
            out.append("(?:" + "|".join(alternatives) + ")")
        elif in_braces and ch in ",}":
            return "".join(out), i
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out), i


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    text, _ = _translate(pattern, 0, False)
    return re.compile(text, re.DOTALL)
