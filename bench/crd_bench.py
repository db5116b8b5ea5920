"""CRD validation speed (issue 21): a 1,000-item custom resource against a 20-rule CRD, and the cost
estimation of a 200-rule CRD (the API server's create-time check). Medians of several rounds.

    python bench/crd_bench.py [rounds | --quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator import crd
from evaluator.crd.definition import check_schema

ITEM_RULES = [
    "self.name.size() <= 63",
    "self.port >= 1 && self.port <= 65535",
    "self.protocol in ['TCP', 'UDP']",
    "!has(self.host) || self.host.matches('^[a-z0-9.-]+$')",
    "self.weight >= 0",
    "self.tags.all(t, t.size() < 32)",
    "!has(self.host) || !self.host.startsWith('-')",
    "self.name.lowerAscii() == self.name",
    "self.weight <= 100",
    "size(self.tags) <= 8",
]
LIST_RULES = [
    "self.all(x, x.port > 0)",
    "self.exists(x, x.protocol == 'TCP')",
    "size(self) <= 1000",
    "self.map(x, x.weight).all(w, w <= 100)",
    "self.filter(x, x.protocol == 'UDP').size() <= 1000",
]
ROOT_RULES = [
    "self.spec.replicas >= 0",
    "self.spec.replicas <= 100",
    "self.metadata.name.size() > 0",
    "has(self.spec.items)",
    "self.spec.mode in ['a', 'b']",
]


def schema_20_rules() -> dict:
    item = {
        "type": "object",
        "required": ["name", "port", "protocol"],
        "x-kubernetes-validations": [{"rule": r} for r in ITEM_RULES],
        "properties": {
            "name": {"type": "string", "maxLength": 63},
            "port": {"type": "integer"},
            "protocol": {"type": "string", "enum": ["TCP", "UDP"]},
            "host": {"type": "string", "maxLength": 253},
            "weight": {"type": "integer"},
            "tags": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 31}},
        },
    }
    items = {
        "type": "array",
        "maxItems": 1000,
        "items": item,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "x-kubernetes-validations": [{"rule": r} for r in LIST_RULES],
    }
    return {
        "type": "object",
        "x-kubernetes-validations": [{"rule": r} for r in ROOT_RULES],
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "items": items,
                },
            }
        },
    }


def object_1000_items() -> dict:
    items = [
        {
            "name": f"item-{i}",
            "port": 1 + i % 60000,
            "protocol": "TCP" if i % 2 else "UDP",
            "host": f"h{i}.example.com",
            "weight": i % 100,
            "tags": ["a", "b"],
        }
        for i in range(1000)
    ]
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"replicas": 3, "mode": "a", "items": items},
    }


def schema_200_rules() -> dict:
    props = {}
    for i in range(40):
        props[f"f{i}"] = {
            "type": "array",
            "maxItems": 50,
            "items": {"type": "string", "maxLength": 64},
            "x-kubernetes-validations": [
                {"rule": "self.all(x, x.size() < 64)"},
                {"rule": "self.exists(x, x.startsWith('a'))"},
                {"rule": "size(self) <= 50"},
                {"rule": "self.map(x, x.size()).all(n, n > 0)"},
                {"rule": "self.all(x, x.matches('^[a-z]+$'))"},
            ],
        }
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


def median_ms(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--quick"]
    rounds = 1 if "--quick" in sys.argv else (int(args[0]) if args else 5)
    schema, obj = schema_20_rules(), object_1000_items()
    rules = sum(1 for _ in ITEM_RULES + LIST_RULES + ROOT_RULES)
    result = crd.validate(schema, obj, is_resource_root=True)  # warm: compiles the rules once
    assert result["errors"] == [], result["errors"][:3]
    validate_ms = median_ms(lambda: crd.validate(schema, obj, is_resource_root=True), rounds)
    big = schema_200_rules()
    assert check_schema(big) == []
    estimate_ms = median_ms(lambda: check_schema(big), rounds)
    print("| measure | rules | median (ms) |")
    print("| --- | --- | --- |")
    print(
        f"| validate a 1,000-item custom resource (runtime cost {10_000_000 - result['remainingBudget']:,}) "
        f"| {rules} | {validate_ms:.1f} |"
    )
    print(f"| CRD create-time check of a 200-rule schema (compile + cost estimation) | 200 | {estimate_ms:.1f} |")


if __name__ == "__main__":
    main()
