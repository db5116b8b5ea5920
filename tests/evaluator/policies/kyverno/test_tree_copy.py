"""`deep_copy` gives what `copy.deepcopy` gives: independent maps and lists, shared parts still shared,
recursive parts still recursive, other values copied by `copy.deepcopy`."""

import copy
import datetime

import yaml

from evaluator.policies.kyverno.tree_copy import deep_copy


def test_maps_and_lists_are_new_and_equal():
    tree = {"spec": {"containers": [{"name": "c", "ports": [80, 443]}], "replicas": 2, "ok": True, "x": None}}
    out = deep_copy(tree)
    assert out == tree
    out["spec"]["containers"][0]["ports"].append(8080)
    out["spec"]["containers"].append({})
    assert tree["spec"]["containers"] == [{"name": "c", "ports": [80, 443]}]


def test_yaml_anchors_stay_shared_in_the_copy_as_with_deepcopy():
    tree = yaml.safe_load("a: &x {k: [1, {z: 1.5}]}\nb: *x\n")
    out = deep_copy(tree)
    assert out["a"] is out["b"] and out["a"] is not tree["a"]
    assert out == copy.deepcopy(tree)


def test_a_recursive_list_copies_as_a_recursive_list():
    tree: list = []
    tree.append(tree)
    out = deep_copy(tree)
    assert out is not tree and out[0] is out


def test_other_values_go_through_deepcopy():
    day = datetime.date(2020, 1, 1)
    blob = bytearray(b"hi")
    out = deep_copy({"day": day, "blob": blob, 1: "int key"})
    assert out == {"day": day, "blob": blob, 1: "int key"}
    assert out["blob"] is not blob
