"""Kubernetes' escaping of property names that are not CEL identifiers (apiserver `cel/escaping.go`).

A schema property `x-y` is `x__dash__y` in CEL; `namespace` may be written `__namespace__`. We evaluate
over plain objects, so a selection tries the name as written and then its unescaped form.
"""

from __future__ import annotations

import re

RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_TOKENS = re.compile(r"__(underscores|dot|dash|slash)__")
_REPLACEMENTS = {"underscores": "__", "dot": ".", "dash": "-", "slash": "/"}
_VALID_INPUT = re.compile(r"^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$")


def escape(name: str) -> str | None:
    """The CEL identifier for a property name, or None when the name cannot be escaped."""
    if name in RESERVED:
        return f"__{name}__"
    if not _VALID_INPUT.match(name):
        return None
    out = name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__")
    return out.replace("/", "__slash__")


def unescape_field(ident: str) -> str | None:
    """The property name an escaped identifier stands for, or None when it is not escaped."""
    if "__" not in ident:
        return None
    if ident.startswith("__") and ident.endswith("__") and ident[2:-2] in RESERVED:
        return ident[2:-2]
    unescaped = _TOKENS.sub(lambda m: _REPLACEMENTS[m.group(1)], ident)
    return unescaped if unescaped != ident else None
