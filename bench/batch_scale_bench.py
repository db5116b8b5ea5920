"""Batch scale-out: 100,000 Deployments x 10 ValidatingAdmissionPolicies through `run_parallel` with 1, 2 and
4 worker processes, and the speed-up over one worker.

The policy set and the objects are bench/batch_bench.py's reference (its hot-path figure is one core; this
one is the whole batch: chunking, worker start-up and compile, pickling objects and rows, merging). One
worker runs in this process (run_parallel's `jobs=1`); N workers are a local process pool. Wall-clock
seconds, since the point is how much sooner the answer comes, and the CPU seconds of all processes (what
spreading the work costs). The machine's core count and load average are printed with the figures: N workers
cannot beat the number of idle cores, and on a loaded machine more workers only take a larger share. Run:

    .venv/bin/python bench/batch_scale_bench.py [--objects 100000] [--jobs 1,2,4] [--quick] [--json]

Target: spreading the work costs little -- the CPU seconds of all processes with 2 workers at most
MAX_CPU_OVERHEAD times one worker's (worker start-up, a compile per worker, rows sent back). The wall-clock
speed-up is reported, not judged: it depends on how many cores are idle (the load average says).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batch_bench import POLICIES, cluster_documents, deployments  # noqa: E402

from evaluator.batch import Summary, run_parallel  # noqa: E402


MAX_CPU_OVERHEAD = 1.25


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers, once shut down)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(documents: list[dict], objects: list[dict], jobs: int) -> dict:
    load_before = os.getloadavg()[0]
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    rows = run_parallel(documents, objects, jobs=jobs)
    wall = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu_started
    summary = Summary.from_rows(rows)
    return {
        "jobs": jobs,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),  # all processes: the cost of spreading the work (start-up, pickling rows)
        "objects_per_second": round(len(objects) / wall),
        "policy_decisions_per_second": round(len(objects) * len(POLICIES) / wall),
        "load_average_before": round(load_before, 2),
        "denied": summary.denied,
        "warned": summary.warned,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--objects", type=int, default=None, help="default 100,000 (--quick: 10,000)")
    parser.add_argument("--quick", action="store_true", help="10,000 objects")
    parser.add_argument("--jobs", default="1,2,4", help="comma-separated worker counts (default 1,2,4)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.objects = args.objects or (10_000 if args.quick else 100_000)
    documents = cluster_documents()
    objects = deployments(args.objects)
    run_parallel(documents, objects[:500], jobs=1)  # compile and warm caches once, as a long-lived worker has
    results = [measure(documents, objects, int(n)) for n in args.jobs.split(",")]
    base = results[0]["wall_seconds"]
    for result in results:
        result["speedup_vs_first"] = round(base / result["wall_seconds"], 2)
    assert len({(r["denied"], r["warned"]) for r in results}) == 1, "every worker count gives the same totals"
    by_jobs = {r["jobs"]: r for r in results}
    overhead = by_jobs[2]["cpu_seconds"] / by_jobs[1]["cpu_seconds"] if {1, 2} <= set(by_jobs) else None
    met = overhead is not None and overhead <= MAX_CPU_OVERHEAD
    target = (
        f"target: CPU seconds with 2 workers <= {MAX_CPU_OVERHEAD}x one worker's "
        + (f"(here {overhead:.2f}x)" if overhead is not None else "(not measured: --jobs needs 1 and 2)")
        + f" — {'met' if met else 'NOT met'}"
    )
    report = {
        "objects": args.objects,
        "policies": len(POLICIES),
        "cpu_count": os.cpu_count(),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "runs": results,
        "target": target,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if met else 1
    print(f"{args.objects:,} objects x {len(POLICIES)} policies, {os.cpu_count()} cores")
    for r in results:
        print(
            f"  {r['jobs']} worker(s): {r['wall_seconds']} s, {r['objects_per_second']:,} objects/s, "
            f"{r['policy_decisions_per_second']:,} decisions/s, x{r['speedup_vs_first']}, {r['cpu_seconds']} CPU s "
            f"(load average before: {r['load_average_before']})"
        )
    print(f"load average after: {report['load_average_after']}")
    print(target)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
