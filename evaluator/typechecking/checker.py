"""Check one expression in one typed environment, collecting every issue as cel-go's checker does.

The engine's compiler stops at its first issue; cel-go's checker records an issue, gives the node the
error type (which, like `dyn`, is assignable to anything) and goes on. `CollectingCompiler` does the
same by catching an issue at the node that raised it, so the parent sees a `dyn` node and later nodes
are still checked. Results are cached per (expression, environment key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lark import Tree

from evaluator.cel.compiler import CompileIssue, Compiler, Node
from evaluator.cel import macros
from evaluator.cel.env import Env
from evaluator.cel.errors import CELEvalError, CompileError, format_issue
from evaluator.cel.grammar import parser, unwrap
from evaluator.cel.memo import RecentMemo
from evaluator.cel.types import DYN, Type

MAX_REPORTED = 100  # cel-go's maxErrorsToReport


@dataclass(frozen=True)
class Issue:
    message: str
    line: int
    column: int  # 1-based, in code points


@dataclass(frozen=True)
class CheckResult:
    """The issues of one expression (sorted as cel-go prints them) and its static output type."""

    expression: str
    issues: tuple[Issue, ...]
    output_type: Type | None  # None when the expression does not parse

    @property
    def ok(self) -> bool:
        return not self.issues

    def text(self) -> str:
        """cel-go's `issues.String()`: each issue with its source line and caret, one per line."""
        shown = [format_issue(self.expression, i.message, i.line, i.column) for i in self.issues[:MAX_REPORTED]]
        if len(self.issues) > MAX_REPORTED:
            shown.append(f"{len(self.issues) - MAX_REPORTED} more errors were truncated")
        return "\n".join(shown)


def _error_node(message: str) -> Node:
    def failed(ctx: Any) -> Any:
        raise CELEvalError(message)

    return Node(failed, DYN)


_CEL_GO_NAMES = re.compile(r"google\.protobuf\.Timestamp|google\.protobuf\.Duration|\bnull_type\b")
_SHORT = {"google.protobuf.Timestamp": "timestamp", "google.protobuf.Duration": "duration", "null_type": "null"}


def checker_text(message: str) -> str:
    """Type names as cel-go's checker prints them in its messages (FormatCELType: `timestamp`, `null`)."""
    if "'" not in message:
        return message
    return _CEL_GO_NAMES.sub(lambda m: _SHORT[m.group(0)], message)


class CollectingCompiler(Compiler):
    """The engine's compiler, recording issues instead of stopping at the first."""

    reports_ranges_itself = True  # c_member_dot_arg records a bad comprehension range and checks the body too

    def __init__(self, env: Env, source: str):
        super().__init__(env, source)
        self.issues: list[Issue] = []
        self._precompiled: dict[int, Node] = {}

    def compile(self, tree: Tree) -> Node:
        ready = self._precompiled.pop(id(tree), None)
        if ready is not None:
            return ready
        try:
            return super().compile(tree)
        except CompileIssue as issue:
            self.issues.append(Issue(checker_text(issue.message), issue.line, issue.column))
            return _error_node(issue.message)

    def c_member_dot_arg(self, t: Tree) -> Node:
        """A comprehension's range must be a list, a map or dyn (cel-go: notAComprehensionRange).

        The target is compiled here once and handed to the macro, so its issues are not reported twice.
        """
        target_tree, name = t.children[0], str(t.children[2])
        nargs = len(self.args(t.children[4] if len(t.children) > 4 else None))
        if name in macros.RANGE_MACROS and self.env.check and macros.member_macro(name, nargs) is not None:
            target = self.compile(target_tree)
            range_type = target.type
            if not (range_type.is_dyn or range_type.name in ("list", "map")):
                line, column = _position(target_tree)
                self.issues.append(
                    Issue(
                        checker_text(
                            f"expression of type '{range_type}' cannot be range of a comprehension "
                            "(must be list, map, or dynamic)"
                        ),
                        line,
                        column,
                    )
                )
            self._precompiled[id(target_tree)] = target
            try:
                return super().c_member_dot_arg(t)
            finally:
                self._precompiled.pop(id(target_tree), None)
        return super().c_member_dot_arg(t)


def _position(tree: Tree) -> tuple[int, int]:
    """Where cel-go locates an expression: a selection at its `.`, a call at `(`, an index at `[`."""
    tree = unwrap(tree)
    anchor = None
    if tree.data in ("member_dot", "member_dot_opt", "member_index", "member_index_opt"):
        anchor = tree.children[1]
    elif tree.data == "member_dot_arg" and len(tree.children) > 3:
        anchor = tree.children[3]
    if anchor is None or isinstance(anchor, Tree):
        anchor = next(tree.scan_values(lambda v: not isinstance(v, Tree)), None)
    line = getattr(anchor, "line", None) or 1
    column = getattr(anchor, "column", None) or 1
    return line, column


def _parse(expression: str) -> tuple[Tree | None, Issue | None]:
    """Parse as the engine does; a syntax error becomes one issue with cel-go's text and position."""
    import lark

    from evaluator.cel import program as _program

    try:
        _program.check_nesting(expression)
        return parser().parse(expression), None
    except lark.exceptions.UnexpectedInput as e:
        error = _program.syntax_error(expression, e)
    except CompileError as e:
        error = e
    except RecursionError:
        return None, Issue("expression recursion limit exceeded", -1, 0)
    return None, _issue_from_error(error)


def _issue_from_error(error: CompileError) -> Issue:
    message = error.message
    if message.startswith("ERROR: <input>:"):
        # "ERROR: <input>:L:C: msg\n | ..." -> msg
        head = message.split("\n", 1)[0]
        parts = head.split(": ", 2)
        message = parts[2] if len(parts) == 3 else head
    return Issue(message, error.line if error.line is not None else -1, error.column if error.column is not None else 0)


def check(expression: str, env: Env) -> CheckResult:
    """Parse and check `expression` in `env`; never raises."""
    if not isinstance(expression, str):
        return CheckResult(str(expression), (Issue("expression must be a string", -1, 0),), None)
    tree, problem = _parse(expression)
    if tree is None:
        return CheckResult(expression, (problem,) if problem else (), None)
    compiler = CollectingCompiler(env, expression)
    try:
        node = compiler.compile(tree)
    except RecursionError:
        return CheckResult(expression, (Issue("expression recursion limit exceeded", -1, 0),), None)
    except Exception as exc:  # a checker bug must not take the caller down
        return CheckResult(expression, (Issue(f"internal error: {type(exc).__name__}: {exc}", -1, 0),), None)
    issues = sorted(compiler.issues, key=lambda i: (i.line, i.column))  # stable, as cel-go sorts
    return CheckResult(expression, tuple(issues), node.type)


_CHECKED: RecentMemo[CheckResult] = RecentMemo(8192)


def check_cached(expression: str, env: Env, env_key: tuple) -> CheckResult:
    """`check`, memoised per (expression, env_key); env_key must identify every declared type."""
    key = (expression, env_key)
    hit = _CHECKED.find(key)
    return hit if hit is not None else _CHECKED.keep(key, check(expression, env))


def clear_cache() -> None:
    _CHECKED.clear()
