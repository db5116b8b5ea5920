"""Per-evaluation state shared by compiled closures: activation, comprehension slots, cost, deadline."""

from __future__ import annotations

import time
from typing import Any, Mapping

from evaluator.cel.errors import CostLimitError, TimeoutError_, _Abort
from evaluator.cel.values import LIST_TYPES


# The slots of a program without comprehension variables: nothing ever indexes them, so all share one (immutable).
_NO_SLOTS: Any = ()


class Ctx:
    __slots__ = ("act", "slots", "cost", "limit", "deadline", "ticks")

    def __init__(self, act: Mapping[str, Any], nslots: int, limit: int, deadline: float | None):
        self.act = act
        self.slots: list[Any] = [None] * nslots if nslots else _NO_SLOTS
        self.cost = 0
        self.limit = limit
        self.deadline = deadline
        self.ticks = 0

    def check(self) -> None:
        """Called every iteration of a comprehension and after costly calls, as cel-go's interrupt check."""
        if self.cost > self.limit:
            raise _Abort(CostLimitError("operation cancelled: actual cost limit exceeded", cost=self.cost))
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Abort(
                TimeoutError_(
                    "operation interrupted: evaluation took longer than the wall-clock safety limit "
                    "(set far above what the cost limit allows)",
                    cost=self.cost,
                )
            )


def actual_size(v: Any) -> int:
    """cel-go's actualSize: the length of strings, bytes, lists and maps, a library value's own size
    (an IP's bytes), 1 for anything else."""
    t = type(v)
    if t is str or t is bytes or t in LIST_TYPES or t is dict:
        return len(v)
    size = getattr(v, "cel_size", None)
    return size() if size is not None else 1
