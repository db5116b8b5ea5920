"""`run_impact`: every replay item through both policy sets, on local worker processes, streamed.

Items are read from an iterator as the workers need them (at most `jobs * IN_FLIGHT` chunks are out at
once), so a 1 GB audit log never sits in memory: what stays is the summary and the changed requests (at
most `max_changes`, the lowest indexes; the rest are counted in `changesOmitted`). Workers compile both
policy sets once (engine.compiled). A worker that dies breaks the pool: the chunks in flight run again in
a new pool, one at a time until they are all through, so a chunk that kills its worker is found; after
`max_attempts` deaths on its own it fails the run (`ChunkFailed`, naming its requests). `jobs <= 1` runs
in this process. `cancelled()` is asked after each chunk (then `Cancelled`).
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from evaluator.batch.engine import compiled
from evaluator.batch.impact.compare import Change, compare_chunk
from evaluator.batch.impact.items import Item
from evaluator.batch.impact.summary import ImpactSummary
from evaluator.batch.parallel import Cancelled, ChunkFailed

__all__ = ["ImpactReport", "run_impact", "SCHEMA_VERSION", "MAX_CHANGES", "CHUNK_SIZE"]

SCHEMA_VERSION = "impact/v1"
# changed requests kept in a report, the lowest indexes (the summary counts every one): each is a few KB in
# memory, so a log of millions of requests keeps its report in ~100 MB; `max_changes` raises it
MAX_CHANGES = 20_000
CHUNK_SIZE = 200
IN_FLIGHT = 4  # chunks queued per worker


@dataclass
class ImpactReport:
    """The outcome of an impact run; `as_dict()` is the JSON of evaluator/batch/impact/SCHEMA.md."""

    summary: ImpactSummary
    changes: list[Change] = field(default_factory=list)
    changes_omitted: int = 0
    source: dict[str, Any] = field(default_factory=dict)  # what the reader says of its input (audit_log.py)
    input_errors: list[dict[str, Any]] = field(default_factory=list)  # located problems of every input

    def add_chunk(self, chunk: dict[str, Any], max_changes: int = MAX_CHANGES) -> None:
        """Merge one `compare_chunk` answer (from any worker, in any order): the kept changes stay the
        lowest indexes."""
        self.summary.merge(ImpactSummary.from_dict(chunk["summary"]))
        self.changes.extend(chunk["changes"])
        if len(self.changes) > max_changes:
            self.changes.sort(key=lambda c: c["index"])
            self.changes_omitted += len(self.changes) - max_changes
            del self.changes[max_changes:]

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "summary": self.summary.as_dict(),
            "changes": sorted(self.changes, key=lambda c: c["index"]),
            "changesOmitted": self.changes_omitted,
            "source": self.source,
            "inputErrors": self.input_errors,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImpactReport:
        return cls(
            ImpactSummary.from_dict(data["summary"]),
            list(data.get("changes") or ()),
            int(data.get("changesOmitted") or 0),
            dict(data.get("source") or {}),
            list(data.get("inputErrors") or ()),
        )


_state: dict[str, Any] = {}


def _start_worker(base: Any, head: Any, version: str | None) -> None:
    _state.update(base=base, head=head, version=version)
    compiled(base, version)
    compiled(head, version)


def _task(items: list[Item]) -> dict[str, Any]:
    return compare_chunk(_state["base"], _state["head"], items, kubernetes_version=_state["version"])


def run_impact(
    base_documents: Any,
    head_documents: Any,
    items: Iterable[Item],
    *,
    jobs: int = 1,
    chunk_size: int = CHUNK_SIZE,
    kubernetes_version: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    max_changes: int = MAX_CHANGES,
    max_attempts: int = 3,
    start_method: str | None = None,
    report: ImpactReport | None = None,
) -> ImpactReport:
    """The report of `items` (any iterable: read lazily) through `base_documents` and `head_documents`
    (what `simulate` takes). `on_progress(done)` is called after each chunk with the requests compared so
    far. `report` (optional) is filled in place and returned, so a caller can add its `source` first."""
    report = report or ImpactReport(ImpactSummary())
    pieces = _chunks(iter(items), max(1, chunk_size))
    done = 0

    def finished(chunk: dict[str, Any]) -> None:
        nonlocal done
        report.add_chunk(chunk, max_changes)
        done += chunk["summary"]["requests"]
        if on_progress is not None:
            on_progress(done)
        if cancelled is not None and cancelled():
            raise Cancelled(f"cancelled after {done} requests")

    if jobs <= 1:
        for piece in pieces:
            finished(compare_chunk(base_documents, head_documents, piece, kubernetes_version=kubernetes_version))
    else:
        _pooled(base_documents, head_documents, pieces, jobs, kubernetes_version, finished, max_attempts, start_method)
    report.changes.sort(key=lambda c: c["index"])
    return report


def _chunks(items: Iterator[Item], size: int) -> Iterator[list[Item]]:
    while piece := list(itertools.islice(items, size)):
        yield piece


def _pooled(
    base: Any,
    head: Any,
    pieces: Iterator[list[Item]],
    jobs: int,
    version: str | None,
    finished: Callable[[dict[str, Any]], None],
    max_attempts: int,
    start_method: str | None,
) -> None:
    """Keep `jobs * IN_FLIGHT` chunks queued. When a worker dies the pool breaks and every chunk in flight
    is lost: they become suspects, run again one at a time in a new pool, so the chunk that kills its
    worker is the one counted (and named by ChunkFailed), not its neighbours."""
    context = multiprocessing.get_context(start_method)
    compiled(base, version)  # forked workers inherit both compiled sets; errors show here first
    compiled(head, version)
    suspects: list[tuple[list[Item], int]] = []  # (chunk, times it killed its worker running alone)
    exhausted = False
    while True:
        pool = ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(base, head, version)
        )
        running: dict[Future, tuple[list[Item], int]] = {}
        try:
            while True:
                if suspects:
                    if not running:
                        piece, deaths = suspects.pop(0)
                        running[pool.submit(_task, piece)] = (piece, deaths)
                else:
                    while not exhausted and len(running) < jobs * IN_FLIGHT:
                        following = next(pieces, None)
                        if following is None:
                            exhausted = True
                            break
                        running[pool.submit(_task, following)] = (following, 0)
                if not running:
                    return
                ready, _ = wait(running, return_when=FIRST_COMPLETED)
                lost: list[tuple[list[Item], int]] = []
                for future in ready:
                    piece, deaths = running.pop(future)
                    try:
                        chunk = future.result()
                    except BrokenProcessPool:
                        lost.append((piece, deaths))
                        continue
                    finished(chunk)
                if lost:
                    lost += running.values()  # their results went with the pool
                    running.clear()
                    if len(lost) == 1:  # it ran alone: it killed its worker
                        piece, deaths = lost[0]
                        if deaths + 1 >= max_attempts:
                            first, last = piece[0]["index"], piece[-1]["index"]
                            raise ChunkFailed(f"the worker running requests {first}..{last} died {max_attempts} times")
                        lost = [(piece, deaths + 1)]
                    suspects = sorted(lost + suspects, key=lambda s: s[0][0]["index"])
                    break
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
