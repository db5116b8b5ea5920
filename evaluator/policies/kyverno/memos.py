"""What the Kyverno engine works out once and keeps: by a policy's map or list (its identity), or by a short
string (its value).

A policy is read, never changed in place, and a batch or a live room meets the same policy objects again and
again: a result kept under the object's id (the object held beside it, so that the id stays its own) spares
working it out again. The strings a policy compares (its patterns, variables, units) are few and short; a long
one is most likely a value substituted from a resource, different each time, and is not kept. Every memo is
bounded: cleared (or least recently used dropped) when full.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

R = TypeVar("R")

MEMO_SIZE = 8192

# key -> (the object the result was worked out from, the result, its stamp when worked out)
Memo = dict[Hashable, tuple[object, Any, object]]


def remembered(document: object, check: Callable[[Any], R], memo: Memo) -> R:
    """`check(document)`, kept in `memo` when `document` is a map or a list (made each time otherwise)."""
    if not isinstance(document, (dict, list)):
        return check(document)
    return remembered_under(id(document), document, check, memo)


def remembered_under(
    key: Hashable,
    owner: object,
    make: Callable[..., R],
    memo: Memo,
    *args: object,
    stamp: object = None,
    size: int = MEMO_SIZE,
) -> R:
    """`make(owner, *args)`, kept in `memo` under `key` (which holds `id(owner)` and whatever else the result
    depends on). `stamp` is a cheap reading of `owner` that changes when it does in place (its length, say):
    a kept result with another stamp is made again."""
    found = memo.get(key)
    if found is not None and found[0] is owner and found[2] == stamp:
        return found[1]
    result = make(owner, *args)
    if len(memo) >= size:
        memo.clear()
    memo[key] = (owner, result, stamp)
    return result


def remembered_when_short(chars: int, size: int = 4096) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
    """A reading of a string, kept (least recently used dropped) when the string has at most `chars`
    characters, made each time otherwise."""

    def decorate(read: Callable[[str], R]) -> Callable[[str], R]:
        kept = functools.lru_cache(maxsize=size)(read)

        @functools.wraps(read)
        def short_kept(text: str) -> R:
            return kept(text) if len(text) <= chars else read(text)

        short_kept.cache_info = kept.cache_info  # type: ignore[attr-defined]
        short_kept.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        return short_kept

    return decorate
