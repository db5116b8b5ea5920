"""Compiling one schema node's `x-kubernetes-validations` (apiextensions `schema/cel/compilation.go`).

Each rule compiles in the CRD environment: the API server's base library with `self` typed from the
schema and `oldSelf` of the same type (or `optional_type(T)` under `optionalOldSelf`); no `request`,
`authorizer` or `params`. A rule must be boolean; a messageExpression a string.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree

from evaluator.cel.env import Env
from evaluator.cel.errors import CompileError
from evaluator.cel.grammar import parser
from evaluator.cel.macros import MEMBER_MACROS
from evaluator.cel.program import Program, compile_program
from evaluator.cel.types import BOOL, STRING, Type, optional_of
from evaluator.crd.fieldpath import valid_field_path

SELF, OLD_SELF = "self", "oldSelf"


@dataclass
class CompiledRule:
    rule: Mapping[str, Any]
    program: Program | None = None
    error: str | None = None  # "compilation failed: ERROR: ..." (the detail after "rule compile error: ")
    uses_old_self: bool = False
    max_cost: int = 0
    message_program: Program | None = None
    message_error: str | None = None
    message_max_cost: int = 0
    field_path: str = ""  # normalized relative fieldPath
    extra: dict = field(default_factory=dict)

    @property
    def optional_old_self(self) -> bool:
        return self.rule.get("optionalOldSelf") is True


def type_name_for(schema: Any) -> str:
    """A stable stand-in for cel-go's `selfType<nanos>` (programs are cached by it, so it must be unique per schema)."""
    digest = hashlib.sha1(json.dumps(schema, sort_keys=True, default=str).encode()).hexdigest()[:10]
    return f"selfType{int(digest, 16) % 10**9}"


def rule_env(self_type: Type, optional_old_self: bool, per_call_limit: int) -> Env:
    old = optional_of(self_type) if optional_old_self else self_type
    return Env({SELF: self_type, OLD_SELF: old}, cost_limit=per_call_limit, name="crd")


def compile_rule(
    rule: Mapping[str, Any], node_schema: Mapping[str, Any], self_type: Type, per_call_limit: int, estimator=None
) -> CompiledRule:
    result = CompiledRule(rule)
    text = rule.get("rule")
    if not isinstance(text, str) or not text.strip():
        return result  # an empty rule: neither a program nor an error
    env = rule_env(self_type, result.optional_old_self, per_call_limit)
    try:
        program = compile_program(text, env=env)
    except CompileError as e:
        result.error = _compile_failure(e)
        return result
    if program.type != BOOL:
        result.error = "cel expression must evaluate to a bool"
        return result
    result.uses_old_self = references(text, OLD_SELF)
    if estimator is not None:
        result.max_cost = estimator(text, env)
    result.program = program
    message = rule.get("messageExpression")
    if isinstance(message, str) and message:
        try:
            message_program = compile_program(message, env=env)
        except CompileError as e:
            result.message_error = "messageExpression compilation failed: " + e.message
            return result
        if message_program.type != STRING:
            result.message_error = "messageExpression must evaluate to a string"
            return result
        if estimator is not None:
            result.message_max_cost = estimator(message, env)
        result.message_program = message_program
    path = rule.get("fieldPath")
    if isinstance(path, str) and path:
        resolved = valid_field_path(path, node_schema)
        if resolved.error is None:
            result.field_path = resolved.path
    return result


def _compile_failure(e: CompileError) -> str:
    """cel-go rejects an invalid constant regex when the program is built, not when it is checked."""
    issues = getattr(e, "issues", None) or []
    if len(issues) == 1 and str(issues[0][0]).startswith("error parsing regexp"):
        return "program instantiation failed: " + str(issues[0][0])
    return "compilation failed: " + e.message


def references(expression: str, name: str) -> bool:
    """Whether the expression reads the variable `name` (an identifier, not a field or a macro variable)."""
    if name not in expression:
        return False
    tree = parser().parse(expression)
    return _refers(tree, name, frozenset())


def _refers(t: Any, name: str, bound: frozenset[str]) -> bool:
    if isinstance(t, Token):
        return False
    if t.data == "ident" and name not in bound and _ident_name(t) == name:
        return True
    if t.data == "member_dot_arg":
        scope = _macro_scope(t)
        if scope is not None:
            body, loop_vars = scope
            return _refers(t.children[0], name, bound) or any(_refers(a, name, bound | loop_vars) for a in body)
    return any(_refers(c, name, bound) for c in t.children if isinstance(c, Tree))


def _macro_scope(t: Tree) -> tuple[list[Tree], frozenset[str]] | None:
    """For a macro call with variables (`x.all(v, body)`): the arguments they are bound in, and the variables."""
    method = next((str(c) for c in t.children[1:] if isinstance(c, Token) and str(c) not in ".()"), "")
    if method not in MEMBER_MACROS:  # every member macro binds at least one variable
        return None
    args = _arg_trees(next((c for c in t.children[1:] if isinstance(c, Tree)), None))
    count = _loop_var_count(method, len(args))
    return args[count:], frozenset(n for n in (_ident_name(a) for a in args[:count]) if n)


def _loop_var_count(method: str, arg_count: int) -> int:
    """How many of a macro's first arguments are variables (the two-variable forms take three arguments)."""
    if method in ("map", "filter", "all", "exists", "exists_one", "existsOne", "sortBy") and arg_count == 3:
        return 1 if method == "map" else 2
    return 1 if method in ("optMap", "optFlatMap") or arg_count < 3 else 2


def _arg_trees(t: Any) -> list[Tree]:
    if t is None or not isinstance(t, Tree):
        return []
    if t.data == "exprlist":
        return [c for c in t.children if isinstance(c, Tree)]
    return [t]


def _ident_name(t: Tree) -> str | None:
    while isinstance(t, Tree) and len(t.children) == 1 and isinstance(t.children[0], Tree):
        t = t.children[0]
    if isinstance(t, Tree) and t.data == "ident" and t.children and isinstance(t.children[0], Token):
        return str(t.children[0])
    return None
