"""Evaluation jobs for the live WebSocket path, run off the event loop: in worker processes by default.

The engine is CPU-bound Python; in threads it would hold the server's GIL and slow every connection, so the
live path sends each job to a worker process (PLAYGROUND_EVALUATION_PROCESSES, 0 = threads). Jobs take and
return plain data: texts in, small summaries and already-encoded result JSON out (never parsed again here).
Each document set goes to the same worker (by its hash), so that worker's cache holds its compiled policies.
Results are also cached here by content hash, so an unchanged request costs no round trip at all.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor

from django.conf import settings

from playground.services import evaluation_service as evaluation
from playground.services.expectations import verdict
from playground.services.result_cache import LRUCache, content_hash

_ENCODED = LRUCache(maxsize=4096)  # (documents key, request key) -> (summary, result JSON)
_LOADED = LRUCache(maxsize=256)  # documents key -> the document errors
_POOLS: list[Executor] = []
_TYPECHECK_POOL: list[Executor] = []  # its own worker: slow type checks never delay an evaluation
_POOLS_LOCK = threading.Lock()
EVALUATION_NICENESS = 5
TYPECHECK_NICENESS = 15


# -- jobs (module-level functions: they are pickled to the worker processes) -------------------------------

def job_load(texts: list[str], kubernetes_version: str | None = None) -> dict:
    loaded = evaluation.load_documents(texts, kubernetes_version)
    return {"document_errors": loaded.document_errors, "general_errors": loaded.general_errors}


def job_run(texts: list[str], request_text: str, kubernetes_version: str | None = None) -> tuple[dict, str]:
    """(what a verdict needs, the whole result as JSON text)."""
    result = evaluation.run_request(evaluation.load_documents(texts, kubernetes_version), request_text)
    summary = {"allowed": result.get("allowed"), "warnings": result.get("warnings") or [],
               "status": {"message": (result.get("status") or {}).get("message")}}
    return summary, json.dumps(result)


def job_evaluate(texts: list[str], request_texts: list[str],
                 kubernetes_version: str | None = None) -> tuple[dict, list[tuple[dict, str]]]:
    """The document errors and every listed request's result, in one round trip."""
    return (job_load(texts, kubernetes_version),
            [job_run(texts, text, kubernetes_version) for text in request_texts])


def job_typecheck(texts: list[str], kubernetes_version: str | None = None) -> dict:
    return evaluation.load_documents(texts, kubernetes_version).typecheck()


def _lower_priority(increment: int = 10) -> None:
    """Workers yield the CPU to the server process (which saves and acknowledges every edit) when they
    compete for it; the type-check worker yields to the evaluation workers as well."""
    try:
        os.nice(increment)
    except OSError:  # not permitted here: run at normal priority
        pass


def job_warm_up() -> bool:
    """Start a worker and load the engine in it before the first real job needs it."""
    evaluation.load_documents([""])
    return True


# -- dispatch -------------------------------------------------------------------------------------------------

def _pools() -> list[Executor]:
    with _POOLS_LOCK:
        if not _POOLS:
            processes = getattr(settings, "PLAYGROUND_EVALUATION_PROCESSES", 0)
            if processes > 0:
                context = multiprocessing.get_context("spawn")  # no fork of a running server
                _POOLS.extend(ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_lower_priority,
                                                  initargs=(EVALUATION_NICENESS,)) for _ in range(processes))
                for pool in _POOLS:  # spawn them all now, not on the first edit that happens to land there
                    pool.submit(job_warm_up)
            else:
                _POOLS.append(evaluation.EXECUTOR)
        return _POOLS


def _typecheck_pool() -> Executor:
    with _POOLS_LOCK:
        if not _TYPECHECK_POOL:
            if getattr(settings, "PLAYGROUND_EVALUATION_PROCESSES", 0) > 0:
                context = multiprocessing.get_context("spawn")
                _TYPECHECK_POOL.append(ProcessPoolExecutor(max_workers=1, mp_context=context,
                                                           initializer=_lower_priority,
                                                           initargs=(TYPECHECK_NICENESS,)))
                _TYPECHECK_POOL[0].submit(job_warm_up)
            else:
                _TYPECHECK_POOL.append(evaluation.EXECUTOR)
        return _TYPECHECK_POOL[0]


def warm_up() -> None:
    """Create the worker pools (their processes start loading the engine at once)."""
    _pools()
    _typecheck_pool()


def shutdown() -> None:
    with _POOLS_LOCK:
        for pool in _POOLS + _TYPECHECK_POOL:
            if pool is not evaluation.EXECUTOR:
                pool.shutdown(wait=False, cancel_futures=True)
        _POOLS.clear()
        _TYPECHECK_POOL.clear()


async def run_job(documents_key: str, function, *args):
    pools = _pools()
    pool = pools[int(documents_key[:8], 16) % len(pools)]
    return await asyncio.wrap_future(pool.submit(function, *args))


def documents_key(texts: list[str], kubernetes_version: str | None = None) -> str:
    return evaluation.documents_key(texts, kubernetes_version)


async def load(texts: list[str], kubernetes_version: str | None = None) -> dict:
    return await run_job(documents_key(texts, kubernetes_version), job_load, texts, kubernetes_version)


async def run(texts: list[str], request_text: str, key: str | None = None,
              kubernetes_version: str | None = None) -> tuple[dict, str]:
    key = key or documents_key(texts, kubernetes_version)
    cache_key = (key, content_hash("request", request_text))
    cached = _ENCODED.get(cache_key)
    if cached is None:
        cached = await run_job(key, job_run, texts, request_text, kubernetes_version)
        _ENCODED.put(cache_key, cached)
    return cached


async def evaluate(texts: list[str], request_texts: list[str],
                   kubernetes_version: str | None = None) -> tuple[dict, list[tuple[dict, str]]]:
    """Document errors and (summary, result JSON) per request text; only what is not cached goes to a worker."""
    key = documents_key(texts, kubernetes_version)
    request_keys = [(key, content_hash("request", text)) for text in request_texts]
    results = [_ENCODED.get(request_key) for request_key in request_keys]
    loaded = _LOADED.get(key)
    missing = [i for i, result in enumerate(results) if result is None]
    if missing or loaded is None:
        loaded, computed = await run_job(key, job_evaluate, texts, [request_texts[i] for i in missing],
                                         kubernetes_version)
        _LOADED.put(key, loaded)
        for i, result in zip(missing, computed):
            _ENCODED.put(request_keys[i], result)
            results[i] = result
    return loaded, results


_TYPECHECKS = LRUCache(maxsize=256)


async def typecheck(texts: list[str], kubernetes_version: str | None = None) -> dict:
    key = documents_key(texts, kubernetes_version)
    checks = _TYPECHECKS.get(key)
    if checks is None:
        checks = await asyncio.wrap_future(_typecheck_pool().submit(job_typecheck, texts, kubernetes_version))
        _TYPECHECKS.put(key, checks)
    return checks


def result_message_text(version: int, request: dict, summary: dict, result_json: str) -> str:
    """The `result` message as JSON text, splicing in the already-encoded result."""
    outcome, message = verdict(request.get("expected"), summary)
    head = json.dumps({"id": request.get("id"), "name": request.get("name"), "expected": request.get("expected"),
                       "verdict": outcome, "verdictMessage": message})
    return f'{{"type": "result", "version": {int(version)}, "request": {head[:-1]}, "result": {result_json}}}}}'


def clear_caches() -> None:
    _ENCODED.clear()
    _LOADED.clear()
    _TYPECHECKS.clear()
