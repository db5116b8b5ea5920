"""RFC 6902 JSON Patch with the semantics of gopkg.in/evanphx/json-patch.v4, which the API server uses.

The `jsonpatch` PyPI package is not used to *apply* patches because v4 differs from the RFC (and from
that package) where Kubernetes users notice it:
- `replace` of a missing object key adds it (v4 only checks that the parent exists);
- negative array indices count from the end;
- `copy` from a missing key copies `null`;
- a failed `test` is a distinct error that the MutatingAdmissionPolicy patcher turns into "patch not
  applied" rather than a failure;
- the error texts (`add operation does not apply: doc is missing path: "/x": missing value`) are
  github.com/pkg/errors wrappings that appear verbatim in denials.
The document is plain JSON-like Python data and is changed in place; callers pass a copy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

MISSING_VALUE = "missing value"
INVALID_INDEX = "invalid index referenced"
_INT = re.compile(r"^[+-]?\d+$")


class PatchError(Exception):
    """A patch that does not apply; `message` is evanphx's error text."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TestFailed(PatchError):
    """A `test` operation that did not match: the server then leaves the object unchanged."""


def unescape(token: str) -> str:
    """RFC 6901 token decoding (`~1` -> `/`, then `~0` -> `~`)."""
    return token.replace("~1", "/").replace("~0", "~")


def _atoi(key: str) -> int:
    if not _INT.match(key):
        raise PatchError(f'strconv.Atoi: parsing "{key}": invalid syntax')
    return int(key)


class _Dict:
    def __init__(self, data: dict):
        self.data = data

    def get(self, key: str) -> tuple[bool, Any]:
        return (key in self.data), self.data.get(key)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value

    add = set

    def remove(self, key: str) -> None:
        if key not in self.data:
            raise PatchError(f"Unable to remove nonexistent key: {key}: {MISSING_VALUE}")
        del self.data[key]


def _bounded(index: int, size: int) -> int:
    """A position below `size`, negative ones counted from the end (evanphx v4)."""
    if index < 0:
        if index < -size:
            raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
        index += size
    if index >= size:
        raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
    return index


class _List:
    def __init__(self, data: list):
        self.data = data

    def get(self, key: str) -> tuple[bool, Any]:
        return True, self.data[_bounded(_atoi(key), len(self.data))]

    def set(self, key: str, value: Any) -> None:
        self.data[_bounded(_atoi(key), len(self.data))] = value

    def add(self, key: str, value: Any) -> None:
        if key == "-":
            self.data.append(value)
            return
        if not _INT.match(key):
            raise PatchError(
                f"value was not a proper array index: '{key}': strconv.Atoi: parsing \"{key}\": invalid syntax"
            )
        self.data.insert(_bounded(int(key), len(self.data) + 1), value)

    def remove(self, key: str) -> None:
        del self.data[_bounded(_atoi(key), len(self.data))]


def _container(value: Any):
    if isinstance(value, dict):
        return _Dict(value)
    if isinstance(value, list):
        return _List(value)
    return None


def find_parent(doc: Any, path: str):
    """(container, last token) of `path`, or (None, "") when a parent is missing (findObject)."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    current = _container(doc)
    for part in split[1:-1]:
        if current is None:
            return None, ""
        try:
            present, value = current.get(unescape(part))
        except PatchError:
            return None, ""
        if not present:
            return None, ""
        current = _container(value)
    if current is None:
        return None, ""
    return current, unescape(split[-1])


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, but never a bool equal to a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b and not (isinstance(a, float) and math.isnan(a))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


def _located(doc: Any, path: str, missing: str) -> tuple[Any, str]:
    """The container holding `path`'s last token, and the token; without one, the operation's error
    (`missing` names what is missing)."""
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f"{missing}: {MISSING_VALUE}")
    return con, key


def _step(context: str, action: Callable[..., Any], *args: Any) -> Any:
    """A container step whose error evanphx wraps with the operation's context (`<context>: <error>`)."""
    try:
        return action(*args)
    except PatchError as exc:
        raise PatchError(f"{context}: {exc.message}") from None


def _op_add(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = _located(doc, path, f'add operation does not apply: doc is missing path: "{path}"')
    _step(f"error in add for path: '{path}'", con.add, key, _deep_copy(op.get("value")))


def _op_remove(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = _located(doc, path, f'remove operation does not apply: doc is missing path: "{path}"')
    _step(f"error in remove for path: '{path}'", con.remove, key)


def _op_replace(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = _located(doc, path, f"replace operation does not apply: doc is missing path: {path}")
    try:
        con.get(key)
    except PatchError:
        raise PatchError(f"replace operation does not apply: doc is missing key: {path}: {MISSING_VALUE}") from None
    _step(f"error in remove for path: '{path}'", con.set, key, _deep_copy(op.get("value")))  # sic: v4's text


def _op_move(doc: Any, op: Mapping[str, Any]) -> None:
    source = op.get("from", "")
    con, key = _located(doc, source, f"move operation does not apply: doc is missing from path: {source}")
    _, value = _step(f"error in move for path: '{key}'", con.get, key)
    _step(f"error in move for path: '{key}'", con.remove, key)
    path = op["path"]
    con, key = _located(doc, path, f"move operation does not apply: doc is missing destination path: {path}")
    _step(f"error in move for path: '{path}'", con.add, key, value)


def _op_test(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = _located(doc, path, f"test operation does not apply: is missing path: {path}")
    present, value = _step(f"error in test for path: '{path}'", con.get, key)
    if present and "value" in op and json_equal(value, op["value"]):
        return
    if not present and "value" not in op:
        return
    raise TestFailed(f"testing value {path} failed: test failed")


def _op_copy(doc: Any, op: Mapping[str, Any]) -> None:
    source = op.get("from", "")
    con, key = _located(doc, source, f"copy operation does not apply: doc is missing from path: {source}")
    _, value = _step(f"error in copy for from: '{source}'", con.get, key)
    path = op["path"]
    con, key = _located(doc, path, f"copy operation does not apply: doc is missing destination path: {path}")
    _step("error while adding value during copy", con.add, key, _deep_copy(value))


_OPERATIONS = {
    "add": _op_add,
    "remove": _op_remove,
    "replace": _op_replace,
    "move": _op_move,
    "test": _op_test,
    "copy": _op_copy,
}


def apply_operation(doc: Any, op: Mapping[str, Any]) -> None:
    """Apply one operation ({op, path, from?, value?}) to `doc` in place; raises PatchError / TestFailed."""
    handler = _OPERATIONS.get(op.get("op"))
    if handler is None:
        raise PatchError(f"Unexpected kind: {op.get('op')}")
    handler(doc, op)


def apply_patch(doc: Any, operations: list[Mapping[str, Any]]) -> Any:
    """Apply every operation in order to a copy of `doc` and return it (the first failure raises)."""
    result = _deep_copy(doc)
    for op in operations:
        apply_operation(result, op)
    return result
