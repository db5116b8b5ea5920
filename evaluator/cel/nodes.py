"""What the compiler makes of each parse-tree node: its closure, static type and constant value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lark import Token, Tree

from evaluator.cel.registry import NOT_CONSTANT
from evaluator.cel.runtime import Ctx
from evaluator.cel.types import DYN, Type

Fn = Callable[[Ctx], Any]
_NC = NOT_CONSTANT


class CompileIssue(Exception):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@dataclass
class Node:
    fn: Fn
    type: Type = DYN
    const: Any = _NC
    # For identifiers: the reader without the identifier's cost, where cel-go charges nothing for the read
    # (a ternary branch that is a plain identifier, an index key that is an identifier).
    raw: Fn | None = None
    # cel-go plans identifiers, selections, indexes and ternaries as attributes; selecting from anything
    # else (a call's result, a literal) first wraps it in a relative attribute, which costs 1 more.
    attribute: bool = False

    @property
    def is_const(self) -> bool:
        return self.const is not _NC


def const_node(value: Any, t: Type) -> Node:
    return Node(lambda ctx: value, t, value)


def position(item: Tree | Token) -> tuple[int, int]:
    if isinstance(item, Token):
        return item.line or 1, item.column or 1
    meta = item.meta
    return getattr(meta, "line", 1), getattr(meta, "column", 1)


def first_token(t: Tree) -> Tree | Token:
    for tok in t.scan_values(lambda v: isinstance(v, Token)):
        return tok
    return t
