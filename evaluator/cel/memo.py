"""A bounded, thread-safe memo of the most recently used results (compiled programs, type-check results)."""

from __future__ import annotations

import functools
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")
R = TypeVar("R")


class RecentMemo(Generic[V]):
    """Keeps the `size` most recently used values: `find`, and on a miss make the value and `keep` it (two
    threads may then make the same value: the later one is kept). With `weigh` (a key's weight, such as its
    text's length), the values kept also weigh at most `max_weight` together: a count alone would let a few
    big keys hold a worker's memory up."""

    def __init__(self, size: int, max_weight: int = 0, weigh: Callable[[Hashable], int] | None = None):
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self._weigh = weigh
        self._max_weight = max_weight
        self.weight = 0  # of the keys held, by `weigh`

    def find(self, key: Hashable) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def keep(self, key: Hashable, value: V) -> V:
        """Remember `value` (made outside the lock, so a slow compile holds up no other thread)."""
        weigh = self._weigh
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            elif weigh is not None:
                self.weight += weigh(key)
            self._items[key] = value
            while len(self._items) > self._size or (weigh is not None and self.weight > self._max_weight):
                old, _ = self._items.popitem(last=False)
                if weigh is not None:
                    self.weight -= weigh(old)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[Hashable]:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._items)

    def remember(self, key: Hashable | None, make: Callable[[], V]) -> V:
        """The value kept under `key`, made by `make()` and kept on a miss; made every time for a None key."""
        if key is None:
            return make()
        found = self.find(key)
        return found if found is not None else self.keep(key, make())


EXACT_KEY_MAX_BYTES = 64 * 1024  # a bigger value is not remembered: a memo's bound is a count of entries


def exact_key(value: object, max_bytes: int = EXACT_KEY_MAX_BYTES) -> bytes | None:
    """Plain data as a memo key that tells apart what equality does not (key order, NaN, -0.0, int against
    float): its pickle. None for what pickle refuses, and for a value over `max_bytes` pickled (a memo of a
    thousand such keys would hold a worker's memory up): then nothing is remembered."""
    try:
        key = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None
    return key if len(key) <= max_bytes else None


def remembered_when_short(chars: int, size: int = 4096) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
    """A reading of a string, kept (least recently used dropped) when the string has at most `chars`
    characters, made each time otherwise: the strings a policy repeats (patterns, units, variables) are
    short, and a long one, most likely a value from a resource, would hold memory for nothing."""

    def decorate(read: Callable[[str], R]) -> Callable[[str], R]:
        kept = functools.lru_cache(maxsize=size)(read)

        @functools.wraps(read)
        def short_kept(text: str) -> R:
            return kept(text) if len(text) <= chars else read(text)

        short_kept.cache_info = kept.cache_info  # type: ignore[attr-defined]
        short_kept.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        return short_kept

    return decorate
