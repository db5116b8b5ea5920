"""Kyverno's JSON evaluation context: request data, variables, deferred context entries, checkpoints."""

from __future__ import annotations

import csv
import re
from typing import Callable

from . import jmes
from .kept_errors import kept
from .tree_copy import deep_copy


class ContextError(Exception):
    """A query or loading failure, with Kyverno's wording."""


class Context:
    """`data` is never changed in place: every write builds new maps along its path and shares the rest, so
    a checkpoint is a reference and contexts may share what they were built from (copy on write). Whoever
    writes to it goes through `add`, `replace`, `put`, `set_object` and `add_element`."""

    def __init__(self, data: dict | None = None) -> None:
        self.data: dict = data if data is not None else {}
        self.operation: str = ""
        # deferred loaders: [name, regex, loader, matched, level]
        self._loaders: list[list] = []
        self._checkpoints: list[tuple[dict, int]] = []
        # context entries that cannot be loaded offline: name -> what they are
        self.unavailable: dict[str, str] = {}

    # --- data ---
    def add(self, value: object, *path: str) -> None:
        """addToContext: merge `value` at path (maps merge, other values replace)."""
        if not path:
            if isinstance(value, dict):
                self.data = _merged(self.data, value)
            return
        self.data = _put(self.data, path, value)

    def replace(self, name: str, value: object) -> None:
        self.data = {**self.data, name: deep_copy(value)}

    def put(self, name: str, value: object) -> None:
        """Set a top-level entry to `value` as it is (not copied: the caller hands over a value of its own)."""
        self.data = {**self.data, name: value}

    def set_object(self, obj: object, copy: bool = True) -> None:
        """Context.AddResource: `request.object` becomes a copy of `obj` (replaced, not merged); `obj` itself
        with `copy=False`, from a caller that changes it no more (copy on write)."""
        request = self.data.get("request")
        value = deep_copy(obj) if copy else obj
        self.put("request", {**(request if isinstance(request, dict) else {}), "object": value})

    def add_variable(self, key: str, value: object) -> None:
        fields = next(csv.reader([key], delimiter="."))
        self.add(value, *fields)

    def add_element(self, element: object, index: int, nesting: int) -> None:
        self.data = {
            **self.data,
            "element": element,
            f"element{nesting}": element,
            "elementIndex": index,
            f"elementIndex{nesting}": index,
        }

    def reads_data_alone(self) -> bool:
        """Whether a query's answer depends on `data` alone: no deferred entry a query may load, none that
        cannot be loaded offline (its error names it)."""
        return not self._loaders and not self.unavailable

    # --- deferred entries ---
    def add_deferred(self, name: str, loader: Callable[[], None]) -> None:
        regex = re.compile(r"(?:\A|\Z|\s|[^.0-9A-Za-z])" + re.escape(name) + r"\b")
        self._loaders.append([name, regex, loader, False, len(self._checkpoints)])

    def _load_matching(self, query: str) -> None:
        level = len(self._checkpoints)
        progress = True
        while progress:
            progress = False
            for entry in self._loaders:
                if entry[3] or not entry[1].search(query) or entry[4] > level:
                    continue
                entry[3] = True
                entry[2]()
                progress = True
                break

    # --- queries ---
    def query(self, expression: str) -> object:
        """ctx.Query: raises ContextError with Kyverno's message."""
        self._load_matching(expression)
        expression = expression.strip()
        if expression == "":
            raise ContextError("invalid query (nil)")
        syntax = jmes.check_syntax(expression)
        if syntax is not None:
            raise ContextError(f"incorrect query {expression}: {syntax}")
        if "(" not in expression and "&" not in expression and not self.unavailable:
            # no function call: the answer depends on the data alone, which is never changed in place, so
            # it is kept for the data at hand (the policies of one request share it)
            cache = _answers[0]
            if cache is None or cache[0] is not self.data:
                cache = (self.data, {})
                _answers[0] = cache
            found = cache[1].get(expression)
            if found is None:
                found = cache[1][expression] = self._answer(expression)
            if isinstance(found[1], ContextError):
                raise ContextError(str(found[1])) from None
            return found[0]
        return self._search(expression)

    def _answer(self, expression: str) -> tuple[object, ContextError | None]:
        try:
            return self._search(expression), None
        except ContextError as err:
            return None, kept(err)  # kept in `_answers`

    def _search(self, expression: str) -> object:
        try:
            return jmes.search(expression, self.data)
        except jmes.NotFoundError as err:
            raise ContextError(f"JMESPath query failed: {err}{self._why_missing(err.key)}") from None
        except jmes.JMESPathError as err:
            raise ContextError(f"JMESPath query failed: {err}") from None
        except Exception as err:  # custom function failures surface as query errors
            raise ContextError(f"JMESPath query failed: {err}") from None

    def _why_missing(self, key: str) -> str:
        what = self.unavailable.get(key)
        if what is None:
            return ""
        return f" (context entry {key}: {what} cannot be loaded offline; supply its value in values)"

    def query_operation(self) -> str:
        if self.operation:
            return self.operation
        request = self.data.get("request")
        if isinstance(request, dict) and isinstance(request.get("operation"), str):
            return request["operation"]
        return ""

    # --- checkpoints ---
    def checkpoint(self) -> None:
        self._checkpoints.append((self.data, len(self._loaders)))

    def restore(self) -> None:
        """Restore the last checkpoint and drop it."""
        data, n = self._checkpoints.pop()
        self.data = data
        del self._loaders[n:]

    def reset(self) -> None:
        """Restore the last checkpoint but keep it."""
        data, n = self._checkpoints[-1]
        self.data = data
        del self._loaders[n:]
        for entry in self._loaders:
            if entry[4] >= len(self._checkpoints):
                entry[3] = False


# (data, {expression: (answer, error)}) of the last data queried
_answers: list[tuple[dict, dict[str, tuple[object, ContextError | None]]] | None] = [None]


def _put(node: dict, path: tuple[str, ...], value: object) -> dict:
    """A copy of `node` with `value` merged in at `path` (new maps along the path, the rest shared)."""
    out = dict(node)
    key = path[0]
    current = out.get(key)
    if len(path) > 1:
        out[key] = _put(current if isinstance(current, dict) else {}, path[1:], value)
    elif isinstance(value, dict) and isinstance(current, dict):
        out[key] = _merged(current, value)
    else:
        out[key] = deep_copy(value)
    return out


def _merged(dst: dict, src: dict) -> dict:
    """`dst` with `src` merged in, as a new map (maps merge, other values replace with a copy)."""
    out = dict(dst)
    for k, v in src.items():
        current = out.get(k)
        if isinstance(v, dict) and isinstance(current, dict):
            out[k] = _merged(current, v)
        else:
            out[k] = deep_copy(v)
    return out
