"""Field and label selector parsing for `fieldSelector()` / `labelSelector()` authorization checks.

Kubernetes never fails the CEL call on a bad selector: the parse error travels to the authorizer with the
request (AttributesRecord.FieldSelectorParsingErr / LabelSelectorParsingErr). These parsers follow
apimachinery's fields.ParseSelector and labels.ParseToRequirements, messages included.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.k8s.fielderrors import FieldError, invalid, not_supported
from evaluator.k8s.names import is_qualified_name, is_valid_label_value

__all__ = ["Requirement", "parse_field_selector", "parse_label_selector"]


@dataclass(frozen=True)
class Requirement:
    """One selector term: key, operator ("=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"), values."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


class SelectorError(Exception):
    pass


# --- fields.ParseSelector ---
def _split_terms(selector: str) -> list[str]:
    terms, start, in_slash = [], 0, False
    for i, c in enumerate(selector):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


def _unescape_field_value(value: str) -> str:
    out, in_slash = [], False
    for c in value:
        if in_slash:
            if c not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(selector: str) -> tuple[list[Requirement] | None, str | None]:
    """(requirements, None) or (None, error text) as fields.ParseSelector(...).Requirements() gives them."""
    if not selector:
        return [], None
    requirements = []
    for part in sorted(_split_terms(selector)):
        if part == "":
            continue
        split = _split_term(part)
        if split is None:
            return None, f"invalid selector: '{selector}'; can't understand '{part}'"
        lhs, op, rhs = split
        try:
            value = _unescape_field_value(rhs)
        except SelectorError as e:
            return None, str(e)
        requirements.append(Requirement(lhs, "!=" if op == "!=" else "=", (value,)))
    return requirements, None


# --- labels.ParseToRequirements ---
_SPECIAL = set("=!(),><")
_WHITESPACE = set(" \t\r\n")
_TOKENS = {
    ")": "closed",
    ",": "comma",
    "!": "not",
    "==": "double_equals",
    "=": "equals",
    ">": "gt",
    "in": "in",
    "<": "lt",
    "!=": "not_equals",
    "notin": "notin",
    "(": "open",
}
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"


def _lex(selector: str) -> list[tuple[str, str]]:
    data = selector.encode("utf-8", "surrogatepass")
    items, pos, n = [], 0, len(data)
    while True:
        while pos < n and chr(data[pos]) in _WHITESPACE:
            pos += 1
        if pos >= n:
            items.append(("end", ""))
            return items
        if chr(data[pos]) in _SPECIAL:
            buf, last = "", None
            while pos < n and chr(data[pos]) in _SPECIAL:
                buf += chr(data[pos])
                if buf in _TOKENS:
                    last = (_TOKENS[buf], buf)
                    pos += 1
                elif last is not None:
                    break
                else:
                    pos += 1
            items.append(last if last is not None else ("error", f"error expected: keyword found '{buf}'"))
            continue
        start = pos
        while pos < n and chr(data[pos]) not in _SPECIAL and chr(data[pos]) not in _WHITESPACE:
            pos += 1
        text = data[start:pos].decode("utf-8", "surrogatepass")
        items.append((_TOKENS.get(text, "ident"), text))


def _key_error(key: str, path: str) -> FieldError | None:
    errs = is_qualified_name(key)
    return invalid(path, key, "; ".join(errs)) if errs else None


def _go_error_text(err: FieldError) -> str:
    """field.Error.Error(): "<path>: <body>", the path printed even when empty."""
    return f"{err.path}: {err.body}"


class _Parser:
    def __init__(self, selector: str):
        self.items = _lex(selector)
        self.pos = 0

    def peek(self, values: bool = True) -> tuple[str, str]:
        tok, lit = self.items[self.pos]
        return ("ident" if values and tok in ("in", "notin") else tok), lit

    def take(self, values: bool = True) -> tuple[str, str]:
        tok, lit = self.peek(values)
        self.pos += 1
        return tok, lit

    def parse(self) -> list[Requirement]:
        requirements = []
        while True:
            tok, lit = self.peek()
            if tok in ("ident", "not"):
                try:
                    requirements.append(self.requirement())
                except SelectorError as e:
                    raise SelectorError(f"unable to parse requirement: {e}") from None
                t, lit2 = self.take()
                if t == "end":
                    return requirements
                if t == "comma":
                    t2, l2 = self.peek()
                    if t2 not in ("ident", "not"):
                        raise SelectorError(f"found '{l2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{lit2}', expected: ',' or 'end of string'")
            elif tok == "end":
                return requirements
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        operator = ""
        tok, lit = self.take()
        if tok == "not":
            operator = "!"
            tok, lit = self.take()
        if tok != "ident":
            raise SelectorError(f"found '{lit}', expected: identifier")
        key_error = _key_error(lit, "")
        if key_error is not None:
            raise SelectorError(_go_error_text(key_error))
        key = lit
        if operator == "!" or self.peek()[0] in ("end", "comma"):
            return _new_requirement(key, operator or "exists", [])
        tok, lit = self.take(values=False)
        ops = {
            "in": "in",
            "equals": "=",
            "double_equals": "==",
            "gt": "gt",
            "lt": "lt",
            "notin": "notin",
            "not_equals": "!=",
        }
        if tok not in ops:
            raise SelectorError(f"found '{lit}', expected: {_BINARY_OPERATORS}")
        op = ops[tok]
        values = self.values() if op in ("in", "notin") else self.exact_value()
        return _new_requirement(key, op, sorted(values))

    def values(self) -> set[str]:
        tok, lit = self.take()
        if tok != "open":
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok in ("ident", "comma"):
            found = self.identifiers()
            if self.take()[0] != "closed":
                raise SelectorError(f"found '{lit}', expected: ')'")
            return found
        if tok == "closed":
            self.take()
            return {""}
        raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        found: set[str] = set()
        while True:
            tok, lit = self.take()
            if tok == "ident":
                found.add(lit)
                t2, l2 = self.peek()
                if t2 == "comma":
                    continue
                if t2 == "closed":
                    return found
                raise SelectorError(f"found '{l2}', expected: ',' or ')'")
            if tok == "comma":
                if not found:
                    found.add("")
                t2 = self.peek()[0]
                if t2 == "closed":
                    found.add("")
                    return found
                if t2 == "comma":
                    found.add("")
                continue
            raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        tok, _ = self.peek()
        if tok in ("end", "comma"):
            return {""}
        tok, lit = self.take()
        if tok == "ident":
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


def _new_requirement(key: str, op: str, values: list[str]) -> Requirement:
    """labels.NewRequirement's checks, aggregated as utilerrors prints them."""
    errors: list[FieldError] = []
    key_error = _key_error(key, "key")
    if key_error is not None:
        errors.append(key_error)
    errors += _operator_errors(op, values)
    for i, v in enumerate(values):
        errs = is_valid_label_value(v)
        if errs:
            errors.append(invalid(f"values[{i}][{key}]", v, "; ".join(errs)))
    if errors:
        texts = [_go_error_text(e) for e in errors]
        raise SelectorError(texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]")
    return Requirement(key, op, tuple(values))


def _operator_errors(op: str, values: list[str]) -> list[FieldError]:
    """What NewRequirement says of the operator and the number of values."""
    if op in ("in", "notin") and not values:
        return [invalid("values", values, "for 'in', 'notin' operators, values set can't be empty")]
    if op in ("=", "==", "!=") and len(values) != 1:
        return [invalid("values", values, "exact-match compatibility requires one single value")]
    if op in ("exists", "!") and values:
        return [invalid("values", values, "values set must be empty for exists and does not exist")]
    if op in ("gt", "lt"):
        return _integer_value_errors(values)
    if op not in ("in", "notin", "=", "==", "!=", "exists", "!"):
        return [not_supported("operator", op, [])]
    return []


def _integer_value_errors(values: list[str]) -> list[FieldError]:
    """`gt` and `lt` take exactly one value, an int64 as strconv.ParseInt reads it."""
    errors = []
    if len(values) != 1:
        errors.append(invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required"))
    for i, v in enumerate(values):
        try:
            int(v, 10)
            if not -(2**63) <= int(v, 10) < 2**63 or v.strip() != v or "_" in v:
                raise ValueError
        except ValueError:
            errors.append(invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    return errors


def parse_label_selector(selector: str) -> tuple[list[Requirement] | None, str | None]:
    """(requirements sorted by key, None) or (None, error text) as labels.ParseToRequirements gives them."""
    try:
        requirements = _Parser(selector).parse()
    except SelectorError as e:
        return None, str(e)
    return sorted(requirements, key=lambda r: r.key), None
