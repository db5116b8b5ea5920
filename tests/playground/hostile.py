"""Hostile JSON fragments (as raw JSON text, since several are not valid Python-produced JSON) for edge tests."""

from __future__ import annotations

NUL = '"a\\u0000b"'
SURROGATE = '"x\\ud800y"'
HUGE_INT = "1" + "0" * 5000  # beyond Python's 4,300-digit limit for int()
WIDE_INT = str(2**70)  # beyond 64 bits
NAN = "NaN"
DEEP = "[" * 100_000 + "]" * 100_000
LIST = "[1, 2]"
OBJECT = '{"a": 1}'
TRUE = "true"

FOR_STRING = {
    "nul": NUL,
    "surrogate": SURROGATE,
    "huge-int": HUGE_INT,
    "wide-int": WIDE_INT,
    "nan": NAN,
    "deep": DEEP,
    "list": LIST,
    "object": OBJECT,
    "bool": TRUE,
}
FOR_INT = {
    "nul": NUL,
    "surrogate": SURROGATE,
    "huge-int": HUGE_INT,
    "wide-int": WIDE_INT,
    "nan": NAN,
    "deep": DEEP,
    "list": LIST,
    "object": OBJECT,
    "bool": TRUE,
    "string": '"7"',
}
FOR_OBJECT = {
    "nul-value": '{"a": "\\u0000"}',
    "surrogate-key": '{"\\ud800": 1}',
    "huge-int": HUGE_INT,
    "wide-int-value": '{"a": ' + WIDE_INT + "}",
    "nan": NAN,
    "deep": DEEP,
    "string": '"x"',
    "list": LIST,
}


def fill(template: str, fragment: str) -> str:
    """The template (JSON text with one @ placeholder) with the fragment in place."""
    return template.replace("@", fragment)
