"""Kyverno's wildcard matching (IGLOU-EU/go-wildcard v1): `*` any run, `?` exactly one character."""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    parts = []
    for ch in pattern:
        if ch == "*":
            parts.append(".*")
        elif ch == "?":
            parts.append(".")
        else:
            parts.append(re.escape(ch))
    return re.compile("".join(parts), re.DOTALL)


def match(pattern: str, name: str) -> bool:
    """True when `name` matches the wildcard `pattern` (whole string)."""
    if pattern == "":
        return name == ""
    if pattern == "*":
        return True
    return _compile(pattern).fullmatch(name) is not None


def contains_wildcard(value: str) -> bool:
    return "*" in value or "?" in value
