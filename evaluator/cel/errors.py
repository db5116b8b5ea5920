"""CEL errors as data: a message and, where known, a location, printed in cel-go's text form."""

from __future__ import annotations

import sys


class CELError(Exception):
    """Base of every error the CEL layer reports."""

    def __init__(
        self, message: str, *, line: int | None = None, column: int | None = None, expression: str | None = None
    ):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.expression = expression

    def __str__(self) -> str:
        return self.message


class CompileError(CELError):
    """The expression does not parse or does not type-check; `message` is cel-go's full error text."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        expression: str | None = None,
        issues: list[tuple[str, int, int]] | None = None,
    ):
        super().__init__(message, line=line, column=column, expression=expression)
        self.issues = issues or []


class EvaluationError(CELError):
    """Evaluation failed (no such key, no matching overload, overflow ...)."""

    def __init__(self, message: str, *, cost: int = 0, **kw):
        super().__init__(message, **kw)
        self.cost = cost


class CostLimitError(EvaluationError):
    """The runtime cost limit or budget was exceeded."""


class TimeoutError_(EvaluationError):
    """The wall-clock deadline passed."""


class CELEvalError(Exception):
    """Raised inside evaluation; errors are values in CEL, so `||`, `&&`, `?:` and macros may absorb it."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _Abort(Exception):
    """Ends an evaluation at once: cost limit, deadline. Never absorbed by logical operators."""

    def __init__(self, error: EvaluationError):
        super().__init__(error.message)
        self.error = error


def format_issue(source: str, message: str, line: int, column: int) -> str:
    """cel-go's form: `ERROR: <input>:L:C: msg`, then ` | ` + the source line and a caret line of dots.

    As cel-go, tabs print as spaces and characters outside ASCII take full-width dots and caret.
    """
    lines = source.split("\n")
    head = f"ERROR: <input>:{line}:{column}: {message}"
    if not 0 < line <= len(lines):
        return head
    snippet = lines[line - 1].replace("\t", " ")
    if len(snippet.encode("utf-8", "surrogatepass")) > 16384:  # cel-go leaves out very long lines
        return head
    marks = ["\uff0e" if len(ch.encode()) > 1 else "." for ch in snippet[: column - 1]]
    under = snippet[column - 1 : column]
    marks.append("\uff3e" if under and len(under.encode()) > 1 else "^")
    return f"{head}\n | {snippet}\n | {''.join(marks)}"


def no_such_overload(name: str = "") -> CELEvalError:
    return CELEvalError("no such overload" + (f": {name}" if name else ""))


def long_number_message(exc: BaseException) -> str | None:
    """The plain wording of Python's refusal to read more than 4,300 decimal digits from text (a bound against
    slow conversions), or None for any other error: its own message advises calling sys.set_int_max_str_digits."""
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return f"a number of more than {sys.get_int_max_str_digits():,} digits: too long for the simulator to read"
    return None
