"""`simulate(documents, request)`: one admission request through the admission chain as the API server runs it.

This module only composes: loading, defaulting and validation of the documents, request inference and the
result come from the admission core (`evaluator.admission`); the policy kinds are plug-ins
(`evaluator.policies`, interface in `evaluator/admission/policy_kind.py`) run stage by stage in the API
server's order: mutating admission, then schema validation, then validating admission and webhooks.
Nothing here raises: unusable input becomes located entries of `result["errors"]`. The result schema is
documented in evaluator/SCHEMA.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.admission import loading
from evaluator.admission.cluster import ClusterIndex
from evaluator.admission.expressions import make_authorizers
from evaluator.admission.matching import exempt_reason
from evaluator.admission.policy_kind import MUTATING, UNCHANGED, KindOutcome, RequestContext, Setup
from evaluator.admission.parsed_texts import copied
from evaluator.admission.read_request import owned, read_request
from evaluator.admission.result import admission_result, bad_request, crash, internal_error, kind_defaults
from evaluator.admission.phases import phase_entries, response_patch
from evaluator.admission.trace_location import locate_traces
from evaluator.authz import CachingAuthorizer, RBACAuthorizer
from evaluator.cel.versions import NEWEST, parse_version, simulating
from evaluator.k8s.defaulting import default_object, redefault
from evaluator.k8s.served_versions import unserved_reason
from evaluator.k8s.kinds import CUSTOM_RESOURCE_DEFINITION
from evaluator.k8s.restmapping import RESTMapper, builtin_mapper
from evaluator.policies import chain, concerned_packages, load_kinds

__all__ = ["simulate", "simulate_many", "load", "Simulation"]


class Simulation:
    """A loaded document set, ready for many requests (policies compiled once). Neither loading nor `run`
    raises: a bug of ours becomes an internal-error entry (and a 500 result)."""

    def __init__(
        self,
        documents: Any,
        *,
        resource_registry: list[Mapping] | None = None,
        api_validation: str = "enforce",
        defaulter: Any = None,
        defaulting: bool = True,
        kubernetes_version: str | None = None,
        policy_objects: tuple[Any, ...] = (),
    ):
        """`policy_objects`: objects (a request's) whose policy kinds must run though no document is of them."""
        self._arguments = (documents, resource_registry, api_validation, defaulter, defaulting, kubernetes_version)
        self._policy_objects = policy_objects
        self._packages: set[str] = set()
        self._widenings: dict[frozenset[str], Simulation] = {}
        self.kubernetes_version = parse_version(kubernetes_version or NEWEST)
        self.defaulting = defaulting  # built-in objects as the API server decodes and stores them
        if defaulter is None and defaulting:
            defaulter = redefault  # MutatingAdmissionPolicy: re-defaulted after each patch
        with simulating(self.kubernetes_version):
            self._build(documents, resource_registry, api_validation, defaulter)

    def _build(
        self, documents: Any, resource_registry: list[Mapping] | None, api_validation: str, defaulter: Any
    ) -> None:
        self.errors: list[dict[str, Any]] = []
        self.api_validation = api_validation
        self.kinds: list[Any] = []
        self._key_defaults: list[tuple[str, Any, Any]] = []
        self.chain: list[Any] = []  # the kinds a request goes through: `kinds` less the idle ones
        self.cluster = ClusterIndex([], None)
        self.rbac = RBACAuthorizer([])
        self._records: dict[int, Any] = {}
        self._by_name: dict[tuple, Any] | None = None
        self._refused_records: dict[int, Any] = {}
        self._type_checks: dict[str, dict] | None = None
        self._failure: dict[str, Any] | None = None
        try:
            self._load(documents, resource_registry, defaulter)
        except Exception as exc:  # the contract: errors are data
            self._failure = internal_error(exc)
            self.errors.append(self._failure)
        for error in self.errors:
            error.setdefault("document", None)

    def _load(self, documents: Any, resource_registry: list[Mapping] | None, defaulter: Any) -> None:
        records, errors = loading.load(documents)
        self.errors.extend(errors)
        # Only the kinds these documents concern are imported and run; the others are idle stand-ins.
        concerned = [*(record.data for record in records), *self._policy_objects]
        self._packages = concerned_packages(concerned)
        kinds = chain(load_kinds(concerned))
        records = self._served_and_stored(records)
        loaded = list(records)
        records, errors = loading.default_and_validate(records, self.api_validation, [k.refuse for k in kinds])
        self.errors.extend(errors)
        refused = _refused(errors)
        records, duplicates = loading.deduplicate(records)
        self.errors.extend({"severity": "warning", **w} for w in duplicates)
        data = [r.data for r in records]
        self._index(data, resource_registry)
        self._records = {id(r.data): r for r in records}
        # Refused documents too, only to place what a kind says about them (a refused CRD's rule costs).
        self._refused_records = {id(r.data): r for r in loaded if id(r.data) not in self._records}
        setup = Setup(data, self.cluster, defaulter, locate=self._locate, nested=Simulation, refused=refused)
        for kind in kinds:
            self.errors.extend(kind.load(setup))
        self.kinds = kinds
        # kind_defaults(kinds), read once: (key, type of a list or dict to make one per result, or None, value)
        self._key_defaults = [
            (key, type(value) if isinstance(value, (list, dict)) else None, value)
            for key, value in kind_defaults(kinds).items()
        ]
        # An idle kind answers every request with nothing (its result keys keep their defaults): skip it.
        self.chain = [kind for kind in kinds if not getattr(kind, "idle", False)]

    def _index(self, data: list[dict[str, Any]], resource_registry: list[Mapping] | None) -> None:
        """The cluster the documents make: objects, namespaces, the REST mapping (with their CRDs), RBAC."""
        crds = [d for d in data if d.get("kind") == CUSTOM_RESOURCE_DEFINITION]
        base = RESTMapper.from_registry(resource_registry) if resource_registry else builtin_mapper()
        mapper, problems = base.with_crds(crds)
        self.errors.extend({"severity": "warning", "kind": CUSTOM_RESOURCE_DEFINITION, "message": p} for p in problems)
        self.cluster = ClusterIndex(data, mapper)
        self.rbac = RBACAuthorizer(data)

    def _served_and_stored(self, records: list[Any]) -> list[Any]:
        """Drop admission-policy documents of an API version the simulated release does not serve; default
        the cluster's built-in objects (namespaces, params) as they are stored."""
        kept = []
        for record in records:
            unserved = unserved_reason(record.data, self.kubernetes_version)
            if unserved is not None:
                self.errors.append(loading.located(record, severity="error", message=unserved))
                continue
            if self.defaulting:
                record.data = default_object(record.data).object
            kept.append(record)
        return kept

    def _locate(self, document: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
        record = self._records.get(id(document)) or self._refused_records.get(id(document))
        return loading.located(record, **fields)

    def document_of(self, kind: str, name: str) -> Any:
        """The loaded document of the policy `kind`/`name` (the first of that name), or None."""
        if self._by_name is None:
            self._by_name = {}
            for record in self._records.values():
                key = (getattr(record, "kind", None), getattr(record, "name", None))
                if all(isinstance(part, str) for part in key):  # what is asked for is always text
                    self._by_name.setdefault(key, record)
        return self._by_name.get((kind, name))

    # -- one request ------------------------------------------------------------------------------
    def _authorizers(self, request: Mapping[str, Any]) -> tuple[Any, Any]:
        return make_authorizers(CachingAuthorizer(self.rbac.check), request)

    def type_checks(self) -> dict[str, dict]:
        """`status.typeChecking` of every policy that has one (by name), computed once per document set."""
        if self._type_checks is None:
            checks: dict[str, dict] = {}
            with simulating(self.kubernetes_version):
                for kind in self.kinds:
                    if hasattr(kind, "type_checks"):
                        checks.update(kind.type_checks())
            self._type_checks = checks
        return self._type_checks

    def run(
        self,
        request: Any,
        *,
        now: dt.datetime | None = None,
        trace: bool = True,
        full: bool = True,
        type_checks: bool = True,
        request_name: str | None = None,
    ) -> dict[str, Any]:
        """The result for one request; never raises. Batch runs pass `trace=False` (no per-expression traces)
        and `full=False` (no audit event, AdmissionReview, kubectl text or type checks: those keys are null);
        `type_checks=False` leaves out only the type checks (the live editor computes them apart). The
        request's own errors name it `request_name`, else by its `NamedText` name, else `request`."""
        if self._failure is not None:
            result = crash(
                self._failure, kind_defaults(chain(set())), [e for e in self.errors if e is not self._failure]
            )
        else:
            try:
                with simulating(self.kubernetes_version):
                    result = self._run(
                        request, now=now, trace=trace, full=full, type_checks=type_checks, request_name=request_name
                    )
            except Exception as exc:  # the contract: errors are data
                result = crash(internal_error(exc), kind_defaults(self.kinds), self.errors)
        result["kubernetesVersion"] = self.kubernetes_version
        return result

    def _widened(self, request: Mapping[str, Any]) -> Simulation | None:
        """For a request about a policy object whose package no document concerns (creating a GeneratingPolicy
        with generateExisting, deleting a ClusterPolicy that generates): this document set with that package
        loaded too, since its kind answers such requests (policy events). Built once per set of packages."""
        if self._policy_objects:
            return None
        objects = _objects_of(request)
        missing = frozenset(concerned_packages(objects) - self._packages) if objects else frozenset()
        if not missing:
            return None
        found = self._widenings.get(missing)
        if found is None:
            documents, registry, api_validation, defaulter, defaulting, version = self._arguments
            found = self._widenings[missing] = Simulation(
                documents,
                resource_registry=registry,
                api_validation=api_validation,
                defaulter=defaulter,
                defaulting=defaulting,
                kubernetes_version=version,
                policy_objects=tuple(copied(o) for o in objects),  # the request's are a remembered read's
            )
        return found if found._failure is None else None

    def _run(
        self,
        request: Any,
        *,
        now: dt.datetime | None,
        trace: bool,
        full: bool,
        type_checks: bool,
        request_name: str | None,
    ) -> dict[str, Any]:
        document_errors = list(self.errors)
        source = request_source(request, request_name)
        read = read_request(request, self.cluster.mapper, source, self.defaulting)
        keys = {key: value if make is None else make() for key, make, value in self._key_defaults}
        if read.request is None:
            request_echo = owned(read.normalized.request, {}) or {}
            return bad_request(request_echo, document_errors, read.errors, keys, read.rejection)
        widened = self._widened(read.normalized.request)
        if widened is not None:  # its kind answers this request: run it where that kind is loaded
            return widened._run(
                request, now=now, trace=trace, full=full, type_checks=type_checks, request_name=request_name
            )
        request, request_errors, defaulted = read.request, read.errors, read.defaulted
        request_errors += self._unknown_namespace(request.get("namespace"), source)
        exempt = exempt_reason(request)
        if exempt is not None:
            result = admission_result(
                request, [], document_errors, request_errors, exempt, now, full, decoding_warnings=read.warnings
            )
            result.update(keys, typeChecking=None, defaulted=defaulted)
            return result
        context = RequestContext(request, self._authorizers, trace=trace, full=full, now=now, origin=read.origin)
        phases: list[dict[str, Any]] = []
        ran, final = self._through_chain(request, context, phases)
        outcomes = [outcome for _, outcome in ran]
        for outcome in outcomes:  # kinds sharing a list key (Kyverno's two) add to it
            for key, value in outcome.keys.items():
                keys[key] = keys[key] + value if isinstance(value, list) and isinstance(keys.get(key), list) else value
        patch = response_patch(request.get("object"), final.get("object")) if full and phases else None
        result = admission_result(
            request, outcomes, document_errors, request_errors, exempt, now, full, patch, read.warnings
        )
        result.update(keys, mutationPhases=phases)
        if trace:  # without traces there is no row to locate
            for kind, outcome in ran:
                if outcome.records:
                    locate_traces(outcome.records, self.document_of, kind.name)
        result["typeChecking"] = self.type_checks() if full and type_checks else None
        result["defaulted"] = defaulted
        return result

    def _unknown_namespace(self, namespace: Any, source: str) -> list[dict[str, Any]]:
        if namespace and namespace not in self.cluster.namespaces and any(k.active for k in self.kinds):
            message = (
                f'Namespace "{namespace}" is not among the documents: it is taken to '
                "exist with only its kubernetes.io/metadata.name label"
            )
            return [{"severity": "warning", "source": source, "message": message, "document": None}]
        return []

    def _through_chain(
        self, request: Mapping[str, Any], context: RequestContext, phases: list[dict[str, Any]]
    ) -> tuple[list[tuple[Any, KindOutcome]], Mapping[str, Any]]:
        """Every kind of the chain in order, until a stage ends denied: (kind, its outcome) of each that ran,
        and the request as the last kind left it; what each mutating kind changed is added to `phases`."""
        ran: list[tuple[Any, KindOutcome]] = []
        current = request
        denied_in = None
        chain = self.chain
        for position, kind in enumerate(chain):
            if denied_in is not None and kind.stage != denied_in:
                break  # a denial ends admission: later stages never see the request
            outcome = kind.evaluate(current, context)
            ran.append((kind, outcome))
            if kind.stage == MUTATING:
                phases += phase_entries(kind, 0, current.get("object"), outcome)
            if outcome.denial is not None and denied_in is None:
                denied_in = kind.stage
            if outcome.object is not UNCHANGED:
                current = dict(current, object=outcome.object)
            stage_ends = position + 1 == len(chain) or chain[position + 1].stage != kind.stage
            if kind.stage == MUTATING and stage_ends and denied_in is None and context.reinvocation.should_reinvoke:
                current, denied_in = _reinvoke(ran, current, context, phases)
        return ran, current


def request_source(request: Any, name: str | None = None) -> str:
    """The `source` of the request's errors and warnings: the name it goes by (`name`, else the name of a
    `NamedText`: the request's file, the editor's request), else `request`."""
    for candidate in (name, getattr(request, "name", None)):
        if isinstance(candidate, str) and candidate:
            return candidate
    return "request"


def _refused(errors: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The first error of each document the API server refused, by (kind, name): in enforce mode a refused
    document's errors are errors, else warnings."""
    refused: dict[tuple[str, str], dict[str, Any]] = {}
    for error in errors:
        if error.get("severity") == "error" and error.get("kind"):
            refused.setdefault((error["kind"], error.get("name") or ""), error)
    return refused


def _reinvoke(
    ran: list[tuple[Any, KindOutcome]], current: Mapping[str, Any], context: RequestContext, phases: list[dict]
) -> tuple[Mapping[str, Any], str | None]:
    """admission's reinvoker: the mutating stage once more (only kinds that take part in reinvocation), each
    second outcome replacing the kind's first; the request after it and whether it was denied."""
    context.reinvocation.is_reinvoke = True
    for index, (kind, _) in enumerate(ran):
        if kind.stage != MUTATING or not getattr(kind, "reinvocable", False):
            continue
        outcome = kind.evaluate(current, context)
        ran[index] = (kind, outcome)
        phases += phase_entries(kind, 1, current.get("object"), outcome)
        if outcome.object is not UNCHANGED:
            current = dict(current, object=outcome.object)
        if outcome.denial is not None:
            return current, MUTATING
    return current, None


def _objects_of(request: Mapping[str, Any]) -> tuple[Any, ...]:
    """The objects a (normalized) admission request carries."""
    return tuple(o for o in (request.get("object"), request.get("oldObject")) if isinstance(o, Mapping))


def load(documents: Any, **options: Any) -> Simulation:
    """A document set loaded once (policies compiled), for many `run(request)` calls; never raises.
    `simulation.errors` lists the documents' errors, each with the index of its document. The options are
    `Simulation`'s (`simulate` says what each does)."""
    return Simulation(documents, **options)


def simulate(
    documents: Any,
    request: Any,
    *,
    now: dt.datetime | None = None,
    type_checks: bool = True,
    request_name: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Admit or deny `request` against `documents`; never raises (see SCHEMA.md for the result).

    `api_validation="enforce"` drops documents the API server would refuse (as `kubectl apply` would);
    `"report"` lists the same errors as warnings but lets the documents take part, as objects built
    in-process (the API server's own unit tests) do. `resource_registry` replaces the built-in REST
    mapping by `[{kind, resource, subresource}]` rows. `defaulting=False` leaves built-in objects as given
    (the API server's in-process unit tests build them without defaulting). `kubernetes_version` ("1.31")
    simulates that release (default: the newest): its CEL libraries, macros and checks, and the admission
    API versions it serves (evaluator/cel/versions.py); an unsupported version is a 400. `defaulter`
    replaces the re-defaulting of an object after each mutation. `type_checks=False` leaves `typeChecking`
    null (a caller that does not show it saves the checker's time). `request_name` is the name the
    request's errors call it by (its file; default: a `NamedText`'s name, else `request`)."""
    refused = _unsupported_version(options.get("kubernetes_version"), request_source(request, request_name))
    if refused is not None:
        return refused
    return load(documents, **options).run(request, now=now, type_checks=type_checks, request_name=request_name)


def _unsupported_version(kubernetes_version: str | None, source: str = "request") -> dict[str, Any] | None:
    try:
        parse_version(kubernetes_version or NEWEST)
    except ValueError as exc:
        return bad_request(
            {},
            [],
            [{"severity": "error", "source": source, "message": str(exc), "document": None}],
            kind_defaults(chain(set())),
        )
    return None


def simulate_many(
    documents: Any, requests: Iterable[Any], *, now: dt.datetime | None = None, **options: Any
) -> list[dict[str, Any]]:
    """`simulate` for many requests against one document set (same options), compiling each policy once."""
    refused = _unsupported_version(options.get("kubernetes_version"))
    requests = list(requests)
    if refused is not None:
        return [refused for _ in requests]
    simulation = load(documents, **options)
    return [simulation.run(request, now=now) for request in requests]
