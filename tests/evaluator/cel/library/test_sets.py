"""cel-go's ext.Sets: containment with CEL's heterogeneous equality, declarations, costs."""

from __future__ import annotations

import pytest

from evaluator.cel import CompileError
from evaluator.cel.library.sets import sets_contains, sets_equivalent, sets_intersects
from evaluator.cel.registry import REGISTRY
from evaluator.cel.values import Duration, UInt
from tests.evaluator.cel.library.helpers import k8s_library_cases, run


def test_contains():
    assert sets_contains(["a", "b"], []) and sets_contains(["a", "b"], ["b", "b"])
    assert not sets_contains(["a", "b"], ["c"])
    assert sets_contains([1, 2], [2.0, UInt(1)])  # heterogeneous numeric equality
    assert sets_contains([{"a": 1}, [1, 2]], [[1.0, 2]])
    assert not sets_contains([], [None])


def test_equivalent_ignores_order_and_duplicates():
    assert sets_equivalent([], [])
    assert sets_equivalent(["c", "b", "a"], ["b", "c", "a", "a"])
    assert not sets_equivalent(["a", "b"], ["b", "c"])
    assert sets_equivalent([Duration(1)], [Duration(1)])


def test_intersects():
    assert sets_intersects(["a", "b"], ["b", "c"])
    assert not sets_intersects([], []) and not sets_intersects(["a"], [])
    assert sets_intersects([1.5, 2], [UInt(2)])


def test_declarations_and_costs():
    for name, factor in (("sets.contains", 1), ("sets.equivalent", 2), ("sets.intersects", 1)):
        (overload,) = REGISTRY.overloads(name)
        assert overload.signature() == f"{name}(list(T), list(T)) -> bool"
        assert overload.cost(([1, 2, 3], [1, 2]), True) == 1 + 6 * factor


def test_through_cel():
    assert run("sets.contains(x, ['b'])", x=["a", "b"]) is True
    assert run("sets.equivalent(dyn([1, 2]), [2.0, 1.0])") is True
    with pytest.raises(CompileError, match="found no matching overload for 'sets.contains'"):
        run("sets.contains([1], ['a'])")


@pytest.mark.parametrize("case", k8s_library_cases("cel-go ext.Sets"), ids=lambda c: c["id"])
def test_k8s_conformance(case):
    assert run(case["expr"], **case["bindings"]) == case["expect"]["value"]
