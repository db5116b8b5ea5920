"""Instruction counts of `batch_bench.py`'s two figures under callgrind: deterministic, where wall clock drifts.

Wall-clock figures on a shared machine move by tens of percent from one minute to the next; the number of
instructions one measured call executes does not. The measured call is run once and twice in two processes
under `valgrind --tool=callgrind` (after the same warm-up, `PYTHONHASHSEED=0`), and the difference is its
count: start-up, imports and warm-up cancel out.

(a) one `simulate_many` of batch_bench's 300 requests over its 3 simple policies, the results kept;
(b) `run_batch` over 1,000 of its Deployments through its 10 policies.

Run:  .venv/bin/python bench/batch_instructions.py [a] [b]      (needs valgrind; about 1 and 3 minutes)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def measure(which: str, reps: int) -> None:
    """The workload itself, run inside callgrind: the warm-up, then `reps` measured calls."""
    import batch_bench as bench

    from evaluator.cli.batch import run_batch
    from evaluator.simulation import Simulation, simulate_many

    if which == "a":
        documents = bench.simple_documents()
        requests = [{"operation": "CREATE", "object": obj} for obj in bench.deployments(bench.SIMPLE_OBJECTS, seed=11)]
        simulate_many(documents, requests)
        kept = [simulate_many(documents, requests) for _ in range(reps)]
        assert len(kept) == reps
    else:
        simulation = Simulation(bench.cluster_documents())
        objects = bench.deployments(1000)
        run_batch(simulation, objects[:200])
        for _ in range(reps):
            run_batch(simulation, objects)


def collected(which: str, reps: int) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                __file__,
                "--measure",
                which,
                str(reps),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0", "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench"},
            check=True,
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--measure"]:
        measure(argv[1], int(argv[2]))
        return 0
    for which in argv or ["a", "b"]:
        if which not in ("a", "b"):
            raise SystemExit(f"unknown figure {which!r}: a or b")
        once, twice = collected(which, 1), collected(which, 2)
        label = "simulate_many, 300 requests" if which == "a" else "run_batch, 1,000 objects"
        print(f"({which}) {label}: {twice - once:,} instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
