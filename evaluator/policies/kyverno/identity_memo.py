"""What a policy's maps and lists decide, worked out once per map or list and kept with it by identity.

A policy is read, never changed in place, and a batch or a live room meets the same policy objects again and
again: a result kept under the object's id (the object held beside it, so that the id stays its own) spares
working it out again. A bounded memo: cleared when full.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")

MEMO_SIZE = 8192


def remembered(document: object, check: Callable[[object], R], memo: dict[int, tuple[object, R]]) -> R:
    """`check(document)`, kept in `memo` when `document` is a map or a list (made each time otherwise)."""
    if not isinstance(document, (dict, list)):
        return check(document)
    found = memo.get(id(document))
    if found is not None and found[0] is document:
        return found[1]
    result = check(document)
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[id(document)] = (document, result)
    return result
