"""Kyverno policies leave no reference cycles of their own behind (policies/kyverno/kept_errors.py): a caught
exception kept in a frame it was raised through made one, with that frame and its callers', hundreds an
object, and the cyclic collector's passes over them took a quarter of a batch's time."""

from __future__ import annotations

import gc
import types
from collections.abc import Iterator
from contextlib import contextmanager

from evaluator.batch import run_chunk
from evaluator.policies.kyverno.kept_errors import kept
from tests.evaluator.batch.kyverno_corpus import mutate_policies, objects, policy_set


@contextmanager
def cyclic_garbage() -> Iterator[list]:
    """What the block left for the cyclic collector (the collector paused meanwhile)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def test_validate_policies_leave_no_cyclic_garbage():
    documents, corpus = policy_set(), objects(120, seed=5)
    run_chunk(documents, corpus[:1])  # compiled first: what a policy keeps is not garbage
    with cyclic_garbage() as found:
        rows = run_chunk(documents, corpus)
    assert any(not row["allowed"] for row in rows)  # failures were raised, skipped elements kept
    assert found == []


def test_mutate_policies_leave_no_frame_in_a_cycle():
    """The mutate rules' strategic merge diffs with the jsonpatch package, whose own cycles are left to it."""
    documents, corpus = policy_set() + mutate_policies(), objects(60, seed=5)
    run_chunk(documents, corpus[:1])
    with cyclic_garbage() as found:
        run_chunk(documents, corpus)
    kinds = {type(item) for item in found}
    assert not kinds & {types.FrameType, types.TracebackType}
    assert not [item for item in found if isinstance(item, BaseException)]


def test_a_kept_error_holds_no_frame():
    def fail() -> None:
        try:
            raise KeyError("inner")
        except KeyError:
            raise ValueError("outer") from None

    try:
        fail()
    except ValueError as err:
        error = kept(err)
    assert str(error) == "outer"
    assert error.__traceback__ is None and error.__context__ is None
