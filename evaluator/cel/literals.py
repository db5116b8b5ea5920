"""Decoding of CEL literal tokens (numbers, strings, bytes) with the spec's escapes and ranges."""

from __future__ import annotations

from evaluator.cel.values import INT64_MAX, INT64_MIN, UINT64_MAX, UInt

_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}


class LiteralError(ValueError):
    pass


def _digits(body: str, problem: str) -> int:
    """The value of decimal or 0x digits; out of range, as cel-go words it, where Python refuses to read that
    many decimal digits (over 4,300: far beyond 64 bits anyway)."""
    try:
        return int(body[2:], 16) if body[:2].lower() == "0x" else int(body, 10)
    except ValueError:
        raise LiteralError(problem) from None


def parse_int(text: str) -> int:
    neg = text.startswith("-")
    body = text[1:] if neg else text
    value = _digits(body, "invalid int literal")
    value = -value if neg else value
    if value < INT64_MIN or value > INT64_MAX:
        raise LiteralError("invalid int literal")
    return value


def parse_uint(text: str) -> UInt:
    body = text[:-1]
    if body.startswith("-"):
        raise LiteralError("invalid uint literal")
    value = _digits(body, "invalid uint literal")
    if value > UINT64_MAX:
        raise LiteralError("invalid uint literal")
    return UInt(value)


_HEX_DIGITS = "0123456789abcdefABCDEF"
_OCTAL_DIGITS = "01234567"


def _code(body: str, start: int, width: int, digits: str, base: int) -> int:
    """The number written by an escape's `width` digits at `start`."""
    text = body[start : start + width]
    if len(text) != width or not all(c in digits for c in text):
        raise LiteralError("invalid escape sequence")
    return int(text, base)


def _escape(body: str, i: int, is_bytes: bool) -> tuple[bytes, int]:
    """The bytes of the escape sequence at body[i] (a backslash) and the index after it.

    A \\x or octal escape is one byte in a bytes literal and a code point in a string; \\u and \\U name code
    points, so bytes literals refuse them."""
    e = body[i + 1]
    simple = _SIMPLE.get(e)
    if simple is not None:
        return simple.encode(), i + 2
    if e in "xX":
        v = _code(body, i + 2, 2, _HEX_DIGITS, 16)
        return (bytes([v]) if is_bytes else chr(v).encode("utf-8")), i + 4
    if e in "0123":
        v = _code(body, i + 1, 3, _OCTAL_DIGITS, 8)
        return (bytes([v]) if is_bytes else chr(v).encode("utf-8")), i + 4
    if e in "uU" and not is_bytes:
        width = 4 if e == "u" else 8
        v = _code(body, i + 2, width, _HEX_DIGITS, 16)
        if 0xD800 <= v <= 0xDFFF or v > 0x10FFFF:
            raise LiteralError("invalid unicode code point")
        return chr(v).encode("utf-8"), i + 2 + width
    raise LiteralError("invalid escape sequence")


def parse_string(text: str) -> str | bytes:
    """A STRING_LIT, MLSTRING_LIT or BYTES_LIT token as a str (or bytes)."""
    is_bytes = text[0] in "bB"
    if is_bytes:
        text = text[1:]
    raw = text[0] in "rR"
    if raw:
        text = text[1:]
    quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
    body = text[len(quote) : -len(quote)]
    if raw:
        return body.encode("utf-8") if is_bytes else body
    out: list[bytes] = []
    i, n = 0, len(body)
    while i < n:
        if body[i] != "\\":
            j = body.find("\\", i)
            j = n if j < 0 else j
            out.append(body[i:j].encode("utf-8"))
            i = j
            continue
        if i + 1 >= n:
            raise LiteralError("invalid escape sequence")
        chunk, i = _escape(body, i, is_bytes)
        out.append(chunk)
    data = b"".join(out)
    if is_bytes:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LiteralError("invalid UTF-8 in string literal") from None
