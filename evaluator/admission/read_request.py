"""A sample request read, normalised and defaulted once per text: a policy edit in the live editor runs every
sample request of the project again, and none of their texts changed.

What a request text becomes before any policy sees it depends only on that text, the name its errors go by,
the resource mapping (the built-in one unless the documents hold CRDs), whether objects are defaulted and the
release simulated: those are the key. Each run gets a private copy of the request (its objects end up in
the result, and later stages may change them); a request that could not be read is read again every time
(it is seldom run twice, and its result echoes what normalisation left).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import parsed_texts
from evaluator.admission.decoding import decode_object
from evaluator.admission.go_decode import unknown_field_warning
from evaluator.admission.parsed_texts import copied
from evaluator.admission.positions import locate
from evaluator.admission.request import NormalizedRequest, normalize_request
from evaluator.cel.memo import RecentMemo
from evaluator.cel.versions import active_version
from evaluator.k8s.defaulting.requests import default_request

SIDES = ("object", "oldObject")
MAX_REMEMBERED_CHARS = 64 * 1024  # a bigger request (a dump's object) is read each time


@dataclass(frozen=True)
class ReadRequest:
    """`normalized` as normalisation left it and its errors and warnings (`errors`); when it is usable,
    `request`: the request as policies see it (objects defaulted when asked, owned by this run), and the
    paths defaulting filled in, by side."""

    normalized: NormalizedRequest
    errors: list[dict[str, Any]]
    request: dict[str, Any] | None = None
    defaulted: dict[str, list[str]] | None = None
    mapper: Any = None  # held, so that the mapper whose id is in the key is never another one
    # The API server's own status message when it refuses the request before admission (an object it
    # cannot decode into its Go type); `request` is then None.
    rejection: str | None = None
    # The Warnings decoding gave the client (fields the object's type does not have, dropped).
    warnings: tuple[str, ...] = ()
    # A run's copy: the remembered entry it was made from, which stands for the request's content (its key is
    # all the request depends on): what a kind keeps of a request may be kept under it.
    origin: ReadRequest | None = field(default=None, compare=False)

    def private(self) -> ReadRequest:
        """A copy for one run: nothing in it is shared with another run's."""
        return ReadRequest(
            self.normalized,
            [dict(error) for error in self.errors],
            copied(self.request),
            {side: list(paths) for side, paths in (self.defaulted or {}).items()},
            warnings=self.warnings,
            origin=self,
        )


_READ: RecentMemo[ReadRequest] = RecentMemo(512)


def read_request(request: Any, mapper: Any, source: str, defaulting: bool) -> ReadRequest:
    """The request (text or object) read for one run."""
    if not isinstance(request, str) or len(request) > MAX_REMEMBERED_CHARS:
        return _read(request, mapper, source, defaulting)
    key = (str(request), source, id(mapper), defaulting, active_version())
    found = _READ.find(key)
    if found is None or found.mapper is not mapper:
        found = _read(request, mapper, source, defaulting)
        if found.request is None:
            return found  # not kept: its normalized request is this run's own
        _READ.keep(key, found)
    return found.private()


def _read(request: Any, mapper: Any, source: str, defaulting: bool) -> ReadRequest:
    normalized, errors = normalized_request(request, mapper, source)
    if normalized.request is None or normalized.errors:
        return ReadRequest(normalized, errors)
    usable = normalized.request
    given = {side: usable.get(side) for side in SIDES}
    defaulted: dict[str, list[str]] = {"object": [], "oldObject": []}
    if defaulting:  # once per request, before any policy: the object as the API server decodes it
        decoding = decode_object(usable)
        if decoding is not None and decoding.refusal is not None:
            error = _located(request, source, "object", decoding.path, "error", decoding.refusal)
            return ReadRequest(normalized, [*errors, error], None, None, mapper, decoding.refusal)
        if decoding is not None and decoding.object is not None:
            usable = {**usable, "object": decoding.object}
        warned = decoding.warned if decoding is not None else ()
        warnings = tuple(unknown_field_warning(path) for path in warned)
        # the Warning the client gets, also located in the text for the editor
        errors += [_located(request, source, "object", path, "warning", w) for path, w in zip(warned, warnings)]
        if decoding is not None and decoding.old_object is not None:
            usable = {**usable, "oldObject": decoding.old_object}
            # our own words (the API server has none: storage never holds such a field)
            errors += [
                _located(request, source, "oldObject", path, "warning", _DROPPED_FROM_OLD.format(path))
                for path in decoding.old_dropped
            ]
        errors += [
            _located(request, source, "oldObject", wrong.path, "warning", _UNSTORABLE_IN_OLD.format(wrong.message))
            for wrong in (decoding.old_wrong if decoding is not None else ())
        ]
        usable, defaulted = default_request(usable)  # a defaulted side is a fresh copy already
        return ReadRequest(normalized, errors, owned(usable, given), defaulted, mapper, warnings=warnings)
    return ReadRequest(normalized, errors, owned(usable, given), defaulted, mapper)


_DROPPED_FROM_OLD = 'oldObject: unknown field "{}" dropped: an object in storage has only its type\'s fields'
_UNSTORABLE_IN_OLD = "oldObject: {}: no object in storage holds such a value (kept as given)"


def _located(request: Any, source: str, side: str, path: str, severity: str, message: str) -> dict[str, Any]:
    """A request error or warning about a field of one of its objects, with its line and column in the text."""
    entry: dict[str, Any] = {"severity": severity, "path": f"request.{side}.{path}", "message": message}
    located = _position_in_text(request, source, side, path)
    entry.update({"line": located[0], "column": located[1]} if located else {})
    return {**entry, "source": source, "document": None}


def _position_in_text(request: Any, source: str, side: str, object_path: str) -> tuple[int, int] | None:
    """Where a field of the request's object (`side`: object or oldObject) is in the request's text: under
    `request.<side>` of an AdmissionReview, or at the top of an object given alone (None for a request given
    as data)."""
    if not isinstance(request, str):
        return None
    records, _ = parsed_texts.load_documents(request, source)
    positions = records[0].positions if records else None
    if not positions:
        return None
    prefix = next((p for p in (f"request.{side}", side) if p in positions), "")
    return locate(positions, f"{prefix}.{object_path}" if prefix else object_path)


def normalized_request(request: Any, mapper: Any, source: str) -> tuple[NormalizedRequest, list[dict[str, Any]]]:
    """The request read (YAML/JSON text or an object) and normalised, and its errors and warnings, each
    naming the request by `source`."""
    errors: list[dict[str, Any]] = []
    if isinstance(request, str):
        # Only the data is used: the request's errors come from the YAML reader, located already.
        records, load_errors = parsed_texts.load_documents(request, source, positions=False)
        errors += [{"severity": "error", **e.to_dict(), "source": source, "document": None} for e in load_errors]
        request = records[0].data if records else None
    normalized = normalize_request(request, mapper, copy_objects=False)
    errors += [{"severity": "error", **e.to_dict(), "source": source, "document": None} for e in normalized.errors]
    errors += [{"severity": "warning", "source": source, "message": w, "document": None} for w in normalized.warnings]
    return normalized, errors


def owned(request: dict[str, Any] | None, given: Mapping[str, Any]) -> dict[str, Any] | None:
    """`request` with a private copy of each object still shared with the caller's input (`given`: the
    objects as normalisation left them), so that no result aliases the input nor another result. Objects
    defaulting replaced are copies already: each object is copied once per request."""
    if request is None:
        return None
    for side in SIDES:
        value = request.get(side)
        if value is not None and (side not in given or value is given[side]):
            request = {**request, side: copy.deepcopy(value)}
    return request


def clear() -> None:
    _READ.clear()
