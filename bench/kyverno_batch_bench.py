"""Kyverno policies in a batch, PolicyReports of a large batch, and a large multi-document `simulate` input.

(a) throughput: 2,000 generated objects (Pods, Deployments, StatefulSets, Services in 35 namespaces, seeded)
through 20 kyverno/policies policies (the Pod Security baseline and restricted policies and three best
practices, vendored in tests/data/kyverno-policies) and 3 ValidatingAdmissionPolicies, on the batch path
(`evaluator.batch.run_chunk`). Compilation is untimed (one warm-up object). Figure: objects per CPU second
of this process, median of the rounds. Target: >= 1,000 objects/s.

(b) PolicyReports: what `batch --jobs 2 -o policyreport` does with 20,000 such objects: `run_parallel`
with 2 worker processes, then `write_policy_reports` into a byte counter. Figure: wall seconds of the
whole (evaluation and writing) and of the writing alone, the number of reports and the largest one in
bytes. Target: < 30 s and no report over 1 MiB.

(c) a 5 MB multi-document input: `simulate -f policies.yaml -f big.yaml -o json` where big.yaml holds
~5,400 Deployments as YAML documents, run as the CLI in a child process. Figure: CPU seconds (user +
system) of the child, median of the rounds, and its peak resident memory. Target: < 5 s. The same with
5 MB of ~44,500 tiny ConfigMaps (seeded): the per-document cost. Target: < 5 s.

Run:  .venv/bin/python bench/kyverno_batch_bench.py [--objects 2000] [--rounds 3] [--quick] [--json]
      [--skip-reports] [--skip-large]
Exit status 0 when every target measured is met, 1 when one is missed.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.batch import run_chunk  # noqa: E402
from tests.evaluator.batch.kyverno_corpus import objects, policy_set  # noqa: E402


def throughput(documents: list[dict], batch: list[dict], rounds: int) -> tuple[float, int]:
    run_chunk(documents, batch[:1])  # compile the set (cached per process), untimed
    times, denied = [], 0
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        rows = run_chunk(documents, batch)
        times.append(time.process_time() - start)
        denied = sum(1 for r in rows if not r["allowed"])
    return len(batch) / statistics.median(times), denied


class _Counter(io.TextIOBase):
    """A text sink that keeps each YAML document's size (documents split on `---` lines)."""

    def __init__(self) -> None:
        self.sizes: list[int] = [0]

    def write(self, text: str) -> int:
        for line in text.splitlines(keepends=True):
            if line == "---\n":
                self.sizes.append(0)
            else:
                self.sizes[-1] += len(line.encode())
        return len(text)


def reports(documents: list[dict], count: int, jobs: int) -> dict[str, Any]:
    from evaluator.batch import run_parallel, write_policy_reports

    batch = objects(count, seed=7)
    sink = _Counter()
    start = time.perf_counter()
    rows = run_parallel(documents, batch, jobs=jobs)
    middle = time.perf_counter()
    written = write_policy_reports(rows, documents, sink)
    end = time.perf_counter()
    sizes = [s for s in sink.sizes if s]
    return {
        "objects": count,
        "jobs": jobs,
        "seconds": round(end - start, 2),
        "writingSeconds": round(end - middle, 2),
        "reports": written,
        "largestBytes": max(sizes),
    }


def big_input(target: int = 5_000_000) -> str:
    """Deployments as multi-document YAML, about `target` bytes."""
    parts: list[str] = []
    size, seed = 0, 3
    while size < target:
        for obj in objects(2000, seed=seed):
            if obj["kind"] == "Deployment" and size < target:
                parts.append(yaml.safe_dump(obj, sort_keys=False))
                size += len(parts[-1]) + 4
        seed += 1
    return "---\n".join(parts)


def config_maps_input(target: int = 5_000_000, seed: int = 7) -> str:
    """Tiny ConfigMaps in 35 namespaces as multi-document YAML, about `target` bytes (~44,500 documents):
    the per-document cost of reading, locating and indexing, with little else to do per document."""
    import random

    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < target:
        parts.append(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{len(parts)}\n"
            f"  namespace: team-{rng.randrange(35)}\ndata:\n  key: value-{rng.randrange(10**6)}\n"
        )
        size += len(parts[-1]) + 4
    return "---\n".join(parts)


def large_input(documents: list[dict], rounds: int, text: str | None = None) -> dict[str, Any]:
    import subprocess
    import tempfile

    text = big_input() if text is None else text
    times, peak = [], 0
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "big.yaml"
        big.write_text(text)
        policies = Path(folder) / "policies.yaml"
        policies.write_text(yaml.safe_dump_all(documents, sort_keys=False))
        command = [sys.executable, "-m", "evaluator", "simulate", "-f", str(policies), "-f", str(big), "-o", "json"]
        for _ in range(rounds):
            child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
            _, _, usage = os.wait4(child.pid, 0)  # this child's own figures
            child.returncode = 0  # reaped here
            times.append(usage.ru_utime + usage.ru_stime)
            peak = max(peak, usage.ru_maxrss)
    return {
        "bytes": len(text.encode()),
        "documents": text.count("\n---\n") + 1,
        "seconds": round(statistics.median(times), 2),
        "peakKB": peak,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--report-objects", type=int, default=20000)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for the PolicyReports run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="300 objects, one round, 2,000 for the reports")
    parser.add_argument("--skip-reports", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.objects, args.rounds, args.report_objects = 300, 1, 2000
    documents = policy_set()
    # the child process first, while this one is small (a child's peak memory counts what it forked from)
    large = None if args.skip_large else large_input(documents, args.rounds)
    tiny = None if args.skip_large else large_input(documents, args.rounds, config_maps_input())
    rate, denied = throughput(documents, objects(args.objects), args.rounds)
    out: dict[str, Any] = {"objects": args.objects, "objectsPerSecond": round(rate, 1), "denied": denied}
    met = rate >= 1000
    if not args.skip_reports:
        out["policyReports"] = reports(documents, args.report_objects, args.jobs)
        met = met and out["policyReports"]["largestBytes"] <= 1 << 20 and out["policyReports"]["seconds"] < 30
    if large is not None and tiny is not None:
        out["largeInput"], out["largeInputOfConfigMaps"] = large, tiny
        met = met and large["seconds"] < 5 and tiny["seconds"] < 5
    if args.json:
        print(json.dumps(out, indent=2))
        return 0 if met else 1
    print(f"{args.objects} objects, 20 Kyverno policies + 3 VAPs, median of {args.rounds} rounds (CPU)")
    print(f"  {rate:,.0f} objects/s ({denied} denied); target >= 1,000")
    if "policyReports" in out:
        r = out["policyReports"]
        print(f"  PolicyReports of {r['objects']} objects (--jobs {r['jobs']}): {r['seconds']} s wall (writing")
        print(f"    {r['writingSeconds']} s), {r['reports']} reports, largest {r['largestBytes']:,} bytes;")
        print("    target < 30 s, <= 1 MiB")
    if "largeInput" in out:
        r = out["largeInput"]
        print(f"  simulate on a {r['bytes']:,}-byte input of {r['documents']} documents: {r['seconds']} CPU s,")
        print(f"    peak {r['peakKB'] / 1024:,.0f} MB; target < 5 s")
    if "largeInputOfConfigMaps" in out:
        r = out["largeInputOfConfigMaps"]
        print(f"  simulate on a {r['bytes']:,}-byte input of {r['documents']} ConfigMaps: {r['seconds']} CPU s,")
        print(f"    peak {r['peakKB'] / 1024:,.0f} MB; target < 5 s")
    print("targets:", "met" if met else "missed")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
