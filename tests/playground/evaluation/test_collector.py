"""The worker's idle collector (playground/evaluation/collector.py): full collections between jobs only."""

from __future__ import annotations

import gc
import weakref

import pytest

from playground.evaluation import collector


@pytest.fixture
def restore_gc():
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_oldest_generation_is_no_longer_collected_automatically(restore_gc):
    collector.IdleCollector()
    assert gc.get_threshold()[2] >= 1 << 30
    assert gc.get_freeze_count() > 0  # what the warm-up made is never walked again


def test_an_idle_worker_collects_at_most_every_idle_interval(restore_gc):
    clock = Clock()
    idle = collector.IdleCollector(clock)
    assert not idle.between_jobs(job_waiting=False)  # just collected
    clock.now = collector.IDLE_SECONDS
    assert idle.between_jobs(job_waiting=False)
    clock.now += collector.IDLE_SECONDS / 2
    assert not idle.between_jobs(job_waiting=False)


def test_a_busy_worker_collects_only_after_the_busy_interval(restore_gc):
    clock = Clock()
    idle = collector.IdleCollector(clock)
    clock.now = collector.BUSY_SECONDS - 1
    assert not idle.between_jobs(job_waiting=True)  # a job waits: not now
    clock.now = collector.BUSY_SECONDS
    assert idle.between_jobs(job_waiting=True)  # but never idle: cyclic garbage stays bounded


class Node:
    pass


def held_cycle() -> tuple[list, weakref.ref]:
    """A cycle (once unreachable, only a collection frees it), held by the list, and a way to see it live."""
    holder = [Node()]
    holder[0].self = holder[0]
    return holder, weakref.ref(holder[0])


def test_cyclic_garbage_made_by_jobs_is_freed_by_the_idle_collection(restore_gc):
    clock = Clock()
    idle = collector.IdleCollector(clock)
    holder, alive = held_cycle()
    gc.collect(1)
    gc.collect(1)  # survived twice: it is in the oldest generation now
    holder.clear()
    gc.collect(1)
    assert alive() is not None  # the young collections do not reach it
    clock.now = collector.IDLE_SECONDS
    assert idle.between_jobs(job_waiting=False)
    assert alive() is None


def test_survivors_are_frozen_and_a_thaw_frees_cycles_that_died_frozen(restore_gc):
    clock = Clock()
    idle = collector.IdleCollector(clock)
    holder, alive = held_cycle()
    clock.now = collector.IDLE_SECONDS
    frozen = gc.get_freeze_count()
    assert idle.between_jobs(job_waiting=False)
    assert gc.get_freeze_count() > frozen  # the survivor is frozen: later passes do not walk it
    holder.clear()  # dies while frozen
    clock.now += collector.IDLE_SECONDS
    assert idle.between_jobs(job_waiting=False)
    assert alive() is not None  # a pass over recent objects does not see it
    clock.now = collector.THAW_SECONDS
    assert idle.between_jobs(job_waiting=False)
    assert alive() is None  # the thaw walks everything again
