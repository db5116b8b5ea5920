"""The compiled Kyverno path decides as the engine did before it: rows of a seeded corpus (the validate set
with and without 10 mutate policies) and the full `simulate` results (traces, patches, messages) of its first
objects, as digests against kyverno_digests.json (made with the engine that deep-copied every request; the
full results' digests re-made when other kinds' result keys joined them, on the tree just before the compiled
path landed, and equal after it)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from evaluator.batch import run_chunk
from evaluator.simulation import Simulation
from tests.evaluator.batch.kyverno_corpus import digest, mutate_policies, objects, policy_set

DIGESTS = Path(__file__).with_name("kyverno_digests.json")
ROWS, FULL = 300, 40
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def decided(result: dict) -> dict:
    """A result less its empty keys: a policy kind added later (its key empty here) changes nothing decided."""
    return {key: value for key, value in result.items() if value not in ([], None, {})}


def current() -> dict[str, list[str]]:
    """What the digests file holds, computed with the engine at hand."""
    corpus = objects(ROWS, seed=11)
    out: dict[str, list[str]] = {}
    for name, documents in (("validate", policy_set()), ("mutate", policy_set() + mutate_policies())):
        out[f"{name}-rows"] = [digest(row) for row in run_chunk(documents, corpus)]
        simulation = Simulation(documents)
        requests = [{"uid": f"u{i}", "operation": "CREATE", "object": o} for i, o in enumerate(corpus[:FULL])]
        results = [simulation.run(request, now=NOW) for request in requests]
        out[f"{name}-full"] = [digest(decided(r)) for r in results]
    return out


@pytest.fixture(scope="module")
def computed() -> dict[str, list[str]]:
    return current()


@pytest.mark.parametrize("key", ["validate-rows", "validate-full", "mutate-rows", "mutate-full"])
def test_same_results_as_before(computed: dict[str, list[str]], key: str) -> None:
    expected = json.loads(DIGESTS.read_text())[key]
    differing = [i for i, (a, b) in enumerate(zip(computed[key], expected)) if a != b]
    assert len(computed[key]) == len(expected)
    assert differing == []


def test_the_corpus_exercises_every_outcome(computed: dict[str, list[str]]) -> None:
    rows = run_chunk(policy_set() + mutate_policies(), objects(ROWS, seed=11))
    outcomes = {o["outcome"] for row in rows for o in row["policies"]}
    assert {"denied", "admitted", "mutated"} <= outcomes
    assert len(set(computed["validate-rows"])) > ROWS // 2  # digests of distinct results, not of one


if __name__ == "__main__":  # writes the digests file (run with the engine to compare against)
    DIGESTS.write_text(json.dumps(current(), indent=0) + "\n")
