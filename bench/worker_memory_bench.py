"""Evaluation workers' resident memory under repeated load, with and without recycling.

Three load rounds, each ROOMS rooms x EDITS edits: every room its own policy set (its own name, expression and
message, so each is compiled and cached on its own, as distinct rooms' are) evaluated with SAMPLES sample
requests through the supervised pool (`jobs.evaluate_texts`, keyed by room as the live room sends them).
After each round (the pool idle) the script reads each worker's resident memory (/proc) and how often it was
recycled. Two configurations, each with a fresh pool of PROCESSES workers:

* `unbounded`: PLAYGROUND_EVALUATION_MAX_JOBS=0, PLAYGROUND_EVALUATION_RECYCLE_MB=0 (no recycling);
* `recycled`: the settings' defaults (or --recycle-mb / --max-jobs).

Every evaluation must succeed (a recycled worker answers the job that crossed its limit first). Run:

    .venv/bin/python bench/worker_memory_bench.py [--rooms 1000] [--edits 3] [--quick] [--json]

Target: with recycling, every worker's resident memory after each round stays at most the recycle limit plus
MAX_OVERSHOOT_MB (what one evaluation may add before the check), and no evaluation fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROCESSES = 2
SAMPLES = 4
MAX_OVERSHOOT_MB = 64
IN_FLIGHT = 64  # evaluations submitted before waiting for them


def _policy(room: int, edit: int) -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: limit-{room}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: limit
    expression: "{room % 17 + edit + 1}"
  validations:
  - expression: "object.spec.replicas <= variables.limit && object.metadata.name.startsWith('web')"
    messageExpression: "'room {room}: ' + string(object.spec.replicas) + ' > ' + string(variables.limit)"
  - expression: "object.spec.template.spec.containers.all(c, c.image.contains(':') || c.name != 'room{room}')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: limit-{room}-binding
spec:
  policyName: limit-{room}
  validationActions: [Deny]
"""


def _request(room: int, sample: int) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{room}-{sample}
  namespace: default
spec:
  replicas: {sample * 7 % 23}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: room{room}, image: "nginx:{sample}"}}]
"""


def _setup() -> None:
    tmp = tempfile.mkdtemp(prefix="worker-memory-bench-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
    os.environ.setdefault("SECRET_KEY", "worker-memory-bench")
    os.environ["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    import django

    django.setup()


def _resident_mb(pid: int) -> float:
    from playground.evaluation.pool import resident_mb

    return round(resident_mb(pid) or 0.0, 1)


def _settle(futures: list) -> int:
    """Wait for the evaluations; how many failed."""
    failures = 0
    for future in futures:
        try:
            errors, answers = future.result(timeout=120)
            failures += bool(any(errors["document_errors"]) or errors["general_errors"] or len(answers) != SAMPLES)
        except Exception as error:
            print(f"evaluation failed: {type(error).__name__}: {error}", file=sys.stderr)
            failures += 1
    return failures


def run_configuration(name: str, max_jobs: int, recycle_mb: int, rooms: int, edits: int, rounds: int) -> dict:
    from django.conf import settings

    from playground.evaluation import jobs, pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = PROCESSES
    settings.PLAYGROUND_EVALUATION_MAX_JOBS = max_jobs
    settings.PLAYGROUND_EVALUATION_RECYCLE_MB = recycle_mb
    assert pool.wait_until_started()
    start = [w["residentMb"] for w in pool.health()["workers"]]
    results = []
    failures = 0
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        evaluations = 0
        futures: list = []
        for edit in range(edits):
            for room in range(rooms):
                texts = [_policy(room + number * rooms, edit)]  # each round its own rooms: caches keep growing
                samples = [_request(room, s) for s in range(SAMPLES)]
                futures.append(pool.submit(jobs.evaluate_texts, texts, samples, key=f"room-{room + number * rooms}"))
                if len(futures) >= IN_FLIGHT:  # below the pool's queue bound: no 503 busy
                    failures += _settle(futures)
                    evaluations += len(futures)
                    futures = []
        failures += _settle(futures)
        evaluations += len(futures)
        seconds = time.perf_counter() - started
        assert pool.wait_until_started()
        workers = pool.health()["workers"]
        results.append(
            {
                "round": number,
                "evaluations": evaluations,
                "seconds": round(seconds, 1),
                "worker_rss_mb": [_resident_mb(w["pid"]) for w in workers],
                "recycled": [w["recycled"] for w in workers],
                "server_rss_mb": _resident_mb(os.getpid()),
            }
        )
    pool.shutdown()
    return {
        "configuration": name,
        "max_jobs": max_jobs,
        "recycle_mb": recycle_mb,
        "start_rss_mb": start,
        "rounds": results,
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recycle-mb", type=int, default=None, help="default: PLAYGROUND_EVALUATION_RECYCLE_MB")
    parser.add_argument("--max-jobs", type=int, default=None, help="default: PLAYGROUND_EVALUATION_MAX_JOBS")
    parser.add_argument("--quick", action="store_true", help="60 rooms")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    _setup()
    from django.conf import settings

    rooms = 60 if args.quick else args.rooms
    recycle_mb = settings.PLAYGROUND_EVALUATION_RECYCLE_MB if args.recycle_mb is None else args.recycle_mb
    max_jobs = settings.PLAYGROUND_EVALUATION_MAX_JOBS if args.max_jobs is None else args.max_jobs
    configurations = [
        run_configuration("unbounded", 0, 0, rooms, args.edits, args.rounds),
        run_configuration("recycled", max_jobs, recycle_mb, rooms, args.edits, args.rounds),
    ]
    recycled = configurations[1]
    ceiling = recycle_mb + MAX_OVERSHOOT_MB if recycle_mb else float("inf")
    met = all(c["failures"] == 0 for c in configurations) and all(
        rss <= ceiling for r in recycled["rounds"] for rss in r["worker_rss_mb"]
    )
    target = (
        f"target: recycled workers stay at most {recycle_mb} + {MAX_OVERSHOOT_MB} MiB after every round and no "
        f"evaluation fails -- {'met' if met else 'MISSED'}"
    )
    if args.json:
        print(json.dumps({"rooms": rooms, "edits": args.edits, "configurations": configurations, "target": target}))
    else:
        print(f"{rooms} rooms x {args.edits} edits x {SAMPLES} samples a round, {PROCESSES} workers")
        for c in configurations:
            print(
                f"{c['configuration']:>10} (max jobs {c['max_jobs']}, recycle {c['recycle_mb']} MiB): "
                f"start {c['start_rss_mb']} MiB, failures {c['failures']}"
            )
            for r in c["rounds"]:
                print(
                    f"    round {r['round']}: {r['evaluations']} evaluations in {r['seconds']} s, worker RSS "
                    f"{r['worker_rss_mb']} MiB, recycled {r['recycled']}, server RSS {r['server_rss_mb']} MiB"
                )
        print(target)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
