"""A policy's dispatch reused across document sets: what it added to a request's DispatchResult, kept by content.

A keystroke in the live editor loads the document set again and runs every sample request again, though the
edit changed one policy: every other policy would be evaluated again against the same request, bindings,
params and cluster. What one policy's dispatch adds to a DispatchResult depends only on these (the request
as this stage sees it, the policy and its bindings, every cluster object that is not itself a policy or a
binding, the release simulated, the warnings already given, which it does not repeat), so it is kept under
them and added again, as fresh copies, when they recur.

The request stands for itself by what it was read from (`read_request`'s remembered entry: its key is the
text, the name, the REST mapping, defaulting and the release), and only where no mutation changed it since:
keying a request by its content would cost as much as what it saves. A dispatch is kept the second time it is
made (the first only marks it): after a request edit nothing recurs, and pickling each policy's records for
nothing cost more than the reuse saved.

It is a shortcut (off under `shortcuts.off()`, which the property tests compare it with), and only for traced
runs: the live editor's and REST's, where one request meets the same policies again and again. Nothing is
kept that may not recur: a dispatch that raised, or whose records hold an error that is placed in the documents
after the dispatch (a wall-clock guard's timeout, which depends on the machine's load, is one), and no
policy whose params are themselves policies or bindings (left out of the cluster's key), nor a cluster with
CRDs (its REST mapping is made per document set).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from typing import Any, NamedTuple

from evaluator import shortcuts
from evaluator.admission.cluster import ClusterIndex, group_version
from evaluator.admission.trace_location import needs_locating
from evaluator.cel.memo import RecentMemo, exact_key
from evaluator.cel.versions import active_version
from evaluator.k8s.kinds import ADMISSION_GROUP, VALIDATING_BINDING, VALIDATING_POLICY
from evaluator.k8s.restmapping import builtin_mapper

MAX_ENTRIES = 1024
MAX_KEPT_BYTES = 16 * 1024  # a bigger dispatch (many bindings or params) is not kept: at most 16 MiB in all
_HOOK_KINDS = (VALIDATING_POLICY, VALIDATING_BINDING)
_SEEN = b""  # the mark of a dispatch made once


class Added(NamedTuple):
    """What one policy's dispatch added to a DispatchResult (its lists' new entries, its annotations set)."""

    policies: list[dict]
    denials: list[Any]
    warnings: list[str]
    validation_failures: list[dict]
    audit_annotations: list[tuple[str, str]]


class Mark(NamedTuple):
    """A DispatchResult's state before a policy's dispatch."""

    policies: int
    denials: int
    warnings: int
    validation_failures: int
    audit_annotations: dict[str, str]


# key -> (the request's origin, held so that its id in the key is never another object's; a pickled Added,
# or _SEEN)
_ADDED: RecentMemo[tuple[Any, bytes]] = RecentMemo(MAX_ENTRIES)


def _digest(value: object) -> bytes | None:
    """A value's `exact_key` as a 128-bit digest: keys of a few bytes however big the objects they stand for."""
    exact = exact_key(value)
    return None if exact is None else hashlib.blake2b(exact, digest_size=16).digest()


def cluster_key(cluster: ClusterIndex) -> bytes | None:
    """The content of what a policy's dispatch may read of the cluster besides policies and bindings (params,
    namespaces, RBAC for the authorizer); None where it is not kept (CRDs, another REST mapping, too big)."""
    if cluster.mapper is not builtin_mapper() or cluster.crds:
        return None
    return _digest([doc for doc in cluster.documents if not _is_hook(doc)])


def policy_key(policy: Mapping, bindings: list[Mapping]) -> bytes | None:
    """The policy and its bindings' content; None for a policy whose params are policies or bindings."""
    spec = policy.get("spec")
    param_kind = spec.get("paramKind") if isinstance(spec, Mapping) else None
    if isinstance(param_kind, Mapping):
        found = group_version(param_kind.get("apiVersion"))
        if found is None or found[0] == ADMISSION_GROUP:
            return None
    return _digest((policy, bindings))


class RequestPart(NamedTuple):
    """The request's part of the keys (with the cluster's and the release), and the origin it stands for."""

    key: tuple
    origin: Any


def request_part(origin: Any, cluster: bytes | None, trace: bool) -> RequestPart | None:
    """None where nothing is reused: no origin (a request changed by a mutation, or not remembered), a cluster
    not kept, an untraced run, the shortcuts off."""
    if origin is None or cluster is None or not trace or not shortcuts.ON:
        return None
    return RequestPart((cluster, id(origin), active_version()), origin)


class Lookup(NamedTuple):
    """A policy's dispatch looked up: its key, the request's origin, and what is kept (a pickled Added, or
    None) or whether it was made once before."""

    key: tuple
    origin: Any
    kept: bytes | None
    seen: bool


def look_up(part: RequestPart, policy: bytes, warnings: list[str]) -> Lookup:
    key = (part.key, policy, tuple(warnings))
    found = _ADDED.find(key)
    if found is None or found[0] is not part.origin:
        return Lookup(key, part.origin, None, False)
    return Lookup(key, part.origin, None if found[1] is _SEEN else found[1], True)


def made_once(lookup: Lookup) -> None:
    """Mark the dispatch made for the first time (what it added is kept only if it is made again)."""
    _ADDED.keep(lookup.key, (lookup.origin, _SEEN))


def mark(out: Any) -> Mark:
    return Mark(
        len(out.policies),
        len(out.denials),
        len(out.warnings),
        len(out.validation_failures),
        dict(out.audit_annotations),
    )


def keep(lookup: Lookup, before: Mark, out: Any) -> None:
    """Keep what the dispatch added to `out` since `before`, pickled: each replay unpickles copies of its own
    (the result's records are changed later). Not kept: records that `locate_traces` changes afterwards (an
    error, placed in this document set's documents; a wall-clock timeout is one)."""
    records = out.policies[before.policies :]
    if any(needs_locating(record) for record in records):
        return
    annotations = [
        (name, value)
        for name, value in out.audit_annotations.items()
        if name not in before.audit_annotations or before.audit_annotations[name] is not value
    ]
    added = Added(
        records,
        out.denials[before.denials :],
        out.warnings[before.warnings :],
        out.validation_failures[before.validation_failures :],
        annotations,
    )
    try:
        kept = pickle.dumps(added, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value pickle refuses: not kept
        return
    if len(kept) <= MAX_KEPT_BYTES:
        _ADDED.keep(lookup.key, (lookup.origin, kept))


def replay(kept: bytes, out: Any) -> None:
    """Add to `out` what the kept dispatch added (fresh copies of it)."""
    added: Added = pickle.loads(kept)
    out.policies += added.policies
    out.denials += added.denials
    out.warnings += added.warnings
    out.validation_failures += added.validation_failures
    for name, value in added.audit_annotations:
        out.audit_annotations[name] = value


def clear() -> None:
    _ADDED.clear()


def _is_hook(doc: Mapping) -> bool:
    found = group_version(doc.get("apiVersion"))
    return found is not None and found[0] == ADMISSION_GROUP and doc.get("kind") in _HOOK_KINDS
