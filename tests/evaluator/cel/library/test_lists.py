"""Kubernetes' lists library and cel-go's ext.Lists v3: semantics, exact errors, dispatch, costs."""

from __future__ import annotations

import pytest

from evaluator.cel import CompileError, CostLimitError
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library import lists as L
from evaluator.cel.registry import REGISTRY
from evaluator.cel.values import Duration, Timestamp, UInt
from tests.evaluator.cel.library.helpers import check_k8s_library_case, error_of, k8s_library_cases, run


# --- Kubernetes lists ------------------------------------------------------------------------------
def test_is_sorted():
    assert L.is_sorted([1, 2, 2, 3]) and L.is_sorted([]) and L.is_sorted(["a"])
    assert not L.is_sorted([2.0, 1.0])
    assert L.is_sorted([1, 1.5, UInt(2)])  # cross-type numeric comparison
    with pytest.raises(CELEvalError, match="no such overload"):
        L.is_sorted([[1], [2]])


def test_sum_uses_the_elements_type_and_the_declared_zero():
    assert L.list_sum([1, 3]) == 4 and type(L.list_sum([1, 3])) is int
    assert L.list_sum([1.0, 2.0]) == 3.0 and type(L.list_sum([1.0, 2.0])) is float
    assert L.list_sum([UInt(1), UInt(2)]) == 3 and type(L.list_sum([UInt(1), UInt(2)])) is UInt
    assert L.list_sum([Duration(60 * 10**9), Duration(10**9)]) == Duration(61 * 10**9)
    assert L.list_sum([]) == 0 and type(L.list_sum([])) is int
    with pytest.raises(CELEvalError):
        L.list_sum([1, 2.0])  # Int.Add(Double): no such overload
    with pytest.raises(CELEvalError, match="overflow"):
        L.list_sum([2**62, 2**62])


def test_min_max():
    assert L.list_min([3, 1, 2]) == 1 and L.list_max([3, 1, 2]) == 3
    assert L.list_max(["a", "c", "b"]) == "c"
    assert L.list_min([Timestamp(5), Timestamp(2)]) == Timestamp(2)
    assert L.list_min([2, 1.5]) == 1.5  # cross-type comparison picks the double
    for fn, name in ((L.list_min, "min"), (L.list_max, "max")):
        with pytest.raises(CELEvalError) as info:
            fn([])
        assert info.value.message == f"{name} called on empty list"


def test_index_of_uses_cel_equality():
    assert L.index_of([1, 2, 2, 3], 2) == 1 and L.last_index_of([1, 2, 2, 3], 2) == 2
    assert L.index_of([[1], [2]], [1]) == 0
    assert L.index_of([1.0], 1) == 0  # heterogeneous equality
    assert L.index_of([], "x") == -1 and L.last_index_of([{"a": 1}], {"a": 2}) == -1


def test_includes_version_1():
    assert L.includes([1, 2, 3], 2) and not L.includes([1, 2, 3], 4)
    assert L.includes("model-a", "model-a") and not L.includes("model-a", "model-b")


# --- ext.Lists v3 -----------------------------------------------------------------------------------
def test_slice_errors():
    assert L.slice_([1, 2, 3, 4], 1, 3) == [2, 3]
    for args, message in [
        ((0, 10), "cannot slice(0, 10), list is length 4"),
        ((-5, 10), "cannot slice(-5, 10), negative indexes not supported"),
        ((3, 1), "cannot slice(3, 1), start index must be less than or equal to end index"),
    ]:
        with pytest.raises(CELEvalError) as info:
            L.slice_([1, 2, 3, 4], *args)
        assert info.value.message == message


def test_flatten():
    assert L.flatten([[1], [2, [3]], 4]) == [1, 2, [3], 4]
    assert L.flatten([[1], [2, [3, [4]]]], 2) == [1, 2, 3, [4]]
    assert L.flatten([[1]], 0) == [[1]]
    with pytest.raises(CELEvalError, match="^level must be non-negative$"):
        L.flatten([[1]], -1)


def test_sort_and_sort_by_keys():
    assert L.sort([3, 1, 2]) == [1, 2, 3]
    assert L.sort(["b", "a"]) == ["a", "b"]
    assert L.sort_by_keys(["foo", "bar", "baz"], [3, 1, 2]) == ["bar", "baz", "foo"]
    assert L.sort_by_keys(["a", "b", "c"], [1, 0, 1]) == ["b", "a", "c"]  # equal keys keep their order
    for items, keys, message in [
        (
            [1, 2],
            [1],
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
            "but got 2 and 1 elements respectively",
        ),
        ([1, 2], [[1], [2]], "list elements must be comparable"),
        ([1, 2], [1, 2.0], "list elements must have the same type"),
    ]:
        with pytest.raises(CELEvalError) as info:
            L.sort_by_keys(items, keys)
        assert info.value.message == message


def test_distinct_reverse_range():
    assert L.distinct([-2, 5, -2, 1, 1, 5, -2, 1]) == [-2, 5, 1]
    assert L.distinct([1, 1.0, UInt(1)]) == [1]
    assert L.reverse([1, 2, 3]) == [3, 2, 1]
    assert L.lists_range(4) == [0, 1, 2, 3] and L.lists_range(-1) == []


def test_range_beyond_the_cost_limit_stops_evaluation():
    with pytest.raises(CostLimitError):
        run("false || lists.range(n).size() > 0", n=5_000_000)


# --- declarations, dispatch and costs ----------------------------------------------------------------
def test_declarations():
    sigs = {
        o.signature()
        for n in (
            "isSorted",
            "sum",
            "min",
            "max",
            "indexOf",
            "lastIndexOf",
            "includes",
            "slice",
            "flatten",
            "sort",
            "@sortByAssociatedKeys",
            "distinct",
            "reverse",
            "lists.range",
        )
        for o in REGISTRY.overloads(n)
    }
    for s in (
        "list(duration).sum() -> duration",
        "list(timestamp).min() -> timestamp",
        "list(A).indexOf(A) -> int",
        "dyn.includes(dyn) -> bool",
        "list(T).slice(int, int) -> list(T)",
        "list(dyn).flatten(int) -> list(dyn)",
        "list(list(T)).flatten() -> list(T)",
        "list(bytes).sort() -> list(bytes)",
        "list(T).@sortByAssociatedKeys(list(string)) -> list(T)",
        "lists.range(int) -> list(int)",
    ):
        assert any(
            x.replace("google.protobuf.Duration", "duration").replace("google.protobuf.Timestamp", "timestamp") == s
            for x in sigs
        ), s


def _cost(name: str, args: tuple, result=None) -> int:
    overload = next(o for o in REGISTRY.overloads(name) if o.accepts(args))
    return overload.cost(args, result)


def test_costs():
    assert _cost("sum", ([1, 2, 3],)) == 3  # Kubernetes traversalCost: 1 per element
    assert _cost("indexOf", (["a" * 30, "b" * 30], "x")) == 6  # floor(30 * 0.1) per string
    assert _cost("max", ([],)) == 0
    assert _cost("slice", ([1, 2, 3], 0, 2), [1, 2]) == 13  # cel-go tracker: size + call + list creation
    assert _cost("flatten", ([[1], [2]], 2), [1, 2]) == 15
    assert _cost("sort", ([3, 1, 2],)) == 29  # 9 * 2.0 + 11
    assert _cost("sort", (["b", "a"],)) == 19  # 4 * 2.1 + 11
    assert _cost("distinct", ([],)) == 11
    assert _cost("lists.range", (3,), [0, 1, 2]) == 14


# --- through CEL ------------------------------------------------------------------------------------
def test_through_cel():
    assert run("[].sum() == 0")
    assert run("dyn([1.0, 2.0]).sum()") == 3.0
    assert run("x.sum()", x=[]) == 0
    assert "min called on empty list" in error_of("x.min()", x=[])
    with pytest.raises(CompileError, match="found no matching overload for 'max' applied to 'list\\(map"):
        run("[{'a': 1}, {'b': 2}].max() == {'b': 2}")
    assert run("[3, 1, 2].sortBy(e, -e)") == [3, 2, 1]
    assert run("[1, 2, 3].includes(2)") is True


@pytest.mark.parametrize("case", k8s_library_cases("k8s lists", "cel-go ext.Lists v3"), ids=lambda c: c["id"])
def test_k8s_conformance(case):
    check_k8s_library_case(case)


# Orders produced by Go's sort.Slice over the indexes, as cel-go's @sortByAssociatedKeys sorts them.
GO_SORT_SLICE = [
    (
        [1, 2, 0, 1, 0, 2, 0, 1, 0, 1, 1, 1, 0, 0, 0, 2, 0, 2, 2, 1],
        [8, 14, 2, 16, 4, 13, 6, 12, 3, 9, 10, 11, 7, 0, 19, 5, 15, 17, 18, 1],
    ),
    (
        [
            1,
            0,
            0,
            1,
            1,
            0,
            0,
            1,
            0,
            1,
            0,
            1,
            0,
            1,
            1,
            1,
            0,
            1,
            1,
            0,
            1,
            1,
            0,
            0,
            0,
            0,
            1,
            0,
            0,
            1,
            1,
            0,
            0,
            1,
            1,
            0,
            1,
            1,
            0,
            1,
            0,
            1,
            0,
            1,
            1,
            0,
            1,
            0,
            1,
            1,
            0,
            1,
            0,
            1,
            0,
            1,
            1,
            1,
            1,
            1,
            0,
            0,
            0,
            0,
        ],
        [
            31,
            1,
            2,
            63,
            62,
            5,
            6,
            61,
            8,
            60,
            10,
            54,
            12,
            52,
            50,
            47,
            16,
            45,
            42,
            19,
            40,
            38,
            22,
            23,
            24,
            25,
            35,
            27,
            28,
            32,
            15,
            0,
            29,
            33,
            34,
            26,
            36,
            37,
            21,
            39,
            20,
            41,
            18,
            43,
            44,
            17,
            46,
            30,
            48,
            49,
            14,
            51,
            13,
            53,
            11,
            55,
            56,
            57,
            58,
            59,
            9,
            7,
            4,
            3,
        ],
    ),
]


@pytest.mark.parametrize("keys, order", GO_SORT_SLICE)
def test_ties_land_where_go_sort_slice_puts_them(keys, order):
    assert L.sort_by_keys(list(range(len(keys))), keys) == order
    assert L.sort(keys) == sorted(keys)


@pytest.mark.parametrize("keys, order", GO_SORT_SLICE)
def test_sort_by_macro_uses_go_order(keys, order):
    assert run("lists.range(size(k)).sortBy(i, k[i])", k=keys) == order
