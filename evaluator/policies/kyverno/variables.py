"""`{{ }}` variable substitution and `$( )` references, in Kyverno's order (pkg/engine/variables)."""

from __future__ import annotations

import posixpath
import re

from . import anchors as A
from .context import Context, ContextError
from .gofmt import to_json
from evaluator.cel.memo import remembered_when_short

from .memos import Memo, remembered
from .pattern_value import operator_of, EQUAL

REGEX_VARIABLES = re.compile(r"(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})")
REGEX_VARIABLE_INIT = re.compile(r"^\{\{(\{[^{}]*\}|[^{}])*\}\}")
REGEX_REFERENCES = re.compile(r"^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)")
REGEX_ESCAPED_REFERENCES = re.compile(r"\\\$\(.[^ )]*\)")


class SubstitutionError(Exception):
    pass


def _find_all(regex: re.Pattern[str], value: str) -> list[str]:
    return [m.group(0) for m in regex.finditer(value)]


@remembered_when_short(1024)
def _parsed_variables(value: str) -> tuple[tuple[str, str, bool, str, bool], ...]:
    """Each `{{ }}` variable of `value` as the substitution reads it: (as found, with the character before it;
    without that character; whether it starts the text; the expression; whether it is shallow `{{- }}`)."""
    parsed = []
    for found in _find_all(REGEX_VARIABLES, value):
        initial = bool(REGEX_VARIABLE_INIT.match(found))
        v = found if initial else found[1:]
        parsed.append((found, v, initial, *_trim_variable(v)))
    return tuple(parsed)


def _trim_variable(v: str) -> tuple[str, bool]:
    variable = v.replace("{{", "").replace("}}", "").strip()
    if variable.startswith("-"):
        return variable[1:].strip(), True
    return variable, False


def _traverse(document: object, action, path: str = "", root: object = None) -> object:
    """jsonutils.Traversal: apply `action(value, path, root)` to string leaves and map keys."""
    root = document if root is None else root
    if isinstance(document, dict):
        out = {}
        for key, value in document.items():
            new_key = action(key, path, root)
            if not isinstance(new_key, str):
                raise SubstitutionError(f'expected string after substituting variables in key "{key}"')
            out[new_key] = _traverse(value, action, path + "/" + key.replace("/", "\\/"), root)
        return out
    if isinstance(document, list):
        return [_traverse(v, action, f"{path}/{i}", root) for i, v in enumerate(document)]
    return action(document, path, root)


def _plain(document: object) -> bool:
    """Whether substitution cannot change `document`: string keys only and no string with `{{` or `$(`
    (then both passes only rebuild its maps and lists; a mutate rule is mostly like this)."""
    if isinstance(document, dict):
        return all(isinstance(k, str) and "{{" not in k and "$(" not in k and _plain(v) for k, v in document.items())
    if isinstance(document, list):
        return all(_plain(v) for v in document)
    return not isinstance(document, str) or ("{{" not in document and "$(" not in document)


def _rebuilt(document: object) -> object:
    """A copy of the maps and lists of `document`, its leaves shared (what substituting a plain one gives)."""
    if isinstance(document, dict):
        return {k: _rebuilt(v) for k, v in document.items()}
    if isinstance(document, list):
        return [_rebuilt(v) for v in document]
    return document


def _has_references(document: object) -> bool:
    """Whether a string or key of `document` holds `$(` (else the references pass changes nothing)."""
    if isinstance(document, dict):
        return any((isinstance(k, str) and "$(" in k) or _has_references(v) for k, v in document.items())
    if isinstance(document, list):
        return any(_has_references(v) for v in document)
    return isinstance(document, str) and "$(" in document


_plain_memo: Memo = {}
_references_memo: Memo = {}


def is_plain(document: object) -> bool:
    return remembered(document, _plain, _plain_memo)


def substitute_read(ctx: Context, document: object) -> object:
    """`substitute_all` for a caller that only reads the result: a document without variables or references
    is returned as it is (not rebuilt), so a rule without variables costs nothing here."""
    if is_plain(document):
        return document
    return substitute_all(ctx, document)


def substitute_all(ctx: Context, document: object) -> object:
    """SubstituteAll: references first, then variables. Raises SubstitutionError."""
    if isinstance(document, str):  # what the traversal does with a string alone (a condition's key, mostly)
        if "$(" in document:
            document = _substitute_references(document, "", document)
        return _substitute_variables(ctx, document, "")
    if is_plain(document):
        return _rebuilt(document)
    if remembered(document, _has_references, _references_memo):
        document = _traverse(document, _substitute_references)
    return _traverse(document, lambda v, p, r: _substitute_variables(ctx, v, p))


# --- $( ) references ---


def _substitute_references(value: object, path: str, root: object) -> object:
    if not isinstance(value, str):
        return value
    for v in _find_all(REGEX_REFERENCES, value):
        initial = v[:2] == "$("
        old = v
        if not initial:
            v = v[1:]
        resolved = _resolve_reference(root, v, path)
        if resolved is None:
            raise SubstitutionError(f"got nil resolved variable {v} at path {path}: <nil>")
        if isinstance(resolved, str):
            replacement = ("" if initial else old[0]) + resolved
            value = value.replace(old, replacement, 1)
            continue
        raise SubstitutionError(f"NotResolvedReferenceErr,reference {v} not resolved at path {path}")
    for v in _find_all(REGEX_ESCAPED_REFERENCES, value):
        value = value.replace(v, v[1:])
    return value


def _resolve_reference(root: object, reference: str, absolute: str) -> object:
    path = reference.strip("$()")
    op = operator_of(path)
    path = path[len(op) :]
    if not path:
        raise SubstitutionError("expected path, found empty reference")
    if not path.startswith("/"):
        path = posixpath.join(absolute, path)
    path = posixpath.normpath(path)
    found = _value_at(root, path)
    if op == EQUAL:
        return found
    if isinstance(found, str):
        text = found
    elif isinstance(found, bool) or found is None or isinstance(found, (dict, list)):
        raise SubstitutionError(f"incorrect expression: operator {op} does not match with value {found}")
    elif isinstance(found, int):
        text = str(found)
    else:
        text = f"{found:f}"
    return op + text


def _value_at(root: object, path: str) -> object:
    result = None

    def visit(node: object, current: str) -> None:
        nonlocal result
        if _strip_anchors(current) == path:
            result = node
        if isinstance(node, dict):
            for k, v in node.items():
                visit(v, current + "/" + k)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                visit(v, f"{current}/{i}")

    visit(root, "")
    return result


def _strip_anchors(path: str) -> str:
    parts = [p for p in path.split("/") if p != ""]
    out = []
    for part in parts:
        a = A.parse(part)
        out.append(a.key if a else part)
    return "/" + "/".join(out)


# --- {{ }} variables ---


def _jmespath_from_pointer(path: str, prefix: str) -> str:
    """jsonpointer.ParsePath(path).SkipPast("foreach").SkipN(2).Prepend(prefix...).JMESPath(), as Kyverno
    resolves `{{@}}` (the two skipped components are the rule's `validate/pattern`-like prefix)."""
    parts = [p.replace("\\/", "/") for p in re.split(r"(?<!\\)/", path) if p != ""]
    if "foreach" in parts:
        parts = parts[parts.index("foreach") + 1 :]
    parts = [] if 2 > len(parts) - 1 else parts[2:]
    out = ""
    for p in prefix.split(".") + parts:
        if p.isdigit():
            out += f"[{p}]"
            continue
        if out:
            out += "."
        out += p if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) else '"' + p.replace('"', '\\"') + '"'
    return out


def _substitute_variables(ctx: Context, value: object, path: str) -> object:
    if not isinstance(value, str) or "{{" not in value:
        return value
    is_delete = ctx.query_operation() == "DELETE"
    found = _parsed_variables(value)
    while found:
        original = value
        shallow = False
        for old, v, initial, variable, shallow in found:
            if variable == "@":
                prefix = "target"
                try:
                    ctx.query("target")
                except ContextError:
                    prefix = "request.object"
                variable = variable.replace("@", _jmespath_from_pointer(path, prefix))
            if is_delete:
                variable = variable.replace("request.object", "request.oldObject")
            try:
                substituted = ctx.query(variable)
            except ContextError as err:
                raise SubstitutionError(f"failed to resolve {variable} at path {path}: {err}") from None
            if original == v:
                return substituted
            prefix_char = "" if initial else old[0]
            if shallow and substituted is not None:
                substituted = str(substituted).replace("{{", "\\{{") if isinstance(substituted, str) else substituted
            text = substituted if isinstance(substituted, str) else to_json(substituted)
            value = value.replace(prefix_char + v, prefix_char + text, 1)
        # what a variable resolved to seldom holds `{{` (the pattern needs it): no second scan then
        found = () if shallow or "{{" not in value else _parsed_variables(value)
    return value.replace("\\{{", "{{")
