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
from collections.abc import Mapping
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


class _List:
    def __init__(self, data: list):
        self.data = data

    def _index(self, key: str, size: int) -> int:
        index = _atoi(key)
        if index < 0:
            if index < -size:
                raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
            index += size
        return index

    def get(self, key: str) -> tuple[bool, Any]:
        index = self._index(key, len(self.data))
        if index >= len(self.data):
            raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
        return True, self.data[index]

    def set(self, key: str, value: Any) -> None:
        self.data[self._index(key, len(self.data))] = value

    def add(self, key: str, value: Any) -> None:
        if key == "-":
            self.data.append(value)
            return
        if not _INT.match(key):
            raise PatchError(
                f"value was not a proper array index: '{key}': strconv.Atoi: parsing \"{key}\": invalid syntax"
            )
        index = int(key)
        size = len(self.data) + 1
        if index >= size:
            raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
        if index < 0:
            if index < -size:
                raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
            index += size
        self.data.insert(index, value)

    def remove(self, key: str) -> None:
        index = _atoi(key)
        if index >= len(self.data):
            raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
        if index < 0:
            if index < -len(self.data):
                raise PatchError(f"Unable to access invalid index: {index}: {INVALID_INDEX}")
            index += len(self.data)
        del self.data[index]


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


def _op_add(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f'add operation does not apply: doc is missing path: "{path}": {MISSING_VALUE}')
    try:
        con.add(key, _deep_copy(op.get("value")))
    except PatchError as exc:
        raise PatchError(f"error in add for path: '{path}': {exc.message}") from None


def _op_remove(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f'remove operation does not apply: doc is missing path: "{path}": {MISSING_VALUE}')
    try:
        con.remove(key)
    except PatchError as exc:
        raise PatchError(f"error in remove for path: '{path}': {exc.message}") from None


def _op_replace(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f"replace operation does not apply: doc is missing path: {path}: {MISSING_VALUE}")
    try:
        con.get(key)
    except PatchError:
        raise PatchError(f"replace operation does not apply: doc is missing key: {path}: {MISSING_VALUE}") from None
    try:
        con.set(key, _deep_copy(op.get("value")))
    except PatchError as exc:
        raise PatchError(f"error in remove for path: '{path}': {exc.message}") from None


def _op_move(doc: Any, op: Mapping[str, Any]) -> None:
    source = op.get("from", "")
    con, key = find_parent(doc, source)
    if con is None:
        raise PatchError(f"move operation does not apply: doc is missing from path: {source}: {MISSING_VALUE}")
    try:
        _, value = con.get(key)
        con.remove(key)
    except PatchError as exc:
        raise PatchError(f"error in move for path: '{key}': {exc.message}") from None
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f"move operation does not apply: doc is missing destination path: {path}: {MISSING_VALUE}")
    try:
        con.add(key, value)
    except PatchError as exc:
        raise PatchError(f"error in move for path: '{path}': {exc.message}") from None


def _op_test(doc: Any, op: Mapping[str, Any]) -> None:
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f"test operation does not apply: is missing path: {path}: {MISSING_VALUE}")
    try:
        present, value = con.get(key)
    except PatchError as exc:
        raise PatchError(f"error in test for path: '{path}': {exc.message}") from None
    if not present:
        if "value" not in op:
            return
        raise TestFailed(f"testing value {path} failed: test failed")
    if "value" in op and json_equal(value, op["value"]):
        return
    raise TestFailed(f"testing value {path} failed: test failed")


def _op_copy(doc: Any, op: Mapping[str, Any]) -> None:
    source = op.get("from", "")
    con, key = find_parent(doc, source)
    if con is None:
        raise PatchError(f"copy operation does not apply: doc is missing from path: {source}: {MISSING_VALUE}")
    try:
        _, value = con.get(key)
    except PatchError as exc:
        raise PatchError(f"error in copy for from: '{source}': {exc.message}") from None
    path = op["path"]
    con, key = find_parent(doc, path)
    if con is None:
        raise PatchError(f"copy operation does not apply: doc is missing destination path: {path}: {MISSING_VALUE}")
    try:
        con.add(key, _deep_copy(value))
    except PatchError as exc:
        raise PatchError(f"error while adding value during copy: {exc.message}") from None


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


def escape_key(key: str) -> str:
    """RFC 6901 token escaping, as `jsonpatch.escapeKey` in CEL."""
    return key.replace("~", "~0").replace("/", "~1")
