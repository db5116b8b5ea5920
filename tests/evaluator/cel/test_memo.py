"""The bounded memo (evaluator/cel/memo.py): `remember` makes a value once per key, and `exact_key` tells apart
what equality does not."""

from __future__ import annotations

from evaluator.cel.memo import EXACT_KEY_MAX_BYTES, RecentMemo, exact_key


def test_remember_makes_once_per_key_keeps_the_most_recent_and_never_keeps_a_none_key():
    memo: RecentMemo[list] = RecentMemo(2)
    made: list[str] = []

    def make(name: str):
        return lambda: made.append(name) or [name]

    first = memo.remember("a", make("a"))
    assert memo.remember("a", make("a again")) is first and made == ["a"]
    memo.remember("b", make("b"))
    memo.remember("c", make("c"))  # over the bound: "a", the least recently used, goes
    memo.remember("a", make("a later"))
    assert made == ["a", "b", "c", "a later"]
    memo.remember(None, make("unkeyed"))
    memo.remember(None, make("unkeyed"))
    assert made[-2:] == ["unkeyed", "unkeyed"] and len(memo) == 2


def test_exact_key_tells_apart_what_equality_does_not_and_refuses_what_pickle_refuses():
    assert exact_key({"a": 1, "b": 2}) != exact_key({"b": 2, "a": 1})  # key order (YAML keeps it)
    assert exact_key([1]) != exact_key([1.0]) and exact_key([0.0]) != exact_key([-0.0])
    assert exact_key({"x": [1, "y"]}) == exact_key({"x": [1, "y"]})
    assert exact_key({"f": lambda: 1}) is None
    assert exact_key("x" * (EXACT_KEY_MAX_BYTES - 100)) is not None
    assert exact_key("x" * EXACT_KEY_MAX_BYTES) is None  # too big to keep


def test_a_weighed_memo_keeps_its_keys_under_the_weight_bound_least_recently_used_out():
    memo: RecentMemo[str] = RecentMemo(10, max_weight=10, weigh=len)
    memo.keep("aaaa", "1")
    memo.keep("bbbb", "2")
    assert memo.find("aaaa") == "1"  # now the most recently used
    memo.keep("cccc", "3")  # 12 > 10: "bbbb", the least recently used, goes
    assert memo.keys() == ["aaaa", "cccc"] and memo.weight == 8
    memo.keep("aaaa", "1 again")  # kept again: weighed once
    assert memo.weight == 8 and memo.keys() == ["cccc", "aaaa"]
    memo.keep("x" * 11, "too big")  # heavier than the bound alone: nothing else is kept, nor it
    assert len(memo) == 0 and memo.weight == 0
    memo.keep("dd", "4")
    memo.clear()
    assert memo.weight == 0 and memo.keys() == []
