"""JMESPath inside `{{ }}` in a Kyverno policy's rules, parsed before any request arrives, each syntax error
located at the character where the parser stopped (not at the start of the document).

The `{{ }}` are found with Kyverno's own pattern (variables.py, from pkg/engine/variables); the text between
them, less a leading `-` (shallow substitution) and surrounding blanks, is what Kyverno hands to JMESPath.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import jmespath
from jmespath import exceptions as jexc

from evaluator.policies.kyverno.variables import REGEX_VARIABLES


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def syntax_errors(policy: Mapping[str, Any]) -> list[dict]:
    """`[{path, message, offset}]`: offset is where in the string value the JMESPath parser stopped."""
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    rules = spec.get("rules")
    if not isinstance(rules, list):
        return []
    out = []
    for path, value in _strings(rules, "spec.rules"):
        if "{{" not in value:
            continue
        for match in REGEX_VARIABLES.finditer(value):
            inner_start = match.start(2) + 2
            inner = match.group(2)[2:-2]
            lead = len(inner) - len(inner.lstrip())
            variable = inner.strip()
            if variable.startswith("-"):
                rest = variable[1:]
                lead += 1 + len(rest) - len(rest.lstrip())
                variable = rest.strip()
            if not variable:
                continue
            try:
                jmespath.compile(variable)
            except jexc.JMESPathError as err:
                position = getattr(err, "lex_position", None)
                position = position if isinstance(position, int) and 0 <= position <= len(variable) else 0
                message = (getattr(err, "msg", None) or str(err)).replace("\n", " ")
                out.append(
                    {
                        "path": path,
                        "offset": inner_start + lead + position,
                        "message": f"invalid JMESPath in {match.group(2)}: SyntaxError: {message}",
                    }
                )
    return out
