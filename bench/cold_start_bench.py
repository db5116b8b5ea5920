"""Cold start: one `python -m evaluator simulate -f policy.yaml -f request.yaml` process against a bare Python
process reading the same YAML (target: the simulate at most 4x the bare process).

Usage:  python bench/cold_start_bench.py [--quick] [--runs N] [--tree DIR] [--json FILE] [--instructions]

Each run is a new process (wall time from spawn to exit, medians of N runs, the two commands alternating).
The policy is the gallery's first example (a ValidatingAdmissionPolicy with one rule, its binding) and the
request a 7-replica Deployment (denied: exit status 1). Before timing, one run of each command with
bytecode writing allowed compiles the modules as an installed package has them, and fills the disk caches
(the CEL parser, the dataclasses' compiled methods) in a temporary directory (`ADMISSION_PLAYGROUND_CACHE_DIR`);
a run with an empty cache directory is reported apart as "first ever run" (nothing cached yet). `--tree DIR` runs the command from another checkout (e.g. an exported
base commit) to compare before and after on the same machine. `--instructions` also counts the instructions
of one run of each command under callgrind (needs valgrind): deterministic, where a loaded machine's wall
clock is not (the ratio of the counts is close to the ratio of quiet-machine times).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from callgrind import instructions

TARGET_RATIO = 4.0

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be at most 5, got ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
"""

REQUEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 7
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
"""

BARE = "import sys, yaml\nfor p in sys.argv[1:]:\n    list(yaml.safe_load_all(open(p)))\n"


def timed(command: list[str], cwd: Path, env: dict[str, str], expect: int) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != expect:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}, expected {expect}:\n{done.stderr}")
    return elapsed * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="7 runs instead of 21")
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--instructions", action="store_true", help="also count instructions under callgrind")
    args = ap.parse_args(argv)
    runs = args.runs or (7 if args.quick else 21)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        policy, request = folder / "policy.yaml", folder / "request.yaml"
        policy.write_text(POLICY)
        request.write_text(REQUEST)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["ADMISSION_PLAYGROUND_CACHE_DIR"] = str(folder / "cache")
        simulate = [sys.executable, "-m", "evaluator", "simulate", "-f", str(policy), "-f", str(request)]
        bare = [sys.executable, "-c", BARE, str(policy), str(request)]
        timed(bare, args.tree, env, 0)
        timed(simulate + ["-o", "json"], args.tree, env, 1)  # bytecode written; the parser not cached yet:
        env["ADMISSION_PLAYGROUND_CACHE_DIR"] = str(folder / "cache-first")  # a first run with nothing cached
        first = timed(simulate, args.tree, env, 1)
        env["ADMISSION_PLAYGROUND_CACHE_DIR"] = str(folder / "cache")
        simulate_ms, bare_ms = [], []
        for _ in range(runs):
            bare_ms.append(timed(bare, args.tree, env, 0))
            simulate_ms.append(timed(simulate, args.tree, env, 1))
        counts = (
            (instructions(bare, args.tree, env), instructions(simulate, args.tree, env, expect=1))
            if args.instructions
            else None
        )
    cold, base = statistics.median(simulate_ms), statistics.median(bare_ms)
    ratio = cold / base
    print(f"tree: {args.tree}   runs: {runs}   python: {sys.version.split()[0]}")
    print("| command | median (ms) | min (ms) |")
    print("| --- | --- | --- |")
    print(f"| bare python reading the YAML | {base:.1f} | {min(bare_ms):.1f} |")
    print(f"| simulate -f policy.yaml -f request.yaml | {cold:.1f} | {min(simulate_ms):.1f} |")
    print(f"| simulate, first ever run (nothing cached) | {first:.1f} | |")
    if counts is not None:
        print(
            f"| instructions (callgrind): bare / simulate | {counts[0]:,} | {counts[1]:,} ({counts[1] / counts[0]:.2f}x) |"
        )
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    steady = min(simulate_ms) / min(bare_ms)  # under load a median moves more than a minimum
    print(
        f"target: cold simulate <= {TARGET_RATIO:g}x the bare process — {verdict} ({ratio:.2f}x; minimums {steady:.2f}x)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "bare_ms": base,
                    "simulate_ms": cold,
                    "first_run_ms": first,
                    "ratio": ratio,
                    "ratio_of_minimums": steady,
                    "instructions": counts,
                },
                indent=2,
            )
        )
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
