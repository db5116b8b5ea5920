"""The maxItems hint for a rule refused for its estimated cost is the exact boundary the API server applies."""

from __future__ import annotations

import copy

from evaluator import simulate
from evaluator.crd.definition import check_schema
from evaluator.crd.suggest import suggest_max_items

RULE = "openAPIV3Schema.properties[hosts].x-kubernetes-validations[0].rule"


def _schema(max_length=None):
    items = {"type": "string"} if max_length is None else {"type": "string", "maxLength": max_length}
    return {
        "type": "object",
        "properties": {
            "hosts": {
                "type": "array",
                "items": items,
                "x-kubernetes-validations": [{"rule": "self.all(x, self.exists_one(y, x == y))"}],
            }
        },
    }


def _refused(schema, max_items):
    bounded = copy.deepcopy(schema)
    bounded["properties"]["hosts"]["maxItems"] = max_items
    return any(e.field == RULE and e.type == "FieldValueForbidden" for e in check_schema(bounded, "openAPIV3Schema"))


def test_the_suggested_max_items_is_the_largest_the_api_server_accepts():
    schema = _schema(max_length=253)
    n = suggest_max_items(schema, RULE)
    assert n is not None and n > 1
    assert not _refused(schema, n)
    assert _refused(schema, n + 1)


def test_the_hint_comes_with_the_refusal_in_simulate():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "lists.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "lists", "singular": "list", "kind": "List", "listKind": "ListList"},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": _schema(max_length=253)}}
            ],
        },
    }
    result = simulate(
        [crd],
        {
            "operation": "CREATE",
            "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}},
        },
    )
    hints = [e["hint"] for e in result["errors"] if e.get("hint")]
    n = suggest_max_items(_schema(max_length=253), RULE)
    assert hints == [
        f"maxItems/maxProperties of {n} or less on every list and map without one brings this rule within budget"
    ]
