"""The one interface a policy kind implements, and the registry the simulation reads.

The admission core (this package) knows no particular policy kind. Each kind is a package under
`evaluator/policies/<name>/` whose `__init__.py` calls `register(TheKind)` (directly or by importing the
module that does); `evaluator.policies.load_kinds()` imports every such package (or, given documents, those
the documents concern: a package's optional `kinds.json`), and `evaluator.simulation` runs the registered
kinds stage by stage, in the API server's order:

    MUTATING    mutating admission: MutatingAdmissionPolicy (order 100), then mutating webhooks
    SCHEMA      the (mutated) object against its schema: CRD validation rules (x-kubernetes-validations)
    VALIDATING  validating admission: ValidatingAdmissionPolicy (100), then validating webhooks: Kyverno
                ClusterPolicy/Policy (200), other webhooks after them

Within a stage, kinds run by `order` (the admission plugin order; ties by name). Every kind of a stage sees
the same request; the first denial in that order answers it, and a denial ends the chain (kinds of later
stages do not run; their `result_keys` keep their defaults). A kind that changes the object
(`KindOutcome.object`) hands it to every kind after it. Reinvocation (`Reinvocation` below): when a
mutating kind asked for it, the mutating kinds with `reinvocable = True` run once more after the whole
mutating stage, in order; the outcome of that second call replaces the kind's first one, so it describes
both rounds.

Writing a kind: a class with these members (no base class needed; `PolicyKind` below is the Protocol):

    @register
    class WebhookMatchConditions:
        name = "ValidatingWebhookConfiguration"   # registry key, unique; a kind name from k8s/kinds.py
        stage = VALIDATING
        order = 300                               # after ValidatingAdmissionPolicy (100) and Kyverno (200)
        result_keys = {"webhooks": []}            # keys this kind adds to simulate()'s result, with their value
                                                  # when it does not run; document them in evaluator/SCHEMA.md

        def __init__(self): self.active = False   # no arguments: one instance per loaded document set
                                                  # optional `idle`: True (set by load) when evaluate()
                                                  # would answer every request with an empty KindOutcome
                                                  # and no keys beyond result_keys' defaults; the chain
                                                  # then skips the kind

        def refuse(self, document) -> list[dict]:
            # Create-time validation beyond the core's (which defaults and validates the admissionregistration
            # policy and binding kinds): field errors (`k8s.fielderrors` dicts) for a document of YOUR kind
            # that the API server would refuse; the core drops it and reports them located. [] otherwise.
            return []

        def load(self, setup: Setup) -> list[dict]:
            # Once per document set. Pick your documents (`setup.cluster.objects(group, kind)`, `.crds`,
            # `.hooks(policy_kind, binding_kind)`), compile every expression once, set `self.active` (some
            # policy can take part). Return problems as `setup.locate(document, severity=..., message=...,
            # path=...)` so each names its document.
            ...

        def evaluate(self, request, context: RequestContext) -> KindOutcome:
            # Once per request: a normalized AdmissionRequest (object already mutated by earlier kinds;
            # `context.original` is the request before mutation). Never raise: a bug in one policy is that
            # policy's error record, as the server fails a policy on an unexpected error.
            ...

        def type_checks(self) -> dict[str, dict]:   # optional: `status.typeChecking`-like data per policy name
            return {}

What the core gives a kind (import these; never another kind's internals or a `_private` name):
`cluster.ClusterIndex` (objects by (group, kind), namespaces, CRDs, the REST mapper, `hooks()`);
`dispatcher.PolicyDispatcher` (the (policy, binding, param) tuples of a policy-and-binding kind: paramKind,
matchConstraints, matchResources, params, each policy compiled once); `matching` (`policy_matches`,
`match_resources` for rules + namespaceSelector + objectSelector + matchPolicy, `exempt_reason`);
`expressions` (`compile_expression` with the server's error texts, `run` with the per-call cost limit);
`conditions.for_input` (a list of expressions with lazily composited `variables` and a budget);
`evaluation` (`Inputs`, `bindings`, `match_conditions`, trace entries, the budgets); `activation` (the CEL
`request`, `namespaceObject`, versioned objects); `response` (`status_for`, `forbidden_text`, reason codes)
to word a denial; kind names and groups from `k8s/kinds.py`.

How three of the kinds use this interface:
- Kyverno ValidatingPolicy (`policies/kyverno_vpol/`): stage VALIDATING, order 200 (Kyverno's webhook).
  `load` takes `policies.kyverno.io` ValidatingPolicy objects and compiles variables, matchConditions,
  validations, auditAnnotations with `expressions`; `evaluate` matches `spec.matchConstraints` with
  `matching.policy_matches`, runs `evaluation.match_conditions` then `conditions.for_input`, applies
  `spec.validationActions` (Deny → `Denial` worded as the Kyverno webhook does, Warn → `warnings`, Audit →
  `audit_annotations`); `records` one per policy; `result_keys` e.g. `{"kyvernoValidatingPolicies": []}`;
  `refuse` for what Kyverno's admission check of the policy rejects.
- CRD validation rules (`policies/crd/`): stage SCHEMA, order 100. `load` compiles each
  `x-kubernetes-validations` rule of `setup.cluster.crds` (per version and schema node, `self`/`oldSelf`);
  `refuse` returns the CRD's create-time errors (rules that do not compile, cost over budget); `evaluate`
  validates `request["object"]` (after mutation) of a custom resource, and a failure is a `Denial` with the
  422 Invalid Status (`<Kind>.<group> "<name>" is invalid: <path>: Invalid value: ...`, causes per field);
  `result_keys` e.g. `{"schemaValidation": None}`.
- Webhook matchConditions (`policies/webhooks/`): two classes, `MutatingWebhookConfiguration` (stage
  MUTATING, order 200: after MutatingAdmissionPolicy) and `ValidatingWebhookConfiguration` (stage VALIDATING,
  order 300). `load` compiles each webhook's matchConditions (the webhook entry works as
  `evaluation.MatchConditionPolicy`: failure_policy, has_params False, no variables); `evaluate` matches
  rules/namespaceSelector/objectSelector with `matching.match_resources`, then `evaluation.match_conditions`,
  and reports per webhook whether the API server would call it (`records`, `result_keys`
  `{"webhooks": []}`); only a matchCondition error under `failurePolicy: Fail` is a `Denial`. The object is
  not changed (nothing is called).

A `KindOutcome` describes one request's outcome; the core turns it into the result (Status, AdmissionReview,
audit Event, kubectl text, ferricel): `records` go to `result["policies"]` (one dict per tuple or policy,
with `policy`, `binding`, `outcome`, see evaluator/SCHEMA.md), `warnings` to the Warning headers,
`audit_annotations` to the response and the audit Event, `denial` (the full metav1.Status plus the
`denials` entries and ferricel's view) decides the request, `keys` fill `result_keys`, `object`/`changes`
carry a mutation (`changes`: per policy what this evaluation changed; the core builds `mutationPhases` and
the response's patch from them, see `phases.py`).
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

    documents: list[Mapping[str, Any]]  # every accepted document, in order
    cluster: ClusterIndex  # the same documents indexed (objects, namespaces, CRDs, mapper)
    defaulter: Callable[[dict], dict] | None = None  # built-in defaulting of objects (None: none)
    # An error or warning about one of `documents`, with that document's location (index, line, source…);
    # a kind reports every document problem through it so the caller can show it at its document.
    locate: Callable[..., dict[str, Any]] = lambda document, **fields: dict(fields)
    # Documents the API server refused on create, by (kind, name): the first of their located errors
    # (a binding naming one says its policy is invalid, not that it is missing).
    refused: Mapping[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    # Load another document set as a simulation of its own and return an object with
    # `run(request, *, trace, full) -> result` (Kyverno compares a policy with the VAP or MAP it generates);
    # keyword arguments are the Simulation's (`kubernetes_version`).
    nested: Callable[..., Any] | None = None


@dataclass
class Reinvocation:
    """The API server's admission.ReinvocationContext for one request. A mutating kind that changed the
    object sets `should_reinvoke`; after the whole mutating stage, if it is set, every mutating kind with
    `reinvocable = True` is evaluated once more with `is_reinvoke` True (never a third time) and decides
    itself what to run again (reinvocationPolicy IfNeeded). `values` holds each kind's own state between
    the two rounds, by kind name (Go's ReinvocationContext.Value(PluginName))."""

    should_reinvoke: bool = False
    is_reinvoke: bool = False
    values: dict[str, Any] = field(default_factory=dict)


@dataclass
class RequestContext:
    """Per request: what a kind needs besides the request itself."""

    original: Mapping[str, Any]  # the normalized request before any mutation
    authorizers: Callable[[Mapping[str, Any]], tuple[Any, Any]]  # the CEL `authorizer` values for a request
    trace: bool = True  # False: leave out per-expression traces (batch runs)
    full: bool = True  # False: only the verdict matters (no audit Event etc.)
    now: dt.datetime | None = None
    reinvocation: Reinvocation = field(default_factory=Reinvocation)
    # What `original` was read from when it was remembered (read_request's entry, standing for its content;
    # None otherwise): a kind may keep what it made of the request under it while the request is `original`.
    origin: Any = None


@dataclass
class Denial:
    """How a kind denies a request: the Status the API server answers with, plus its listing."""

    status: dict[str, Any]  # the full metav1.Status (`statusObject` of the result)
    denials: list[dict[str, Any]] = field(default_factory=list)  # result["denials"] entries
    ferricel: dict[str, Any] | None = None  # ferricel's {accepted, message, code}; None: from status


@dataclass
class KindOutcome:
    """One kind's outcome for one request (see the module docstring)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    denial: Denial | None = None
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    object: Any = UNCHANGED  # the object after this kind, when it mutates
    # what this evaluation changed, per policy or webhook: [{"policy", "patch" (JSON Patch), ...}]; the core
    # stamps each with the kind's `phase` (default its name) and round into result["mutationPhases"]
    changes: list[dict[str, Any]] = field(default_factory=list)
    keys: dict[str, Any] = field(default_factory=dict)


def _no_defaults(spec: dict) -> None:
    return None


def _nothing(*_: Any) -> list[Any]:
    return []


@dataclass(frozen=True)
class CreateRules:
    """An admissionregistration document kind's own create-time rules, beside those the core applies to every
    policy (failurePolicy, paramKind, matchConstraints, matchConditions, variables) and binding (policyName,
    paramRef, matchResources) in `defaults.py` and `validation.py`. Each runs after the shared ones, so the
    errors keep the API server's order. A kind's package registers them (`register_create_rules`); the core
    looks them up by document kind and so never names one."""

    kind: str  # the document kind, e.g. a policy kind or its binding kind (k8s/kinds.py)
    default: Callable[[dict], None] = _no_defaults  # the spec's own defaults, in place
    # (spec, check) -> field errors of the kind's own fields; `check` is `validation.SpecCheck` (the
    # policy's name, whether it has params, the expression compile hook, the warnings list)
    validate: Callable[[Mapping[str, Any], Any], list[Any]] = _nothing
    # (document as given, before defaulting) -> deviations tolerated with a warning
    tolerate: Callable[[Mapping[str, Any]], list[Any]] = _nothing


def register_create_rules(rules: CreateRules) -> CreateRules:
    """Make a document kind's own create-time defaults and validation known to the core."""
    _CREATE_RULES[rules.kind] = rules
    return rules


def create_rules(kind: Any) -> CreateRules | None:
    """The registered create-time rules of a document kind (None: only the shared ones apply). Asked before any
    kind registered its rules, the answer would silently skip them: that is an error, not None."""
    if not _CREATE_RULES:
        raise RuntimeError("no policy kind is loaded: call evaluator.policies.load_kinds() first")
    return _CREATE_RULES.get(kind) if isinstance(kind, str) else None


# Pieces the layers above the core ask kind packages for (`provided`), by name:
KIND_SELECTOR = "kind selector"  # (selectors, (group, version, kind), subresource) -> bool, Kyverno `match` kinds
POLICY_REPORT = "policy report"  # (namespace, name, entries) -> a wgpolicyk8s.io (Cluster)PolicyReport


def provide(capability: str, value: Any) -> None:
    """A kind package offers a named piece to the layers above the core (CLI, batch), which must not import
    policy packages: e.g. the kind-selector matcher a cluster listing filters with."""
    _PROVIDED[capability] = value


def provided(capability: str) -> Any:
    """The piece a kind package provided under `capability`; KeyError when no loaded kind provides it
    (callers run `evaluator.policies.load_kinds()` first: a simulation loads only the kinds its documents
    concern)."""
    return _PROVIDED[capability]


@runtime_checkable
class PolicyKind(Protocol):
    """One policy kind behind the core: load a document set once, evaluate each request, describe the outcome."""

    name: str
    stage: str
    order: int
    result_keys: Mapping[str, Any]
    active: bool  # after load: some policy of this kind can take part (e.g. a policy with a binding)

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Field errors for which the API server refuses `document` on create (empty: accepted or not ours)."""

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        """Pick this kind's documents, compile them once; located document errors and warnings."""

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        """This kind's outcome for one normalized AdmissionRequest; never raises."""


_REGISTRY: dict[str, Any] = {}  # kind classes: PolicyKind describes their instances, not the classes
_CREATE_RULES: dict[str, CreateRules] = {}
_PROVIDED: dict[str, Any] = {}


class Absent:
    """An idle stand-in for a kind whose package the document set did not need to import (none of its
    documents is there, `evaluator.policies.load_kinds`): it answers nothing and its result keys keep their
    defaults, as the kind itself does when idle."""

    active = False
    idle = True

    def __init__(self, name: str, stage: str, order: int, result_keys: Mapping[str, Any]) -> None:
        self.name, self.stage, self.order, self.result_keys = name, stage, order, result_keys

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        return []


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
