"""The one interface a policy kind implements, and the registry the simulation reads.

The admission core (this package) knows no particular policy kind. Each kind is a package under
`evaluator/policies/<name>/` whose `__init__.py` calls `register(TheKind)`; `evaluator.policies` imports every
such package, and `evaluator.simulation` runs the registered kinds stage by stage, in the API server's order:

    MUTATING    mutating admission: MutatingAdmissionPolicy, then mutating webhooks
    SCHEMA      the object against its schema: CRD validation rules (x-kubernetes-validations)
    VALIDATING  validating admission: ValidatingAdmissionPolicy, then validating webhooks (Kyverno's too)

Within a stage, kinds run by `order` (the admission plugin order; ties by name). Every kind of a stage runs on
the same request; the first denial in that order answers the request, and a denial ends the chain (later
stages do not run). A kind that changes the object (`KindOutcome.object`) hands it to every kind after it.

Writing a kind — the whole contract:

    class WebhookMatchConditions:                      # any class with these members; no base class needed
        name = "ValidatingWebhookConfiguration"         # the registry key; also shown in results and errors
        stage = VALIDATING
        order = 200                                     # after ValidatingAdmissionPolicy (100)
        result_keys = {"webhooks": []}                  # keys this kind adds to simulate()'s result, with
                                                        # their value when it does not run (bad request, denial
                                                        # earlier in the chain, exempt request)

        def refuse(self, document) -> list[dict]:       # create-time checks: field errors make the API server
            return []                                   # refuse the document (it then takes no part)

        def load(self, setup: Setup) -> list[dict]:     # once per document set: pick your documents from
            ...                                         # setup.cluster, compile policies and bindings; return
                                                        # located document errors (compile errors, orphans)

        def evaluate(self, request, context: RequestContext) -> KindOutcome:   # once per request; never raises
            ...

        active: bool                                    # set by load: some policy of this kind can take part

        def type_checks(self) -> dict[str, dict]:       # optional: status.typeChecking per policy name
            return {}

    register(WebhookMatchConditions)

What the core gives a kind to build on (import them, do not copy them): `Setup.cluster`
(`admission.cluster.ClusterIndex`: objects by (group, kind), namespaces, CRDs, hooks(policy kind, binding kind));
`admission.dispatcher.PolicyDispatcher` (policy/binding matching, paramKind and params: the (policy, binding,
param) tuples); `admission.matching` (matchConstraints, matchResources, namespace and object selectors);
`admission.expressions` (compile with the server's error texts, run with cost); `admission.conditions.for_input`
(variables composition and budgets); `admission.evaluation` (`Inputs`, `bindings`, `match_conditions`, trace
entries); `admission.activation` (the CEL `request`, `namespaceObject`); `admission.response` (Status texts,
`forbidden_text`) for wording a denial; kind names from `k8s.kinds`.

A `KindOutcome` describes the outcome; the core turns it into the result (status, AdmissionReview, audit Event,
kubectl text): `records` go to `result["policies"]` (one dict per tuple, see evaluator/SCHEMA.md), `warnings`
to the Warning headers, `audit_annotations` to the response and the audit Event, `denial` (a full
metav1.Status plus the `denials` entries and ferricel's view) decides the request, `keys` fill `result_keys`.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from evaluator.admission.cluster import ClusterIndex

MUTATING, SCHEMA, VALIDATING = "mutating", "schema", "validating"
STAGES = (MUTATING, SCHEMA, VALIDATING)

UNCHANGED: Any = object()  # KindOutcome.object when the kind did not touch the object


@dataclass
class Setup:
    """What a kind may read while it loads a document set (after loading, defaulting and API validation)."""

    documents: list[Mapping[str, Any]]          # every accepted document, in order
    cluster: ClusterIndex                       # the same documents indexed (objects, namespaces, CRDs, mapper)
    defaulter: Callable[[dict], dict] | None = None   # built-in defaulting of objects (None: none)
    # An error or warning about one of `documents`, with that document's location (index, line, source…);
    # a kind reports every document problem through it so the caller can show it at its document.
    locate: Callable[..., dict[str, Any]] = lambda document, **fields: dict(fields)
    # Documents the API server refused on create, by (kind, name): the first of their located errors
    # (a binding naming one says its policy is invalid, not that it is missing).
    refused: Mapping[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    # Load another document set as a simulation of its own and return an object with
    # `run(request, *, trace, full) -> result` (Kyverno compares a policy with the VAP it generates).
    nested: Callable[[list[Mapping[str, Any]]], Any] | None = None


@dataclass
class RequestContext:
    """Per request: what a kind needs besides the request itself."""

    original: Mapping[str, Any]                 # the normalized request before any mutation
    authorizers: Callable[[Mapping[str, Any]], tuple[Any, Any]]   # the CEL `authorizer` values for a request
    trace: bool = True                          # False: leave out per-expression traces (batch runs)
    full: bool = True                           # False: only the verdict matters (no audit Event etc.)
    now: dt.datetime | None = None


@dataclass
class Denial:
    """How a kind denies a request: the Status the API server answers with, plus its listing."""

    status: dict[str, Any]                      # the full metav1.Status (`statusObject` of the result)
    denials: list[dict[str, Any]] = field(default_factory=list)   # result["denials"] entries
    ferricel: dict[str, Any] | None = None      # ferricel's {accepted, message, code}; None: from status


@dataclass
class KindOutcome:
    """One kind's outcome for one request (see the module docstring)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    denial: Denial | None = None
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    object: Any = UNCHANGED                     # the object after this kind, when it mutates
    patch: str | None = None                    # base64 JSONPatch for the AdmissionReview response (mutating)
    keys: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class PolicyKind(Protocol):
    """One policy kind behind the core: load a document set once, evaluate each request, describe the outcome."""

    name: str
    stage: str
    order: int
    result_keys: Mapping[str, Any]
    active: bool        # after load: some policy of this kind can take part (e.g. a policy with a binding)

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Field errors for which the API server refuses `document` on create (empty: accepted or not ours)."""

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        """Pick this kind's documents, compile them once; located document errors and warnings."""

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        """This kind's outcome for one normalized AdmissionRequest; never raises."""


_REGISTRY: dict[str, Any] = {}  # kind classes: PolicyKind describes their instances, not the classes


def register(kind: Any) -> Any:
    """Make a kind class known to the simulation (usable as a decorator); its `name` is the key."""
    if kind.stage not in STAGES:
        raise ValueError(f"unknown stage {kind.stage!r} for {kind.name}: one of {', '.join(STAGES)}")
    _REGISTRY[kind.name] = kind
    return kind


def registered(stage: str | None = None) -> list[Any]:
    """The registered kind classes in chain order (stage, then order, then name), or those of one stage."""
    kinds = sorted(_REGISTRY.values(), key=lambda k: (STAGES.index(k.stage), k.order, k.name))
    return [k for k in kinds if stage is None or k.stage == stage]
