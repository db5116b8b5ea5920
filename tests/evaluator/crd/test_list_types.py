"""List-type set/map values in CRD rules: Kubernetes' unstructuredSetList/unstructuredMapList semantics."""

from __future__ import annotations

import pytest

from evaluator import crd

SETS = {
    "type": "object",
    "properties": {
        "s": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "t": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "l": {"type": "array", "items": {"type": "string"}},
    },
}
_ITEM = {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "string"}}}
_MAP_LIST = {"type": "array", "items": _ITEM, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]}
# Two map lists of one item type (items of different properties are different CEL types).
MAPS = {"type": "object", "properties": {"l": {"type": "array", "items": _MAP_LIST}}}


def _holds(schema: dict, obj: dict, rule: str) -> bool:
    result = crd.validate({**schema, "x-kubernetes-validations": [{"rule": rule}]}, obj)
    details = [e["detail"] for e in result["errors"]]
    assert all(d.startswith("failed rule") for d in details), details
    return not details


SET_OBJ = {"s": ["a", "b", "c"], "t": ["c", "a", "b"], "l": ["c", "a", "b"]}


@pytest.mark.parametrize(
    "rule, holds",
    [
        ("self.s == self.t", True),  # order ignored
        ("self.s == ['b', 'c', 'a']", True),
        ("self.s == ['a', 'b']", False),  # sizes differ
        ("self.s == ['a', 'b', 'd']", False),
        ("self.l == self.s", False),  # an atomic list on the left compares in order
        ("self.s + ['d', 'a'] == ['a', 'b', 'c', 'd']", True),  # union, the left's order kept
        ("(self.s + ['d', 'a'])[3] == 'd' && size(self.s + ['a']) == 3", True),
        ("self.l + ['a'] == ['c', 'a', 'b', 'a']", True),  # atomic `+` concatenates
        ("type(self.s) == list && self.s.all(x, x in self.t)", True),
    ],
)
def test_set_lists(rule, holds):
    assert _holds(SETS, SET_OBJ, rule) is holds


MAP_OBJ = {"l": [[{"k": "a", "v": "1"}, {"k": "b", "v": "2"}], [{"k": "b", "v": "3"}, {"k": "c", "v": "4"}]]}


@pytest.mark.parametrize(
    "rule, holds",
    [
        ("self.l[0] == [self.l[0][1], self.l[0][0]]", True),  # order ignored, items compared by key
        ("self.l[0] == self.l[1]", False),
        # merge: b's value replaced in place, c appended
        ("self.l[0] + self.l[1] == [self.l[0][0], self.l[1][0], self.l[1][1]]", True),
        ("(self.l[0] + self.l[1]).map(i, i.k + i.v) == ['a1', 'b3', 'c4']", True),
        ("(self.l[0] + self.l[1])[1].v == '3' && size(self.l[0] + self.l[1]) == 3", True),
        ("self.l[0].exists(i, i.k == 'b' && i.v == '2')", True),
    ],
)
def test_map_lists(rule, holds):
    assert _holds(MAPS, MAP_OBJ, rule) is holds


def test_a_null_item_of_a_non_nullable_list_is_invalid_data_when_read():
    schema = {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}}}}
    result = crd.validate({**schema, "x-kubernetes-validations": [{"rule": "self.l[1] == 'x'"}]}, {"l": ["x", None]})
    assert [e["detail"] for e in result["errors"]] == [
        "invalid data, got null for schema with nullable=false evaluating rule: self.l[1] == 'x'"
    ]
    ok = crd.validate({**schema, "x-kubernetes-validations": [{"rule": "self.l[0] == 'x'"}]}, {"l": ["x", None]})
    assert ok["errors"] == []


def test_a_date_time_keeps_its_offset_in_string():
    schema = {"type": "object", "properties": {"t": {"type": "string", "format": "date-time"}}}
    rule = "string(self.t) == '2011-08-18T19:03:37.01+01:00' && self.t == timestamp('2011-08-18T18:03:37.01Z')"
    assert _holds(schema, {"t": "2011-08-18T19:03:37.01+01:00"}, rule)
