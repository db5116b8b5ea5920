"""Evaluate a project's documents against its sample requests with the engine, caching by content hash.

A document set is loaded (and its policies compiled) once per distinct set of texts; each request's result
is cached under (hash of the document texts, hash of the request text), so editing one request re-runs only
that request, and going back to an earlier text costs nothing. Verdicts are recomputed every time because
the expected outcome is not part of the key. Everything here is synchronous, CPU-bound and Django-free: it
runs in the evaluation workers (playground/evaluation), never in the server process.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field

import evaluator
from evaluator import Simulation
from evaluator.admission.loading import NamedText
from evaluator.json_safe import json_safe, needs_json_safe
from playground.core.expectations import verdict
from playground.core.result_cache import LRUCache, remembered_hash

# A workshop room is a hundred participants each editing a fork. Each policy edit makes a new set, sent to
# either worker by its key, and the sets it replaced stay kept until pushed out: with 64 sets kept, a request
# edit found its set pushed out one time in two (the workers' replay) and loaded it again. Bounded in count and
# in the sets' characters (a loaded set holds 25-35 bytes of a worker's memory a character), which still keeps
# one set of the biggest project.
_SIMULATIONS = LRUCache(maxsize=256, max_weight=6 * 1024 * 1024, weigh=lambda loaded: sum(map(len, loaded.texts)))
_RESULTS = LRUCache(maxsize=4096)


@dataclass
class LoadedDocuments:
    """A document set loaded once: the engine's Simulation, its errors by document, its type checks."""

    key: str
    simulation: Simulation
    document_errors: list[list[dict]]
    general_errors: list[dict]
    texts: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _typecheck: dict | None = None

    def typecheck(self) -> dict:
        """Type checks of the ValidatingAdmissionPolicies, computed on first use (they cost more than a run)."""
        if self._typecheck is None:
            self._typecheck = json_safe(self.simulation.type_checks())
        return self._typecheck


def clear_caches() -> None:
    _SIMULATIONS.clear()
    _RESULTS.clear()


def cache_stats() -> dict:
    return {
        "simulations": {"hits": _SIMULATIONS.hits, "misses": _SIMULATIONS.misses},
        "results": {"hits": _RESULTS.hits, "misses": _RESULTS.misses},
    }


def _split_errors(errors: list[dict], count: int) -> tuple[list[list[dict]], list[dict]]:
    """Give each engine error to the document (text) it names; the rest are project-wide."""
    per_document: list[list[dict]] = [[] for _ in range(count)]
    general = []
    for error in errors:
        index = error.get("document")
        if isinstance(index, int) and 0 <= index < count:
            per_document[index].append(json_safe(dict(error)))
        else:
            general.append(json_safe(dict(error)))
    return per_document, general


def named_texts(documents: list[dict]) -> list[str]:
    """The documents' texts, each named as the project names it: the engine's messages and `source`s call a
    document by that name (a nameless one is `<text N>`)."""
    return [NamedText(doc.get("text") or "", str(doc.get("name") or "")) for doc in documents]


def named_requests(requests: list[dict]) -> list[str]:
    """The requests' texts, each named as the project names it: the request's errors call it by that name."""
    return [NamedText(request.get("text") or "", str(request.get("name") or "")) for request in requests]


def documents_key(texts: list[str], kubernetes_version: str | None = None) -> str:
    """The cache key of a document set (texts and the names they go by) as one Kubernetes release sees it
    (None: the newest)."""
    named = tuple((getattr(text, "name", ""), text) for text in texts)
    if kubernetes_version is None:
        return remembered_hash("documents", named)
    return remembered_hash("documents", named, kubernetes_version)


def load_documents(texts: list[str], kubernetes_version: str | None = None) -> LoadedDocuments:
    """The loaded form of these texts, from the cache when they were seen before."""
    key = documents_key(texts, kubernetes_version)
    loaded = _SIMULATIONS.get(key)
    if loaded is None:
        simulation = evaluator.load(list(texts), kubernetes_version=kubernetes_version)
        per_document, general = _split_errors(simulation.errors, len(texts))
        loaded = LoadedDocuments(key, simulation, per_document, general, list(texts))
        _SIMULATIONS.put(key, loaded)
    return loaded


def run_request(
    loaded: LoadedDocuments, text: str, name: str | None = None, keep: bool = True, now: dt.datetime | None = None
) -> dict:
    """The engine's result for one request text (cached); JSON-safe. The request's errors name it `name`
    (the editor's request name; default: the name of a `NamedText`). `keep=False` leaves a new result out of
    the cache, for a caller that keeps it itself (the live room keeps its results encoded, in the server).
    `now` is when the request was received (default: now)."""
    name = name or getattr(text, "name", None)
    key = (loaded.key, remembered_hash("request", text, name or ""))
    result = _RESULTS.get(key)
    if result is None:
        with loaded.lock:  # one Simulation is not meant to run two requests at once
            raw = loaded.simulation.run(text, type_checks=False, request_name=name, now=now)
        result = json_safe(raw) if needs_json_safe(raw) else raw  # a run's result is its own: no copy needed
        if keep:
            _RESULTS.put(key, result)
    return result


def request_entry(request: dict, result: dict) -> dict:
    """One request's part of an EvaluationResult: the engine output plus the expected-vs-actual verdict."""
    outcome, message = verdict(request.get("expected"), result)
    return {
        "id": request.get("id"),
        "name": request.get("name"),
        "result": result,
        "expected": request.get("expected"),
        "verdict": outcome,
        "verdictMessage": message,
    }


def documents_entry(documents: list[dict], loaded: LoadedDocuments) -> list[dict]:
    return [
        {"id": doc.get("id"), "name": doc.get("name"), "errors": errors}
        for doc, errors in zip(documents, loaded.document_errors)
    ]


def evaluate(
    documents: list[dict], requests: list[dict], version: int | None = None, *, kubernetes_version: str | None = None
) -> dict:
    """The whole EvaluationResult for documents [{id?, name, text}] and requests [{id?, name, text, expected?}]."""
    loaded = load_documents(named_texts(documents), kubernetes_version)
    return {
        "version": version,
        "documents": documents_entry(documents, loaded),
        "errors": loaded.general_errors,
        "requests": [
            request_entry(request, run_request(loaded, request["text"], request.get("name"))) for request in requests
        ],
        "typecheck": loaded.typecheck(),
    }
