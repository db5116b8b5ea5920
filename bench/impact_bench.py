"""Policy-change impact over a generated audit log: 100,000 events (creates, updates and patches with old
objects, deletes, subresources, connects, reads, dry runs, impersonation; several users and groups) replayed
through a policy change that flips three policies from Audit to Deny and edits two expressions
(evaluator/batch/impact/sample_log.py), on 2 worker processes, as `admission-playground impact
--audit-log ... -j 2 -o markdown` runs it (the log streamed from a file).

Targets: the whole run (read, replay, compare, Markdown) under 60 s wall on 2 workers; the Markdown summary
under 60 KB; exact: a sample of the replayed requests run one by one through `simulate` gives the report's
answers (changed ones as listed, unchanged ones not listed; the report lists the first 20,000 changes, so
the sample is drawn from the requests up to the last one listed). Figures: wall seconds, CPU seconds of this
process and of the workers (the machine is shared: CPU time is the steadier figure), requests per wall and
per CPU second, this process's peak resident memory (the log is never held whole), the Markdown's size.

Run:  .venv/bin/python bench/impact_bench.py [--events 100000] [--jobs 2] [--sample 300] [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator import simulate  # noqa: E402
from evaluator.batch import impact  # noqa: E402
from evaluator.batch.impact.compare import side_of  # noqa: E402
from evaluator.batch.impact.sample_log import policy_change  # noqa: E402

WALL_TARGET = 60.0
MARKDOWN_TARGET = 60_000


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def _generate(path: str, events: int) -> None:
    code = (
        "import sys; from evaluator.batch.impact.sample_log import audit_log_lines; "
        "open(sys.argv[1], 'w').writelines(audit_log_lines(int(sys.argv[2])))"
    )
    root = str(Path(__file__).resolve().parents[1])
    subprocess.run(
        [sys.executable, "-c", code, path, str(events)], check=True, cwd=root, env={**os.environ, "PYTHONPATH": root}
    )


def _exact(base: list, head: list, path: str, report: impact.ImpactReport, sample: int) -> tuple[int, int]:
    """(requests checked, mismatches): a seeded sample of the log's requests through `simulate` alone."""
    total = report.summary.totals["requests"]
    if report.changes_omitted:  # changes past the last one kept are counted, not listed: sample before it
        total = report.changes[-1]["index"] + 1
    wanted = set(random.Random(35).sample(range(total), min(sample, total)))
    with open(path, "rb") as stream:
        chosen = [item for item in impact.AuditLog(stream) if item["index"] in wanted]
    changes = {c["index"]: c for c in report.changes}
    wrong = 0
    for item in chosen:
        before = side_of(simulate(base, item["request"]))
        after = side_of(simulate(head, item["request"]))
        change = changes.get(item["index"])
        if before == after:
            wrong += change is not None
        else:
            wrong += change is None or change["base"] != before or change["head"] != after
    return len(chosen), wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="5,000 events, a sample of 50")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.events, args.sample = 5_000, 50
    base, head = policy_change()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "audit.log")
        started = time.perf_counter()
        _generate(path, args.events)  # in a child process: its objects do not count in this one's memory
        generated = time.perf_counter() - started
        size = os.path.getsize(path)
        load = os.getloadavg()[0]
        cpu_before = _cpu()
        started = time.perf_counter()
        with open(path, "rb") as stream:
            log = impact.AuditLog(stream, "audit.log")
            report = impact.run_impact(base, head, log, jobs=args.jobs)
            report.source, report.input_errors = log.stats(), log.errors
        markdown = impact.render(report, "markdown")
        wall = time.perf_counter() - started
        cpu_after = _cpu()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before the sample is read again
        checked, wrong = _exact(base, head, path, report, args.sample)
    own, workers = cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1]
    summary = report.summary.as_dict()
    figures = {
        "events": args.events,
        "log_mb": round(size / 1e6, 1),
        "generate_s": round(generated, 2),
        "replayed": summary["requests"],
        "changed": summary["changed"],
        "newly_denied": summary["newlyDenied"],
        "jobs": args.jobs,
        "wall_s": round(wall, 2),
        "cpu_s_main": round(own, 2),
        "cpu_s_workers": round(workers, 2),
        "requests_per_wall_s": round(summary["requests"] / wall),
        "requests_per_cpu_s": round(summary["requests"] / max(own + workers, 1e-9)),
        "peak_rss_main_mb": round(peak / 1024),
        "markdown_bytes": len(markdown.encode()),
        "exact_checked": checked,
        "exact_mismatches": wrong,
        "load_average_before": round(load, 1),
    }
    targets = {
        f"wall < {WALL_TARGET:.0f} s on {args.jobs} workers": wall < WALL_TARGET,
        f"Markdown < {MARKDOWN_TARGET // 1000} KB": len(markdown.encode()) < MARKDOWN_TARGET,
        "exact against simulate on the sample": wrong == 0 and checked > 0,
    }
    if args.json:
        print(json.dumps({"figures": figures, "targets": targets}, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>22}: {value}")
        for name, met in targets.items():
            print(f"{'met' if met else 'NOT MET':>8}: {name}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
