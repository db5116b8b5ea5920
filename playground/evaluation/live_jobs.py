"""The live room's evaluations: results cached by content hash here, computed in the evaluation workers.

Jobs take and return plain data (texts in, small summaries and already-encoded result JSON out). Each
document set goes to the same worker (routed by its hash), so that worker's cache holds its compiled
policies; an unchanged request costs no round trip at all.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable

from playground.evaluation import jobs, pool
from playground.evaluation import service as evaluation
from playground.core.expectations import verdict
from playground.core import json_text
from playground.core.result_cache import LRUCache, remembered_hash

# (documents key, request key) -> (summary, result JSON): at most 4,096 results and 32 MiB of their JSON, so
# a few large results cannot hold the server's memory up (a workshop's 4,096 hold about 15 MiB).
ENCODED_MAX_BYTES = 32 * 1024 * 1024
_ENCODED = LRUCache(maxsize=4096, max_weight=ENCODED_MAX_BYTES, weigh=lambda entry: len(entry[1]) + 256)
_LOADED = LRUCache(maxsize=256)  # documents key -> the document errors
# request key -> when this server first evaluated that request text: its audit event's clock. A request's
# result then changes only when something it depends on changes, and a room is told "unchanged" otherwise.
_RECEIVED = LRUCache(maxsize=4096)
# A result's digest: equal texts, equal digests (within this process); held to 52 bits, a JSON number any
# client reads exactly.
DIGEST_BITS = (1 << 52) - 1
_TYPECHECKS = LRUCache(maxsize=256)
# Worker jobs under way, by what they compute: a second ask for the same work joins the first (an edit's
# early start, see `start`, and the room's evaluation once the edit is saved).
_IN_FLIGHT: dict[tuple, tuple[asyncio.Future, float]] = {}  # work -> (its job, when it started)


def documents_key(texts: list[str], kubernetes_version: str | None = None) -> str:
    return evaluation.documents_key(texts, kubernetes_version)


async def evaluate(
    texts: list[str],
    request_texts: list[str],
    kubernetes_version: str | None = None,
    abandoned: Callable[[], bool] | None = None,
    timing: dict | None = None,
) -> tuple[dict, list[tuple[dict, str]]]:
    """Document errors and (summary, result JSON) per request text; only what is not cached goes to a worker.
    A worker job that runs on once `abandoned()` is true is stopped (pool.Abandoned). Joining a job that
    started earlier moves `timing["started"]` back to its start, so the time reported is the evaluation's."""
    key = documents_key(texts, kubernetes_version)
    # a request's name is in its errors: a renamed request is another result
    request_keys = [(key, remembered_hash("request", text, getattr(text, "name", ""))) for text in request_texts]
    results = [_ENCODED.get(request_key) for request_key in request_keys]
    loaded = _LOADED.get(key)
    missing = [i for i, result in enumerate(results) if result is None]
    if missing or loaded is None:
        work = (key, tuple(request_keys[i][1] for i in missing))
        while True:
            job, started = _IN_FLIGHT.get(work) or (None, time.perf_counter())
            if job is None or job.done():  # a finished job's failure is not handed to a new caller
                job, started = (
                    asyncio.ensure_future(
                        _compute(
                            texts,
                            [request_texts[i] for i in missing],
                            [_received(request_keys[i]) for i in missing],
                            kubernetes_version,
                            key,
                            abandoned,
                        )
                    ),
                    time.perf_counter(),
                )
                _IN_FLIGHT[work] = (job, started)
                job.add_done_callback(lambda done: _forget(work, done))
            if timing is not None:
                timing["started"] = min(timing.get("started", started), started)
            try:
                loaded, computed = await asyncio.shield(job)  # one caller leaving does not stop the others' job
                break
            except pool.Abandoned:
                # The job was the caller's who started it, who gave it up; one who still wants it asks again.
                if abandoned is not None and abandoned():
                    raise
        for i, result in zip(missing, computed):
            _ENCODED.put(request_keys[i], result)
            results[i] = result
    return loaded, results


def _forget(work: tuple, job: asyncio.Future) -> None:
    if _IN_FLIGHT.get(work, (None, 0.0))[0] is job:  # not a newer job for the same work
        del _IN_FLIGHT[work]


def _received(request_key: tuple) -> dt.datetime:
    received = _RECEIVED.get(request_key[1])
    if received is None:
        received = dt.datetime.now(dt.timezone.utc)
        _RECEIVED.put(request_key[1], received)
    return received


async def _compute(texts, request_texts, received, kubernetes_version, key, abandoned) -> tuple[dict, list]:
    loaded, computed = await pool.run(
        jobs.evaluate_texts,
        texts,
        request_texts,
        kubernetes_version,
        key not in _TYPECHECKS,
        received,
        key=key,
        abandoned=abandoned,
    )
    checks = loaded.pop("typecheck", None)
    if checks is not None:  # `typecheck` will find them here
        _TYPECHECKS.put(key, checks)
    _LOADED.put(key, loaded)
    return loaded, computed


def start(
    texts: list[str],
    request_texts: list[str],
    kubernetes_version: str | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> None:
    """Begin `evaluate` in the background; a later `evaluate` of the same texts joins it rather than asking a
    worker again. A failure is left to whoever joins (and is not logged as never retrieved)."""
    task = asyncio.ensure_future(evaluate(texts, request_texts, kubernetes_version, abandoned))
    task.add_done_callback(lambda done: done.cancelled() or done.exception())


async def typecheck(
    texts: list[str], kubernetes_version: str | None = None, abandoned: Callable[[], bool] | None = None
) -> dict:
    """Type checks go to the worker that holds the loaded documents."""
    key = documents_key(texts, kubernetes_version)
    checks = _TYPECHECKS.get(key)
    if checks is None:
        checks = await pool.run(jobs.typecheck, texts, kubernetes_version, key=key, abandoned=abandoned)
        _TYPECHECKS.put(key, checks)
    return checks


def known_typecheck(texts: list[str], kubernetes_version: str | None = None) -> dict | None:
    """The type checks of these texts when this process holds them already (None: a worker would be asked)."""
    key = documents_key(texts, kubernetes_version)
    return _TYPECHECKS.get(key) if key in _TYPECHECKS else None


def result_messages(version: int, request: dict, summary: dict, result_json: str) -> tuple[str, int, str]:
    """The `result` message as JSON text (the already-encoded result spliced in), the result's digest, and the
    message that says the result is unchanged (the same head, with `unchanged` instead of the result)."""
    outcome, message = verdict(request.get("expected"), summary)
    digest = hash(result_json) & DIGEST_BITS
    head = json_text.dumps(
        {
            "id": request.get("id"),
            "name": request.get("name"),
            "expected": request.get("expected"),
            "verdict": outcome,
            "verdictMessage": message,
            "digest": digest,
        }
    )
    envelope = f'{{"type": "result", "version": {int(version)}, "request": {head[:-1]}'
    return f'{envelope}, "result": {result_json}}}}}', digest, f'{envelope}, "unchanged": true}}}}'


def clear_caches() -> None:
    _IN_FLIGHT.clear()
    _ENCODED.clear()
    _LOADED.clear()
    _TYPECHECKS.clear()
    _RECEIVED.clear()
