"""Kyverno mutate rules in a batch: the cost of 10 real mutate policies on top of a real validate set.

Issue 30's target: a 2,000-object batch with 10 mutate policies stays within 2x the time of the same batch
without them. Both runs take the batch path (`evaluator.batch.run_chunk`: `Simulation.run(trace=False,
full=False)` and a row per object) over the same 2,000 objects (Pods, Deployments, ConfigMaps, varied:
registries, hostPath and emptyDir volumes, labels, resources). The validate set is the 22 kyverno/policies
Pod Security and best-practice policies in tests/data/kyverno-policies; the mutate set is the 10
kyverno/policies mutate policies in tests/data/kyverno-mutate (add-labels, add-node-affinity,
add-safe-to-evict, replace-image-registry, add-default-resources, remove-hostpath-volumes,
add-imagepullsecrets, add-default-securitycontext, always-pull-images, add-tolerations), copied unchanged.
Compilation is untimed (one warm-up object per set). Figure: CPU seconds of this process, median of the
rounds, for each set, and their ratio; the mutated-object count shows the mutations ran.

Run:  .venv/bin/python bench/kyverno_mutate_bench.py [--objects 2000] [--rounds 3] [--quick] [--json]
Exit status 0 when the ratio is within 2x, 1 when it is not.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.batch import Summary, run_chunk  # noqa: E402

MUTATE = [
    "add-labels",
    "add-node-affinity",
    "add-safe-to-evict",
    "replace-image-registry",
    "add-default-resources",
    "remove-hostpath-volumes",
    "add-imagepullsecrets",
    "add-default-securitycontext",
    "always-pull-images",
    "add-tolerations",
]


def validate_set() -> list[dict]:
    files = sorted((ROOT / "tests" / "data" / "kyverno-policies").rglob("*.yaml"))
    return [d for f in files for d in yaml.safe_load_all(f.read_text()) if d]


def mutate_set() -> list[dict]:
    folder = ROOT / "tests" / "data" / "kyverno-mutate"
    return [d for name in MUTATE for d in yaml.safe_load_all((folder / name / f"{name}.yaml").read_text()) if d]


def pod_spec(i: int) -> dict[str, Any]:
    registry = ("docker.io/", "ghcr.io/acme/", "", "quay.io/org/")[i % 4]
    container: dict[str, Any] = {"name": "app", "image": f"{registry}app-{i % 13}:1.{i % 7}"}
    if i % 3 == 0:
        container["resources"] = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}
    # every Pod of a cluster dump has the service account token volume the ServiceAccount plugin adds
    spec: dict[str, Any] = {"containers": [container], "volumes": [{"name": "kube-api-access", "projected": {}}]}
    if i % 5 == 0:
        spec["volumes"].append({"name": "host", "hostPath": {"path": "/var/log"}})
    elif i % 5 == 1:
        spec["volumes"].append({"name": "scratch", "emptyDir": {}})
    if i % 4 == 1:
        spec["containers"].append({"name": "sidecar", "image": f"busybox:1.{i % 5}"})
    return spec


def objects(count: int) -> list[dict]:
    out: list[dict] = []
    for i in range(count):
        namespace = ("default", "prod", "dev", "team-a")[i % 4]
        labels = {"app": f"app-{i % 13}"} if i % 2 else {}
        if i % 10 < 5:
            out.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"pod-{i}", "namespace": namespace, "labels": labels},
                    "spec": pod_spec(i),
                }
            )
        elif i % 10 < 9:
            out.append(
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": f"deploy-{i}", "namespace": namespace, "labels": labels},
                    "spec": {
                        "replicas": 1 + i % 3,
                        "selector": {"matchLabels": {"app": f"app-{i}"}},
                        "template": {"metadata": {"labels": {"app": f"app-{i}"}}, "spec": pod_spec(i)},
                    },
                }
            )
        else:
            out.append(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": f"cm-{i}", "namespace": namespace},
                    "data": {"k": str(i)},
                }
            )
    return out


def timed(documents: list[dict], batch: list[dict], rounds: int) -> tuple[float, list[dict]]:
    run_chunk(documents, batch[:1])  # compile the set (cached per process), untimed
    times, rows = [], []
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        rows = run_chunk(documents, batch)
        times.append(time.process_time() - start)
    return statistics.median(times), rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="200 objects, one round")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.objects, args.rounds = 200, 1
    batch = objects(args.objects)
    validate = validate_set()
    mutate = mutate_set()
    assert len(mutate) == 10, len(mutate)
    without, rows_without = timed(validate, batch, args.rounds)
    with_mutate, rows_with = timed(validate + mutate, batch, args.rounds)
    summary = Summary.from_rows(rows_with).as_dict()["policies"]
    mutated = {k: v.get("mutated", 0) for k, v in summary.items() if v.get("mutated")}
    mutated_objects = sum(1 for r in rows_with if any(o["outcome"] == "mutated" for o in r["policies"]))
    report = {
        "objects": args.objects,
        "validatePolicies": len(validate),
        "mutatePolicies": len(mutate),
        "secondsWithout": round(without, 3),
        "secondsWith": round(with_mutate, 3),
        "ratio": round(with_mutate / without, 3),
        "mutatedObjects": mutated_objects,
        "mutatedPerPolicy": mutated,
        "deniedWithout": sum(1 for r in rows_without if not r["allowed"]),
        "deniedWith": sum(1 for r in rows_with if not r["allowed"]),
    }
    met = report["ratio"] <= 2
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if met else 1
    print(f"{args.objects} objects, {len(validate)} validate policies, median of {args.rounds} rounds (CPU s)")
    print(f"  without mutate policies: {without:.2f} s  ({report['deniedWithout']} denied)")
    print(f"  with 10 mutate policies: {with_mutate:.2f} s  ({report['deniedWith']} denied)")
    print(f"  {mutated_objects} objects mutated")
    for name, count in sorted(mutated.items()):
        print(f"    {name}: mutated {count}")
    print(f"target: with / without <= 2x: {report['ratio']:.2f}x: {'met' if met else 'missed'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
