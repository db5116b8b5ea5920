"""Input problems as `FILE:LINE:COLUMN: severity: message`, the form editors and CI annotators read.

Line and column are the engine's (counted from the start of the file); a problem without a line names
its document instead (numbered from 1 within its file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def problem_text(problem: Mapping[str, Any]) -> str:
    """The problem's full wording: the field error text (`path: Invalid value: ...`) when there is one."""
    return str(problem.get("text") or problem.get("message") or "")


def located(problem: Mapping[str, Any], default_source: str = "<input>") -> str:
    where = str(problem.get("source") or default_source)
    if problem.get("line") is not None:
        where += f":{problem['line']}"
        if problem.get("column") is not None:
            where += f":{problem['column']}"
    elif problem.get("document") is not None:  # for a text of a list, the engine's `document` is the text
        where += f": document {int(problem.get('yamlDocument', problem['document'])) + 1}"
    return f"{where}: {problem.get('severity', 'error')}: {problem_text(problem)}"


def is_error(problem: Mapping[str, Any]) -> bool:
    return problem.get("severity", "error") == "error"
