"""Pairing new and old values for transition rules and ratcheting (apiserver `common.CorrelatedObject`, maplist).

Old values follow new ones through object keys and through list items of `x-kubernetes-list-type: map`
(matched by their key fields); set and atomic list items have no old value. An error on a value equal to
its old value is ratcheted (reported as a warning) when the API server would ratchet it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.crd import structural as st


class MapList:
    """Old items of a list-type map, found by the key fields of a new item (defaults fill missing keys)."""

    def __init__(self, schema: Mapping[str, Any], old_items: Any):
        self._by_key: dict[str, Any] = {}
        keys = st.list_map_keys(schema)
        self._keys = keys
        self._defaults = {}
        if st.list_type(schema) != "map" or not keys or not isinstance(old_items, list):
            self._keys = []
            return
        props = st.properties(st.node(st.items(schema))) or st.EMPTY
        self._defaults = {k: st.node(props.get(k)).get("default") for k in keys}
        for item in old_items:
            key = self._key(item)
            if key is not None and key not in self._by_key:
                self._by_key[key] = item

    def _key(self, item: Any) -> str | None:
        if not isinstance(item, Mapping):
            return None
        return repr([item.get(k, self._defaults.get(k)) for k in self._keys])

    def get(self, item: Any) -> Any:
        if not self._keys:
            return None
        key = self._key(item)
        return self._by_key.get(key) if key is not None else None


class Correlation:
    def __init__(self, value: Any, old: Any, schema: Mapping[str, Any] | None):
        self.value, self.old, self.schema = value, old, schema
        self._equal: bool | None = None
        self._children: dict[Any, Correlation | None] = {}
        self._map_list: MapList | None = None

    def deep_equal(self) -> bool:
        if self._equal is None:
            self._equal = self._compute()
        return self._equal

    def _compute(self) -> bool:
        value, old = self.value, self.old
        if value is None and old is None:
            return True
        if value is None or old is None:
            return False
        if isinstance(old, list) != isinstance(value, list) or isinstance(old, dict) != isinstance(value, dict):
            return False
        if isinstance(old, list):
            if len(old) != len(value):
                return False
            for i in range(len(value)):
                child = self.index(i)
                if child is None:
                    return self._map_list is None and _deep_equal(old, value)
                if not child.deep_equal():
                    return False
            return True
        if isinstance(old, dict):
            if len(old) != len(value):
                return False
            return all((c := self.key(k)) is not None and c.deep_equal() for k in value)
        return _deep_equal(old, value)

    def key(self, name: str) -> Correlation | None:
        if self.schema is None:
            return None
        if name in self._children:
            return self._children[name]
        if not isinstance(self.old, dict) or not isinstance(self.value, dict):
            return None
        if name not in self.old or name not in self.value:
            return None
        props = st.properties(self.schema) or st.EMPTY
        if name in props:
            sub = st.node(props[name])
        else:
            sub = st.additional_properties(self.schema)
            if sub is None:
                return None
        child = Correlation(self.value[name], self.old[name], sub)
        self._children[name] = child
        return child

    def index(self, i: int) -> Correlation | None:
        if self.schema is None:
            return None
        if i in self._children:
            return self._children[i]
        if not isinstance(self.value, list) or len(self.value) <= i:
            return None
        old_item = None
        if isinstance(self.old, list) and st.list_type(self.schema) == "map":
            if self._map_list is None:
                self._map_list = MapList(self.schema, self.old)
            old_item = self._map_list.get(self.value[i])
        if old_item is None:
            return None
        items = st.items(self.schema)
        if items is None:
            return None
        child = Correlation(self.value[i], old_item, items)
        self._children[i] = child
        return child


def _deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual on decoded JSON: types must match exactly (1 and 1.0 differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    return a == b


class Ratchet:
    """ratchetingOptions: the correlation at this node and the nearest parent's."""

    __slots__ = ("current", "parent")

    def __init__(self, current: Correlation | None = None, parent: Correlation | None = None):
        self.current, self.parent = current, parent

    def should_ratchet(self) -> bool:
        if self.current is not None:
            return self.current.deep_equal()
        return self.parent.deep_equal() if self.parent is not None else False

    def key(self, name: str) -> Ratchet:
        if self.current is None:
            return self
        if self.parent is None and name in ("apiVersion", "kind"):
            return Ratchet()
        return Ratchet(self.current.key(name), self.current)

    def index(self, i: int) -> Ratchet:
        if self.current is None:
            return self
        return Ratchet(self.current.index(i), self.current)
