"""Instruction counts of the batch benches' figures under callgrind: deterministic, where wall clock drifts.

Wall-clock figures on a shared machine move by tens of percent from one minute to the next; the number of
instructions one measured call executes does not. The measured call is run once and twice in two processes
under `valgrind --tool=callgrind` (after the same warm-up, `PYTHONHASHSEED=0`), and the difference is its
count: start-up, imports and warm-up cancel out.

(a) one `simulate_many` of batch_bench's 300 requests over its 3 simple policies, the results kept;
(b) `run_batch` over 1,000 of its Deployments through its 10 policies;
(c) `kyverno_batch_bench.py`'s throughput figure on 300 of its objects (`run_chunk`, Kyverno policies).

Run:  .venv/bin/python bench/batch_instructions.py [a] [b] [c]   (needs valgrind; about 1, 3 and 3 minutes)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from callgrind import measured_part  # noqa: E402


KYVERNO_OBJECTS = 300
LABELS = {
    "a": "simulate_many, 300 requests",
    "b": "run_batch, 1,000 objects",
    "c": f"run_chunk, {KYVERNO_OBJECTS} objects through kyverno_batch_bench's 20 Kyverno policies and 3 VAPs",
}


def measure(which: str, reps: int) -> None:
    """The workload itself, run inside callgrind: the warm-up, then `reps` measured calls."""
    import batch_bench as bench

    from evaluator.cli.batch import run_batch
    from evaluator.simulation import Simulation, simulate_many

    if which == "c":
        from evaluator.batch import run_chunk
        from tests.evaluator.batch.kyverno_corpus import objects as corpus_objects
        from tests.evaluator.batch.kyverno_corpus import policy_set

        documents, batch = policy_set(), corpus_objects(KYVERNO_OBJECTS)
        run_chunk(documents, batch[:1])  # compiled, as in kyverno_batch_bench's untimed warm-up
        for _ in range(reps):
            run_chunk(documents, batch)
    elif which == "a":
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


def command_for(which: str) -> Callable[[int], list[str]]:
    return lambda reps: [sys.executable, __file__, "--measure", which, str(reps)]


def main(argv: list[str]) -> int:
    if argv[:1] == ["--measure"]:
        measure(argv[1], int(argv[2]))
        return 0
    for which in argv or list(LABELS):
        if which not in LABELS:
            raise SystemExit(f"unknown figure {which!r}: one of {', '.join(LABELS)}")
        print(f"({which}) {LABELS[which]}: {measured_part(command_for(which), ROOT):,} instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
