"""Small helpers the library modules share: Go's string quoting and the traversal cost."""

from __future__ import annotations

import math
import unicodedata

from evaluator.cel.runtime import actual_size

__all__ = ["go_quote", "string_cost", "actual_size"]


_GO_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def go_quote(s: str) -> str:
    """Go's `strconv.Quote` (also used by the other library modules for Go's `%q`)."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not valid UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == " " or (ch.isprintable() and unicodedata.category(ch) != "Zs"):
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def string_cost(args: tuple, _result=None) -> int:
    """Kubernetes' cost of parsing the first argument: ceil(size * StringTraversalCostFactor)."""
    return math.ceil(actual_size(args[0]) * 0.1)
