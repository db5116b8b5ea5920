"""Type-checking speed: re-checking a typical policy after a one-character edit (issue 7: ≤ 20 ms).

Usage:  python bench/typecheck_bench.py [--quick] [--json FILE]

The policy: Deployments and ReplicaSets, a ConfigMap paramKind, 2 variables, a matchCondition, 4
validations (3 with a messageExpression) and an audit annotation: 13 expressions, each checked against
2 kinds for the server's status and again in the runtime environment for our diagnostics.

Metrics (ms per `evaluator.typecheck(policy)` call, median of single calls, GC off while timing):
  cold           first call in the process: loads the built-in schemas (kubernetes-validate, ~1.8 MB JSON)
  unchanged      the same policy again: everything comes from the per-(expression, types) cache
  edit validation one character changed in a validation expression (a new string every call)
  edit variable  one character changed in a variable: its type may change, so the expressions that
                 see `variables` are looked up again (re-checked only if the variable's type changed)
  edit message    one character changed in a messageExpression
  full re-check  the check cache cleared first: every expression parsed and checked again (the worst
                 case of an edit, e.g. one that changes a variable's type, which every expression sees)
Target: every edit ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGET_MS = 20.0

POLICY = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "bench"},
    "spec": {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["deployments", "replicasets"],
                }
            ]
        },
        "matchConditions": [{"name": "not-system", "expression": "!object.metadata.__namespace__.startsWith('kube-')"}],
        "variables": [
            {"name": "environment", "expression": "namespaceObject.metadata.labels['environment']"},
            {"name": "maxReplicas", "expression": "int(params.data['maxReplicas'])"},
        ],
        "validations": [
            {
                "expression": "object.spec.replicas <= variables.maxReplicas",
                "messageExpression": "'replicas must be <= ' + string(variables.maxReplicas)",
            },
            {
                "expression": "object.spec.template.spec.containers.all(c, c.image.startsWith(variables.environment + '.example.com/'))",
                "messageExpression": "'only ' + variables.environment + ' images are allowed in namespace ' + request.namespace",
            },
            {
                "expression": "object.spec.template.spec.containers.all(c, has(c.securityContext) && has(c.securityContext.runAsNonRoot) && c.securityContext.runAsNonRoot)"
            },
            {
                "expression": "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() < 64)",
                "messageExpression": "'label keys too long on ' + object.metadata.name",
            },
        ],
        "auditAnnotations": [{"key": "replicas", "valueExpression": "string(object.spec.replicas)"}],
    },
}


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _timed(fn) -> float:
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def _edits(path: tuple, n: int) -> list[dict]:
    """n policies, each the base policy with one character changed at `path` (all distinct)."""
    out = []
    for i in range(n):
        policy = copy.deepcopy(POLICY)
        node = policy["spec"]
        for key in path[:-1]:
            node = node[key]
        text = node[path[-1]]
        node[path[-1]] = text + " " * (i + 1)  # a distinct text each time, so nothing comes from the cache
        out.append(policy)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples (smoke run)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    n = 15 if args.quick else 60

    from evaluator.typechecking import typecheck

    results = {"cold": _median_ms([_timed(lambda: typecheck(POLICY))])}
    results["unchanged"] = _median_ms([_timed(lambda: typecheck(POLICY)) for _ in range(n)])
    cases = {
        "edit validation": ("validations", 1, "expression"),
        "edit variable": ("variables", 0, "expression"),
        "edit message": ("validations", 1, "messageExpression"),
    }
    for label, path in cases.items():
        policies = _edits(path, n)
        results[label] = _median_ms([_timed(lambda p=p: typecheck(p)) for p in policies])

    from evaluator.typechecking.checker import clear_cache

    def full() -> None:
        clear_cache()
        typecheck(POLICY)

    results["full re-check"] = _median_ms([_timed(full) for _ in range(n)])

    print("| case | ms per typecheck() |")
    print("|---|---|")
    for label, ms in results.items():
        print(f"| {label} | {ms:.2f} |")
    worst = max(v for k, v in results.items() if k.startswith("edit") or k == "full re-check")
    print(f"target: edit ≤ {TARGET_MS} ms — {'met' if worst <= TARGET_MS else 'NOT met'} (worst edit {worst:.2f} ms)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
