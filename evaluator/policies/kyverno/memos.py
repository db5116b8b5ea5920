"""What the Kyverno engine works out once per policy map or list, and keeps with it by identity.

A policy is read, never changed in place, and a batch or a live room meets the same policy objects again and
again: a result kept under the object's id (the object held beside it, so that the id stays its own) spares
working it out again. Every memo is bounded: cleared when full. (What is kept by a short string's value is
`evaluator.cel.memo.remembered_when_short`.)
"""

from __future__ import annotations

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
