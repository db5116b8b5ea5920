"""Kyverno anchors: parsing `(k)`, `=(k)`, `^(k)`, `X(k)`, `<(k)`, `+(k)` keys and the anchor error kinds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .kept_errors import kept

CONDITION, GLOBAL, NEGATION, ADD_IF_NOT_PRESENT, EQUALITY, EXISTENCE = "", "<", "X", "+", "=", "^"

_ANCHOR_RE = re.compile(r"^([+<=X^])?\((.+)\)$", re.DOTALL)


@dataclass(frozen=True)
class Anchor:
    modifier: str
    key: str

    def __str__(self) -> str:
        return f"{self.modifier}({self.key})"


@lru_cache(maxsize=4096)
def parse(text: str) -> Anchor | None:
    m = _ANCHOR_RE.match(text.strip())
    if not m:
        return None
    return Anchor(m.group(1) or "", m.group(2))


def is_kind(key: str, *modifiers: str) -> bool:
    a = parse(key)
    return a is not None and a.modifier in modifiers


NEGATION_MSG = "negation anchor matched in resource"
CONDITIONAL_MSG = "conditional anchor mismatch"
GLOBAL_MSG = "global anchor mismatch"


class PatternFailure(Exception):
    """A plain validation failure with Kyverno's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class AnchorError(PatternFailure):
    """validateAnchorError: kind is one of CONDITIONAL_MSG, GLOBAL_MSG, NEGATION_MSG."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class PatternError(PatternFailure):
    """validate.PatternError: an error with the failing path and whether the rule is skipped."""

    def __init__(self, errors: list[PatternFailure] | PatternFailure, path: str, skip: bool) -> None:
        errs = errors if isinstance(errors, list) else [errors]
        super().__init__("; ".join(str(e) for e in errs))
        self.errors = [kept(e) for e in errs]
        self.path = path
        self.skip = skip


def _is_anchor_error(err: Exception | None, kind: str) -> bool:
    if err is None:
        return False
    if isinstance(err, AnchorError):
        return err.kind == kind
    return kind in str(err)


def is_conditional_error(err: Exception | None) -> bool:
    return _is_anchor_error(err, CONDITIONAL_MSG)


def is_global_error(err: Exception | None) -> bool:
    return _is_anchor_error(err, GLOBAL_MSG)


def is_negation_error(err: Exception | None) -> bool:
    return _is_anchor_error(err, NEGATION_MSG)
