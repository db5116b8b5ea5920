"""A small thread-safe LRU keyed by content hashes (evaluation runs in worker threads).

Bounded by count and, when given a `weigh` function, by total weight too (bytes, roughly): a count alone
bounds nothing when one entry may be a few hundred bytes or a megabyte (a result of a large request), and
these caches live as long as the server process."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


def content_hash(*parts) -> str:
    """SHA-256 of the parts' canonical JSON: equal contents, equal keys."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def remembered_hash(*parts) -> str:
    """`content_hash` of parts made of text (nested in tuples), remembered for the texts hashed last: a keystroke
    hashes the room's texts several times (its early start, its evaluation, its type check), each text
    otherwise costing a JSON encoding and a SHA-256 of its length every time. Held up to
    REMEMBERED_MAX_CHARS characters of keys, then forgotten all at once."""
    found = _REMEMBERED.get(parts)
    if found is None:
        found = content_hash(*parts)
        global _remembered_chars
        with _REMEMBERED_LOCK:
            _remembered_chars += _chars(parts)
            if _remembered_chars > REMEMBERED_MAX_CHARS:
                _REMEMBERED.clear()
                _remembered_chars = _chars(parts)
            _REMEMBERED[parts] = found
    return found


def _chars(parts) -> int:
    return sum(_chars(part) if isinstance(part, tuple) else len(part) if isinstance(part, str) else 1 for part in parts)


REMEMBERED_MAX_CHARS = 8 * 1024 * 1024
_REMEMBERED: dict[tuple, str] = {}
_REMEMBERED_LOCK = threading.Lock()
_remembered_chars = 0


class LRUCache:
    def __init__(self, maxsize: int, max_weight: int | None = None, weigh: Callable[[Any], int] | None = None):
        self.maxsize = maxsize
        self.max_weight = max_weight if weigh is not None else None
        self._weigh = weigh
        self._data: OrderedDict = OrderedDict()
        self._weights: dict = {}
        self.weight = 0  # of the entries held, with `weigh`
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
            return None

    def put(self, key, value) -> None:
        weight = self._weigh(value) if self._weigh is not None else 0
        with self._lock:
            self.weight -= self._weights.pop(key, 0)
            self._data.pop(key, None)
            if self.max_weight is not None and weight > self.max_weight:
                return  # larger than the whole cache: not kept
            self._data[key] = value
            self._weights[key] = weight
            self.weight += weight
            while len(self._data) > self.maxsize or (self.max_weight is not None and self.weight > self.max_weight):
                old, _ = self._data.popitem(last=False)
                self.weight -= self._weights.pop(old, 0)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        """Whether `key` is held (neither a hit nor a miss, and not moved up)."""
        return key in self._data

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._weights.clear()
            self.weight = 0
            self.hits = self.misses = 0
