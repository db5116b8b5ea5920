"""The Kyverno engine's memos: a result is kept with the very object (or short string) it was made from, and
made again when the object is another one, has changed its stamp, or the string is long."""

from evaluator.cel.memo import remembered_when_short
from evaluator.policies.kyverno import memos


def _counting():
    calls = []

    def make(owner, *args):
        calls.append((owner, args))
        return len(calls)

    return make, calls


def test_a_map_or_list_is_worked_out_once_and_anything_else_each_time():
    make, calls = _counting()
    memo: memos.Memo = {}
    rule = {"name": "r"}
    assert memos.remembered(rule, make, memo) == memos.remembered(rule, make, memo) == 1
    assert memos.remembered("text", make, memo) == 2 and memos.remembered("text", make, memo) == 3
    assert len(calls) == 3 and len(memo) == 1


def test_an_equal_but_other_object_is_not_taken_for_the_kept_one():
    make, calls = _counting()
    memo: memos.Memo = {}
    first = {"a": 1}
    memos.remembered(first, make, memo)
    memo[id(first)] = ({"a": 1}, "stale", None)  # an entry left by an object whose id was since reused
    assert memos.remembered(first, make, memo) == 2


def test_the_key_holds_what_else_the_result_depends_on_and_args_reach_make():
    make, calls = _counting()
    memo: memos.Memo = {}
    policy = {"spec": {}}
    assert memos.remembered_under((id(policy), "Pod"), policy, make, memo, "Pod") == 1
    assert memos.remembered_under((id(policy), "Deployment"), policy, make, memo, "Deployment") == 2
    assert memos.remembered_under((id(policy), "Pod"), policy, make, memo, "Pod") == 1
    assert calls == [(policy, ("Pod",)), (policy, ("Deployment",))]


def test_a_changed_stamp_makes_it_again():
    make, _ = _counting()
    memo: memos.Memo = {}
    pattern = ["a"]
    assert memos.remembered_under(id(pattern), pattern, make, memo, stamp=len(pattern)) == 1
    pattern.append("b")
    assert memos.remembered_under(id(pattern), pattern, make, memo, stamp=len(pattern)) == 2
    assert memos.remembered_under(id(pattern), pattern, make, memo, stamp=len(pattern)) == 2


def test_a_full_memo_is_cleared_not_grown():
    make, _ = _counting()
    memo: memos.Memo = {}
    owners = [[i] for i in range(5)]
    for owner in owners:
        memos.remembered_under(id(owner), owner, make, memo, size=3)
    assert len(memo) <= 3


def test_a_short_string_is_read_once_and_a_long_one_each_time():
    reads = []

    @remembered_when_short(4, size=2)
    def read(text: str) -> int:
        """Its length."""
        reads.append(text)
        return len(text)

    assert read("abcd") == read("abcd") == 4 and reads == ["abcd"]
    assert read("abcde") == read("abcde") == 5 and reads == ["abcd", "abcde", "abcde"]
    assert read.__doc__ == "Its length." and read.cache_info().currsize == 1
    read("a"), read("b"), read("c")
    assert read.cache_info().currsize == 2  # bounded: the least recently used dropped
