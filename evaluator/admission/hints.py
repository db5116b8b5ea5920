"""What to do about an expression error whose cel-go text is cryptic.

The hint is shown after the exact Kubernetes text, never instead of it; it is a suggestion, so it is only
given where the remedy is clear from the message and the expression.
"""

from __future__ import annotations

import difflib
import re

_NO_SUCH_KEY = re.compile(r"no such key: (.+?)\s*$")
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")
_OVERLOAD = re.compile(r"found no matching overload for '_\+_' applied to '\((string, (?:int|uint|double|bool))\)")
_PATH = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\s*(?:'[^']*'|\"[^\"]*\"|\d+)\s*\])*"
_ROOTS = {
    "object": "the object",
    "oldObject": "the old object",
    "params": "the params object",
    "namespaceObject": "the namespace object",
    "request": "the request",
}
_KNOWN = ("object", "oldObject", "request", "params", "namespaceObject", "authorizer", "variables")


def hint_for(message: str | None, expression: str | None) -> str | None:
    """A short remedy for the error ``message`` raised by ``expression``, or None."""
    if not isinstance(message, str) or not isinstance(expression, str):
        return None
    found = _NO_SUCH_KEY.search(message)
    if found:
        return _missing_key(found.group(1), expression)
    found = _UNDECLARED.search(message)
    if found:
        close = difflib.get_close_matches(found.group(1), _KNOWN, n=1)
        return f"did you mean {close[0]}?" if close else None
    if _OVERLOAD.search(message):
        return "CEL does not convert implicitly: wrap the other operand in string(...)"
    return None


def _missing_key(key: str, expression: str) -> str | None:
    dotted = re.search(rf"({_PATH})\.{re.escape(key)}\b", expression) if re.fullmatch(r"[A-Za-z_]\w*", key) else None
    if dotted:
        base = dotted.group(1)
        full = f"{base}.{key}"
        root, _, rest = full.partition(".")
        owner = _ROOTS.get(root)
        what = f"{owner} has no {rest}" if owner else f"{base} has no field {key}"
        return f"{what}; guard it with has({full})"
    indexed = re.search(rf"({_PATH})\[\s*(['\"]){re.escape(key)}\2\s*\]", expression)
    if indexed:
        base = indexed.group(1)
        return f"{base} has no key '{key}'; guard it with '{key}' in {base}"
    return None
