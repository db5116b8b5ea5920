"""The LRU behind the server's result caches: bounded by count, and by total weight when it can weigh."""

from __future__ import annotations

from playground.core import result_cache
from playground.core.result_cache import LRUCache, content_hash, remembered_hash
from playground.evaluation import live_jobs


def test_the_least_recently_used_goes_first_beyond_the_count():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3


def test_a_weight_bound_evicts_by_size_not_only_count():
    cache = LRUCache(maxsize=100, max_weight=10, weigh=len)
    cache.put("a", "xxxx")
    cache.put("b", "yyyy")
    cache.put("c", "zzzz")  # 12 > 10: the oldest goes
    assert cache.get("a") is None and cache.get("b") == "yyyy" and cache.get("c") == "zzzz"
    assert cache.weight == 8 and len(cache) == 2
    cache.put("b", "y")  # replacing an entry counts its new weight only
    assert cache.weight == 5
    cache.put("huge", "h" * 11)  # larger than the whole cache: not kept, nothing evicted for it
    assert cache.get("huge") is None and len(cache) == 2 and cache.weight == 5
    cache.clear()
    assert cache.weight == 0 and len(cache) == 0


def test_the_live_result_cache_holds_at_most_its_bytes():
    big = "r" * (1024 * 1024)
    try:
        for n in range(64):  # 64 MiB of results, twice the bound
            live_jobs._ENCODED.put(("documents", str(n)), ({"verdict": "pass"}, big))
        assert live_jobs._ENCODED.weight <= live_jobs.ENCODED_MAX_BYTES
        assert len(live_jobs._ENCODED) < 64
        assert live_jobs._ENCODED.get(("documents", "63")) is not None  # the newest are kept
    finally:
        live_jobs._ENCODED.clear()


def test_a_remembered_hash_is_the_content_hash_and_its_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(result_cache, "REMEMBERED_MAX_CHARS", 100)
    named = (("policies", "a" * 30), ("params", "b" * 30))
    assert remembered_hash("documents", named, "1.30") == content_hash("documents", [list(n) for n in named], "1.30")
    assert remembered_hash("request", "c" * 30, "pod") == content_hash("request", "c" * 30, "pod")
    assert ("request", "c" * 30, "pod") in result_cache._REMEMBERED
    remembered_hash("request", "d" * 60, "pod")  # past 100 characters of keys: the older ones are forgotten
    assert list(result_cache._REMEMBERED) == [("request", "d" * 60, "pod")]
    assert remembered_hash("request", "c" * 30, "pod") == content_hash("request", "c" * 30, "pod")
