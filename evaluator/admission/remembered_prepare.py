"""Defaulting and create-time validation of admission objects, remembered per object: an edit in the live
editor loads the whole document set again, and every policy and binding the edit left alone would be
defaulted, validated and compiled again.

What `validation.prepare` makes depends only on the object, whether expressions are compiled (the API
server's compile check, for the release simulated) and that release, so those are the key. Each caller
gets its own copy of the defaulted object (later stages may change it); the errors and warnings are shared
(nothing changes them).
"""

from __future__ import annotations

from collections.abc import Mapping

from evaluator.admission.parsed_texts import copied
from evaluator.admission.validation import CompileCheck, PreparedObject, prepare
from evaluator.cel.memo import RecentMemo, exact_key
from evaluator.cel.versions import active_version

_PREPARED: RecentMemo[PreparedObject] = RecentMemo(1024)


def remembered_prepare(obj: Mapping, compile_check: CompileCheck | None = None) -> PreparedObject:
    """`prepare(obj, compile_check)`, made once per object, compile check and release."""
    exact = exact_key(obj)
    key = None if exact is None else (exact, compile_check, active_version())
    found = _PREPARED.remember(key, lambda: prepare(obj, compile_check))
    return PreparedObject(copied(found.object), list(found.errors), list(found.warnings))


def clear() -> None:
    _PREPARED.clear()
