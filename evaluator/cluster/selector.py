"""`selector_problem(text)`, `namespace_problem`, `name_problem`: why a label selector string (`team=a,tier!=db,env in (dev,qa),!legacy`) would be
refused, checked before it is sent: the grammar and key/value rules of apimachinery's `labels.Parse`, with its
wording (`found 'x', expected: ...`), and a length bound of ours so a huge selector never reaches the cluster."""

from __future__ import annotations

import re

from evaluator.k8s.names import (
    is_dns1123_label,
    is_qualified_name,
    is_valid_label_value,
    validate_path_segment_name,
)

__all__ = ["MAX_SELECTOR", "name_problem", "namespace_problem", "selector_problem"]

MAX_SELECTOR = 4096  # characters: far above any real selector, far below a URL the API server refuses (414)
_TOKEN = re.compile(r"\s*(==|!=|=|!|\(|\)|,|>|<|[^\s!=(),<>]+)")
_EQUALITY = ("=", "==", "!=")
_SET = ("in", "notin")
_ORDER = (">", "<")


def _tokens(text: str) -> list[str]:
    out, at = [], 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:  # only trailing whitespace is left
            break
        out.append(found.group(1))
        at = found.end()
    return out


def _identifier(token: str | None) -> bool:
    return token is not None and token not in ("==", "!=", "=", "!", "(", ")", ",", ">", "<")


def selector_problem(text: str) -> str | None:
    """None for a selector the API server accepts; else why not, in its words."""
    if len(text) > MAX_SELECTOR:
        return f"must be at most {MAX_SELECTOR} characters (it has {len(text):,})"
    tokens = _tokens(text)
    at = 0

    def take() -> str | None:
        nonlocal at
        at += 1
        return tokens[at - 1] if at <= len(tokens) else None

    while at < len(tokens):
        first = take()
        negated = first == "!"
        key = take() if negated else first
        if not _identifier(key):
            return f"found '{key or ''}', expected: identifier"
        assert key is not None
        problems = is_qualified_name(key)
        if problems:
            return f"unable to parse requirement: key: Invalid value: {key!r}: {problems[0]}"
        following = tokens[at] if at < len(tokens) else None
        if not negated and following in (*_EQUALITY, *_SET, *_ORDER):
            operator = take()
            values: list[str] = []
            if operator in _SET:
                if take() != "(":
                    return f"found '{tokens[at - 1] if at <= len(tokens) else ''}', expected: '('"
                while True:
                    value = take()
                    if value == ")" and not values:
                        break
                    if not _identifier(value):
                        return f"found '{value or ''}', expected: ',', or ')'"
                    assert value is not None
                    values.append(value)
                    after = take()
                    if after == ")":
                        break
                    if after != ",":
                        return f"found '{after or ''}', expected: ',', or ')'"
            else:
                value = tokens[at] if at < len(tokens) else None
                if _identifier(value):
                    assert value is not None
                    values.append(value)
                    at += 1
                elif operator in _ORDER:
                    return f"found '{value or ''}', expected: integer"
                else:
                    values.append("")  # `key=` selects an empty value
            if operator in _ORDER and not re.fullmatch(r"-?[0-9]+", values[0]):
                return f"unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: {values[0]!r}"
            for value in values:
                wrong = is_valid_label_value(value)
                if wrong:
                    return f"unable to parse requirement: values[0]: Invalid value: {value!r}: {wrong[0]}"
        elif following is not None and following != ",":
            return f"found '{following}', expected: '=', '!=', '==', 'in', notin'"
        if at < len(tokens):
            separator = take()
            if separator != ",":
                return f"found '{separator}', expected: ',' or 'end of string'"
            if at == len(tokens):
                return "found '', expected: identifier"
    return None


def namespace_problem(namespace: str) -> str | None:
    """Why `namespace` is no namespace name (a DNS-1123 label): it becomes a segment of the URL read, so
    `x/../..` must never get that far."""
    problems = is_dns1123_label(namespace)
    return f"Invalid value: {namespace[:100]!r}: {problems[0]}" if problems else None


def name_problem(name: str) -> str | None:
    """Why `name` cannot name an object in a URL (apimachinery's ValidatePathSegmentName), or is empty."""
    if not name:
        return "Required value: name is required"
    problems = validate_path_segment_name(name)
    return f"Invalid value: {name[:100]!r}: {problems[0]}" if problems else None
