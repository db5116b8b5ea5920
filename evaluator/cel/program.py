"""Compile once, evaluate many: programs cached by (expression, environment), evaluated with cost limits."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import lark

from evaluator.cel.compiler import CompileIssue, Compiler, Node
from evaluator.cel.env import Env, admission_env
from evaluator.cel.errors import (
    CELEvalError,
    CompileError,
    CostLimitError,
    EvaluationError,
    _Abort,
    format_issue,
)
from evaluator.cel.grammar import parser
from evaluator.cel.memo import RecentMemo
from evaluator.cel.runtime import Ctx
from evaluator.cel.types import Type

MAX_EXPRESSION_LENGTH = 100_000  # cel-go's default ExpressionSizeCodePointLimit
MAX_NESTING = 250  # cel-go's default parser recursion limit
# A safety net only: the cost limit (1,000,000 units a call) must always stop an expression first, so the
# answer never depends on how loaded the machine is. 1,000,000 units take well under a second here; five
# seconds leaves room for a machine ten times slower.
DEFAULT_TIMEOUT = 5.0
_monotonic = time.monotonic


@dataclass(frozen=True)
class Evaluation:
    value: Any
    cost: int


class CostBudget:
    """Cost shared by several evaluations, as the API server shares one budget across a binding's expressions."""

    def __init__(self, limit: int):
        self.limit = limit
        self.remaining = limit


class Program:
    def __init__(self, expression: str, env: Env, node: Node, nslots: int):
        self.expression = expression
        self.env = env
        self.type: Type = node.type
        self._fn = node.fn
        self._nslots = nslots
        self._limit = env.cost_limit  # evaluate_plain's (an Env is frozen)

    def evaluate(
        self,
        activation: Mapping[str, Any],
        budget: CostBudget | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> Evaluation:
        limit = self.env.cost_limit
        if budget is not None:
            limit = min(limit, max(budget.remaining, 0))
        deadline = time.monotonic() + timeout if timeout else None
        ctx = Ctx(activation, self._nslots, limit, deadline)
        try:
            value = self._fn(ctx)
            if ctx.cost > limit:
                raise CostLimitError("operation cancelled: actual cost limit exceeded", cost=ctx.cost)
        except CELEvalError as e:
            raise EvaluationError(e.message, cost=ctx.cost, expression=self.expression) from None
        except _Abort as a:
            a.error.expression = self.expression
            raise a.error from None
        except RecursionError:
            raise EvaluationError("max recursion depth exceeded", cost=ctx.cost, expression=self.expression) from None
        finally:
            if budget is not None:
                budget.remaining -= ctx.cost
        return Evaluation(value, ctx.cost)

    def evaluate_plain(self, activation: Mapping[str, Any]) -> tuple[Any, int] | None:
        """(value, cost) as `evaluate` with no shared budget and the default timeout, or None where `evaluate`
        would raise: the hot path's entry, which leaves the wording of errors to `evaluate`."""
        ctx = Ctx(activation, self._nslots, self._limit, _monotonic() + DEFAULT_TIMEOUT)
        try:
            value = self._fn(ctx)
        except (CELEvalError, _Abort, RecursionError):
            return None
        if ctx.cost > self._limit:
            return None
        return value, ctx.cost


_PROGRAMS: RecentMemo[Program] = RecentMemo(4096)


def compile_program(expression: str, declared: frozenset[str] | tuple | None = None, env: Env | None = None) -> Program:
    """Compile (or fetch from the cache) a program; raises CompileError with cel-go's error text."""
    if env is None:
        env = _default_env()
    if declared:
        env = _with_variables(env, tuple(declared))
    key = (expression, env.key())
    program = _PROGRAMS.find(key)
    if program is None:
        program = _PROGRAMS.keep(key, _compile(expression, env))
    return program


_ENV_CACHE: dict[tuple, Env] = {}


def _default_env() -> Env:
    from evaluator.cel.versions import active_version

    key = ("default", active_version())
    env = _ENV_CACHE.get(key)
    if env is None:
        env = _ENV_CACHE.setdefault(key, admission_env())
    return env


def _with_variables(env: Env, names: tuple) -> Env:
    key = (env.key(), names)
    cached = _ENV_CACHE.get(key)
    if cached is None:
        if len(_ENV_CACHE) > 1024:
            _ENV_CACHE.clear()
        cached = _ENV_CACHE.setdefault(key, env.with_variables(names))
    return cached


def _compile(expression: str, env: Env) -> Program:
    if not isinstance(expression, str):
        raise CompileError("expression must be a string")
    try:
        expression.encode("utf-8")
    except UnicodeEncodeError as e:
        raise CompileError(
            f"ERROR: <input>:-1:0: invalid UTF-8 in expression at offset {e.start}", expression=expression
        ) from None
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CompileError(
            f"expression code point size exceeds limit: size: {len(expression)}, limit {MAX_EXPRESSION_LENGTH}",
            expression=expression,
        )
    check_nesting(expression)
    try:
        tree = parser().parse(expression)
    except lark.exceptions.UnexpectedInput as e:
        raise syntax_error(expression, e) from None
    except RecursionError:
        raise _recursion_limit(expression) from None
    check_visit_depth(tree, expression)
    compiler = Compiler(env, expression)
    try:
        if not env.optional_syntax:
            reject_optional_syntax(compiler, tree)
        node = compiler.compile(tree)
    except CompileIssue as issue:
        raise CompileError(
            format_issue(expression, issue.message, issue.line, issue.column),
            line=issue.line,
            column=issue.column,
            expression=expression,
            issues=[(issue.message, issue.line, issue.column)],
        ) from None
    except RecursionError:
        raise _recursion_limit(expression) from None
    return Program(expression, env, node, compiler.nslots)


_OPTIONAL_FORMS = {
    "member_dot_opt": (1, "'.?'"),
    "member_index_opt": (1, "'[?'"),
    "listelem_opt": (0, "'?'"),
    "mapinit_opt": (0, "'?'"),
    "fieldinit_opt": (0, "'?'"),
}


def reject_optional_syntax(compiler: Compiler, tree: lark.Tree) -> None:
    """Before Kubernetes enabled optional types (1.28) the parser refused `.?`, `[?` and `?` entries, with
    cel-go's text; the first one in the source is reported."""
    found = []
    for sub in tree.iter_subtrees():
        form = _OPTIONAL_FORMS.get(sub.data)
        if form is not None:
            tokens = [t for t in sub.scan_values(lambda v: isinstance(v, lark.Token))]
            at = (
                sub.children[form[0]]
                if form[0] and isinstance(sub.children[form[0]], lark.Token)
                else next((t for t in tokens if t.type == "QMARK"), tokens[0] if tokens else None)
            )
            if at is not None:
                found.append((at.start_pos or 0, at, form[1]))
    if found:
        _, at, text = min(found, key=lambda f: f[0])
        raise compiler.fail(f"unsupported syntax {text}", at)


def _recursion_limit(expression: str) -> CompileError:
    """cel-go's parser limit, worded and located as cel-go prints it."""
    return CompileError(
        f"ERROR: <input>:-1:0: expression recursion limit exceeded: {MAX_NESTING}", expression=expression
    )


# The parse-tree forms whose visit cel-go's parser counts against its recursion limit (parser.go Visit:
# a ternary, a relation, an arithmetic operation, a selection, a member call, an index). Parentheses,
# `||`/`&&` chains, literals and global calls do not count.
_COUNTED_FORMS = frozenset(
    {
        "relation",
        "addition",
        "multiplication",
        "member_dot",
        "member_dot_opt",
        "member_dot_arg",
        "member_index",
        "member_index_opt",
    }
)


def check_visit_depth(tree: lark.Tree, expression: str) -> None:
    """cel-go's second recursion limit, checked while it turns the parse tree into an AST: more than
    250 nested counted forms (e.g. 250 chained `==`) is "max recursion depth exceeded"."""
    stack: list[tuple[lark.Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data in _COUNTED_FORMS or (node.data == "expr" and len(node.children) > 1):
            depth += 1
            if depth > MAX_NESTING:
                raise CompileError("ERROR: <input>:-1:0: max recursion depth exceeded", expression=expression)
        stack.extend((child, depth) for child in node.children if isinstance(child, lark.Tree))


def check_nesting(expression: str) -> None:
    depth = 0
    line, col = 1, 0
    for ch in expression:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch in "([{":
            depth += 1
            if depth >= MAX_NESTING:  # cel-go counts the top-level expression as one level
                raise _recursion_limit(expression)
        elif ch in ")]}":
            depth -= 1


def syntax_error(expression: str, e: lark.exceptions.UnexpectedInput) -> CompileError:
    line, col = getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1
    if isinstance(e, lark.exceptions.UnexpectedToken):
        tok = e.token
        text = "<EOF>" if tok.type == "$END" else str(tok)
        if tok.type == "$END":
            lines = expression.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
        message = f"Syntax error: mismatched input '{text}'"
        expected = sorted(_displays(e.expected or ()), key=_ANTLR_ORDER.index)
        if expected:
            message += " expecting {" + ", ".join(expected) + "}"
    elif isinstance(e, lark.exceptions.UnexpectedCharacters):
        message = f"Syntax error: token recognition error at: '{expression[e.pos_in_stream]}'"
    else:
        message = "Syntax error"
    return CompileError(format_issue(expression, message, line, col), line=line, column=col, expression=expression)


# Our terminals under the names cel-go's ANTLR grammar prints, in its token order.
_TOKEN_TEXT = {
    "EQ": "'=='",
    "NE": "'!='",
    "IN": "'in'",
    "LT": "'<'",
    "LE": "'<='",
    "GE": "'>='",
    "GT": "'>'",
    "ANDAND": "'&&'",
    "OROR": "'||'",
    "LBRACK": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAREN": "'('",
    "RPAR": "')'",
    "DOT": "'.'",
    "COMMA": "','",
    "MINUS": "'-'",
    "BANG": "'!'",
    "QMARK": "'?'",
    "COLON": "':'",
    "PLUS": "'+'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "PERCENT": "'%'",
    "BOOL_LIT": ("'true'", "'false'"),
    "NULL_LIT": "'null'",
    "FLOAT_LIT": "NUM_FLOAT",
    "INT_LIT": "NUM_INT",
    "UINT_LIT": "NUM_UINT",
    "STRING_LIT": "STRING",
    "MLSTRING_LIT": "STRING",
    "BYTES_LIT": "BYTES",
    "IDENT": "IDENTIFIER",
    "QUOTED_IDENT": "ESC_IDENTIFIER",
    "$END": "<EOF>",
}
_ANTLR_ORDER = [
    "'=='",
    "'!='",
    "'in'",
    "'<'",
    "'<='",
    "'>='",
    "'>'",
    "'&&'",
    "'||'",
    "'['",
    "']'",
    "'{'",
    "'}'",
    "'('",
    "')'",
    "'.'",
    "','",
    "'-'",
    "'!'",
    "'?'",
    "':'",
    "'+'",
    "'*'",
    "'/'",
    "'%'",
    "'true'",
    "'false'",
    "'null'",
    "NUM_FLOAT",
    "NUM_INT",
    "NUM_UINT",
    "STRING",
    "BYTES",
    "IDENTIFIER",
    "ESC_IDENTIFIER",
    "<EOF>",
]


def _displays(names) -> set[str]:
    out: set[str] = set()
    for name in names:
        shown = _TOKEN_TEXT.get(name)
        if isinstance(shown, tuple):
            out.update(shown)
        elif shown:
            out.add(shown)
    return out
