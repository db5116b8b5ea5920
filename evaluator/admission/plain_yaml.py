"""Building a composed YAML document's data without PyYAML's generic constructor, for the common case.

`plain_data(loader, node, ...)` gives what `loader.construct_document(node)` gives for a document of plain
maps, lists and scalars (the standard tags, no merge keys, no anchor used twice): strings are taken as
they are, other scalars go through the loader's own constructors. Anything else raises `Unusual` before
building more than the plain part (an alias is met as a node seen again, so it is never expanded here), and
the caller falls back to its loader (and its alias checks): the answer is the same either way, only faster
on the large multi-document inputs of a cluster dump, where the generic constructor was most of the time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"


class Unusual(Exception):
    """The document needs the loader's own constructor (an alias, a merge key, a tag, an unhashable key)."""


class RememberingResolver:
    """A loader mixin that resolves each plain scalar's tag once per text value: the parser asks the
    resolver for every scalar, and a cluster dump repeats the same keys and values thousands of times
    (no path resolvers are used, so the tag depends on the value and its style alone)."""

    _resolved: dict[tuple[str, bool], str] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._resolved = {}  # per loader class: each has its own resolvers

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is _SCALAR and implicit and implicit[0] and type(value) is str:
            key = (value, implicit[1])  # `implicit` is (plain, quoted), and plain is true here
            cache = self._resolved
            found = cache.get(key)
            if found is None:
                if len(cache) >= 1 << 16:
                    cache.clear()
                found = cache[key] = super().resolve(kind, value, implicit)  # type: ignore[misc]
            return found
        return super().resolve(kind, value, implicit)  # type: ignore[misc]


_SCALAR = yaml.ScalarNode


def plain_data(
    loader: Any,
    node: yaml.Node,
    key: Callable[[Any], Any] | None = None,
    duplicate: Callable[[Any, yaml.Node, int], None] | None = None,
    text: str | None = None,
) -> Any:
    """The document's data; `key` turns each built key into the dict key; `duplicate(key, key_node,
    first_line)` is called on a repeated key (to raise), else the last value wins as in SafeConstructor.
    `text`, the composed text: without a `&` it has no anchor, so no node needs checking for an alias."""
    seen: set[int] | None = None if text is not None and "&" not in text else set()
    return _build(loader, node, seen, key, duplicate)


def _build(loader: Any, node: yaml.Node, seen: set[int] | None, key: Any, duplicate: Any) -> Any:
    if seen is not None:
        if id(node) in seen:
            raise Unusual("alias")
        seen.add(id(node))
    kind = type(node)
    if kind is _SCALAR:
        if node.tag == _STR:
            return node.value
        if node.tag == _MERGE:
            raise Unusual("merge key")
        return loader.construct_object(node, deep=True)
    if kind is yaml.MappingNode:
        if node.tag != _MAP:
            raise Unusual(node.tag)
        out: dict = {}
        lines: dict[Any, int] = {}
        for key_node, value_node in node.value:
            # a string without an anchor to check (the most common key and value) is taken here, not built
            if seen is None and type(key_node) is _SCALAR and key_node.tag == _STR:
                name = key_node.value
            else:
                if key_node.tag == _VALUE:  # `=`: SafeConstructor reads it as a string key
                    raise Unusual("value key")
                name = _build(loader, key_node, seen, key, duplicate)
            if key is not None:
                name = key(name)
            try:
                if name in lines:
                    if duplicate is not None:
                        duplicate(name, key_node, lines[name])
                lines[name] = key_node.start_mark.line
            except TypeError:  # unhashable: the loader words the error
                raise Unusual("unhashable key") from None
            if seen is None and type(value_node) is _SCALAR and value_node.tag == _STR:
                out[name] = value_node.value
            else:
                out[name] = _build(loader, value_node, seen, key, duplicate)
        return out
    if kind is yaml.SequenceNode:
        if node.tag != _SEQ:
            raise Unusual(node.tag)
        return [_build(loader, item, seen, key, duplicate) for item in node.value]
    raise Unusual(str(kind))
