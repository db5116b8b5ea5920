"""Where a workshop evaluation runs: the playground's supervised evaluation pool (playground/evaluation).

In a worker process a student's runaway expression only competes for a CPU instead of holding the GIL the
event loop and the database threads need; the fair queue lets each student use at most one worker at a time.
"""

from __future__ import annotations

from playground.evaluation import jobs, pool
from playground.evaluation.workshop import engine


def slots() -> int:
    """How many evaluations may run at once (the fair queue's slots)."""
    return pool.slots()


def warm_up() -> None:
    pool.warm_up()


async def evaluate(ctx: engine.Context) -> dict:
    """engine.evaluate(ctx) in a worker (the least busy one: forks differ from student to student)."""
    return await pool.run(jobs.evaluate_workshop, ctx)
