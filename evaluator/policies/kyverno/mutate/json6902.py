"""`patchesJson6902`: a YAML (or JSON) list of RFC 6902 operations, applied as Kyverno applies it
(pkg/engine/mutate/patch/patchJSON6902.go): evanphx/json-patch v5 with negative indices, a `remove` of a
missing path doing nothing, and an `add` creating the missing parents of its path.

The operations themselves are the project's evanphx implementation (`evaluator.policies.mutating.jsonpatch`);
this module adds v5's two options and Kyverno's decoding and error texts.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import yaml

from evaluator.policies.mutating import jsonpatch
from evaluator.policies.mutating.jsonpatch import PatchError

from ..tree_copy import deep_copy

_INT = re.compile(r"^-?\d+$")


class DecodeError(Exception):
    """The text is not a list of operations; the message is Kyverno's."""


def decode(text: str) -> list[dict]:
    """convertPatchesToJSON + DecodePatch: text starting with `[` is JSON, anything else YAML. A policy's
    text is parsed once (a batch applies it to every object); each call gets its own copy."""
    if not text:
        return []
    return deep_copy(_decoded(text))


@functools.lru_cache(maxsize=256)
def _decoded(text: str) -> list[dict]:
    if text[0] != "[":
        try:
            data: Any = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise DecodeError(f"failed to convert patchesJSON6902 to JSON: error converting YAML to JSON: {err}")
    else:
        try:
            data = json.loads(text)
        except ValueError as err:
            raise DecodeError(f"failed to decode patches: {err}") from None
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(op, dict) for op in data):
        kind = "object" if isinstance(data, dict) else "string" if isinstance(data, str) else "value"
        raise DecodeError(
            f"failed to decode patches: json: cannot unmarshal {kind} into Go value of type jsonpatch.Patch"
        )
    return data


def _ensure_path(doc: Any, path: str) -> None:
    """EnsurePathExistsOnAdd: create each missing parent of `path`, a list when the next token is an index."""
    parts = path.split("/")[1:]
    node = doc
    for i, raw in enumerate(parts[:-1]):
        key = jsonpatch.unescape(raw)
        nxt = parts[i + 1]
        fresh: Any = [] if (_INT.match(nxt) or nxt == "-") else {}
        if isinstance(node, dict):
            if key not in node or node[key] is None:
                node[key] = fresh
            node = node[key]
        elif isinstance(node, list) and _INT.match(key):
            index = int(key)
            found = index + len(node) if index < 0 else index
            if 0 <= found < len(node) and node[found] is not None:
                node = node[found]
                continue
            if index < -len(node) - 1:
                return
            node.extend([None] * max(0, index - len(node)))  # v5 pads a short list with nulls
            position = index + len(node) + 1 if index < 0 else index
            node.insert(position, fresh)
            node = node[position]
        else:
            return


def apply(doc: Any, operations: list[dict]) -> Any:
    """A patched copy of `doc`; raises PatchError with evanphx's text on the first operation that fails."""
    result = json.loads(json.dumps(doc))
    for op in operations:
        kind = op.get("op")
        path = op.get("path", "")
        if not isinstance(path, str):
            raise PatchError(f"{kind} operation does not apply: path is not a string")
        if kind == "remove" and jsonpatch.find_parent(result, path)[0] is None:
            continue
        if kind == "remove":
            con, key = jsonpatch.find_parent(result, path)
            try:
                con.get(key)
                present = key in con.data if isinstance(con.data, dict) else True
            except PatchError:
                present = False
            if not present:
                continue
        if kind == "add":
            _ensure_path(result, path)
        jsonpatch.apply_operation(result, op)
    return result
