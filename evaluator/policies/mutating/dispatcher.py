"""The MutatingAdmissionPolicy dispatcher: policies in order, each (policy, binding, param) tuple's mutations
in order, and one reinvocation pass, as mutating/dispatcher.go and reinvocationcontext.go do.

Matching, params and matchConditions are the admission core's (evaluator.admission: PolicyDispatcher,
evaluation.match_conditions), shared with ValidatingAdmissionPolicy; only what differs for mutation lives here:
- every mutation sees the object as the previous mutation left it (later policies' matchConditions too);
- a failing mutation is a policy error (`policy 'p' with binding 'b' denied request: <err>`) that the
  policy's failurePolicy turns into a denial (Fail) or ignores (Ignore); the remaining mutations still run;
- reinvocation: a tuple whose policy has `reinvocationPolicy: IfNeeded` is remembered when it runs; when a
  later tuple changes the object, or at the end of a pass in which any mutation applied (the attributes are
  "dirty"), the remembered tuples are scheduled, and one more pass runs exactly those. There is never a
  third pass, so a policy that changes the object every time does not loop: the result is reported with
  a note that it did not settle.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import activation as act
from evaluator.admission.cluster import ClusterIndex, name_of
from evaluator.admission.dispatcher import PolicyDispatcher
from evaluator.admission.evaluation import Inputs, bindings, match_conditions
from evaluator.admission.params import param_key
from evaluator.k8s.kinds import MUTATING_BINDING, MUTATING_POLICY
from evaluator.policies.mutating.compiler import CompiledMutatingPolicy, compile_policy
from evaluator.policies.mutating.diff import json_patch_between, semantic_equal
from evaluator.policies.mutating.patchers import run_mutation
from evaluator.k8s.object_schema import schema_for

MUTATING_OPERATIONS = ("CREATE", "UPDATE", "CONNECT")


@dataclass
class PolicyError:
    policy: str
    binding: str | None
    message: str
    failure_policy: str
    # A StatusError from the patcher (apierrors.NewInternalError): it ends admission with its own status,
    # whatever the failurePolicy, and its text carries no policy prefix.
    internal: bool = False

    def text(self) -> str:
        if self.internal:
            return self.message
        if self.binding is not None:
            return f"policy '{self.policy}' with binding '{self.binding}' denied request: {self.message}"
        return f"policy '{self.policy}' denied request: {self.message}"


@dataclass
class MutationResult:
    original: Any = None
    object: Any = None
    denial: PolicyError | None = None
    errors: list[PolicyError] = field(default_factory=list)
    policies: list[dict] = field(default_factory=list)
    mutations: list[dict] = field(default_factory=list)
    reinvoked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return not semantic_equal(self.original, self.object)


@dataclass
class _Invocation:
    policy: Mapping
    compiled: CompiledMutatingPolicy
    binding: Mapping | None = None
    param: Any = None
    matched_kind: Any = None
    matched_resource: Any = None
    error: str | None = None

    @property
    def key(self) -> str:
        param = param_key(self.param) or ""
        return f"{name_of(self.policy)}|{name_of(self.binding) if self.binding is not None else ''}|{param}"


@dataclass
class _ReinvocationState:
    """policyReinvokeContext: tuples invoked since the last change, and those to run on the second pass."""

    previously_invoked: list[str] = field(default_factory=list)
    to_reinvoke: list[str] = field(default_factory=list)
    should_reinvoke: bool = False  # reinvokeCtx.SetShouldReinvoke(): a tuple changed the object, or it is dirty
    last_output: Any = None  # SetLastPolicyInvocationOutput

    def require_reinvoking_previously_invoked(self) -> None:
        self.should_reinvoke = True
        for key in self.previously_invoked:
            if key not in self.to_reinvoke:
                self.to_reinvoke.append(key)
        self.previously_invoked = []


def _denial(errors: list[PolicyError]) -> PolicyError | None:
    """The error that ends admission: an internal one, else the first not under failurePolicy Ignore (under
    a failurePolicy neither Fail nor Ignore, its message says so)."""
    denial = next((e for e in errors if e.internal), None) or next(
        (e for e in errors if e.failure_policy != "Ignore"), None
    )
    if denial is not None and denial.failure_policy != "Fail" and not denial.internal:
        denial.message = f"unrecognized failure policy: '{denial.failure_policy}'"
    return denial


def _record(inv: _Invocation, outcome: str, pass_number: int, **extra: Any) -> dict[str, Any]:
    record = {
        "kind": MUTATING_POLICY,
        "policy": name_of(inv.policy),
        "binding": name_of(inv.binding) if inv.binding is not None else None,
        "param": param_key(inv.param),
        "pass": pass_number,
        "outcome": outcome,
        "skipReason": None,
        "failurePolicy": inv.compiled.failure_policy,
        "reinvocationPolicy": inv.compiled.reinvocation_policy,
        "error": None,
        "matchedKind": dict(inv.matched_kind) if isinstance(inv.matched_kind, dict) else inv.matched_kind,
        "matchedResource": dict(inv.matched_resource)
        if isinstance(inv.matched_resource, dict)
        else inv.matched_resource,
        "mutations": [],
        "trace": None,
    }
    record.update(extra)
    return record


@dataclass
class MutationSession:
    """One request's MutatingAdmissionPolicy plugin state between its first call and its reinvocation."""

    result: MutationResult
    state: _ReinvocationState = field(default_factory=_ReinvocationState)
    objschema: Any = None
    authorizers: Any = (None, None)
    active: bool = True


class MutatingDispatcher:
    """Runs one request through every MutatingAdmissionPolicy of a cluster; reuse it across requests."""

    def __init__(
        self,
        cluster: ClusterIndex,
        authorizer_factory: Callable[[Mapping], tuple[Any, Any]] | None = None,
        defaulter: Callable[[dict], dict] | None = None,
    ):
        self.cluster = cluster
        self.authorizer_factory = authorizer_factory
        self.defaulter = defaulter
        self.tuples = PolicyDispatcher(cluster, MUTATING_POLICY, MUTATING_BINDING, compile_policy)

    def hooks(self) -> list[tuple[Mapping, list[Mapping]]]:
        return self.tuples.hooks()

    def compiled(self, policy: Mapping) -> CompiledMutatingPolicy:
        return self.tuples.compiled(policy)

    # -- invocations (generic.policyDispatcher.Dispatch) ---------------------------------------------
    def _invocations(
        self, request: Mapping[str, Any], skipped: list[tuple[Mapping, Mapping | None, str]]
    ) -> list[_Invocation]:
        invocations: list[_Invocation] = []
        memo: dict = {}  # this pass's request only: a later pass sees the mutated object
        for policy, policy_bindings in self.tuples.hooks():
            found = self.tuples.resolve(policy, policy_bindings, request, memo)
            compiled, kind, resource = found.compiled, found.matched_kind, found.matched_resource
            if found.skip is not None:
                skipped.append((policy, None, found.skip))
                continue
            if found.error is not None:
                invocations.append(_Invocation(policy, compiled, None, None, kind, resource, found.error))
                continue
            for item in found.bindings:
                if item.error is not None:
                    invocations.append(_Invocation(policy, compiled, item.binding, None, kind, resource, item.error))
                elif item.skip is not None:
                    skipped.append((policy, item.binding, item.skip))
                for param in item.params:
                    invocations.append(_Invocation(policy, compiled, item.binding, param, kind, resource))
        return invocations

    # -- one request ----------------------------------------------------------------------------------
    def dispatch(self, request: Mapping[str, Any]) -> MutationResult:
        """Both rounds at once: what the API server does when no other mutating plugin runs in between."""
        session = self.first_round(request)
        if session.state.should_reinvoke:
            self.second_round(dict(request, object=session.result.object), session)
        return session.result

    def first_round(self, request: Mapping[str, Any]) -> MutationSession:
        """The plugin's first call for a request; `session.state.should_reinvoke` asks for a second round."""
        original = request.get("object")
        # Copy on write: no patcher changes the object it is given (each returns a new one, which the
        # defaulter gets a copy of), so the object is only ever copied by a mutation that applies, and
        # `result.object is result.original` tells that no mutation applied (no diff to compute).
        result = MutationResult(original=original, object=original)
        if not self.hooks():  # no bound policy: nothing can change the object
            return MutationSession(result, active=False)
        if str(request.get("operation") or "") not in MUTATING_OPERATIONS or not isinstance(original, Mapping):
            return MutationSession(result, active=False)
        crds = self.cluster.crds
        objschema = schema_for(str(original.get("apiVersion") or ""), str(original.get("kind") or ""), crds)
        if objschema.note:
            result.notes.append(objschema.note)
        authorizers = self.authorizer_factory(request) if self.authorizer_factory is not None else (None, None)
        session = MutationSession(result, objschema=objschema, authorizers=authorizers)
        self._pass(dict(request, object=result.object), 1, session.state, objschema, authorizers, result)
        session.state.last_output = result.object  # never changed in place (copy on write)
        return session

    def second_round(self, request: Mapping[str, Any], session: MutationSession) -> MutationResult:
        """The reinvocation: the tuples scheduled for it, on the object as the other plugins left it; when
        they changed it since this plugin's first round, every IfNeeded tuple that ran is scheduled too."""
        result, state = session.result, session.state
        if not session.active or result.denial is not None:
            return result
        if not semantic_equal(state.last_output, request.get("object")):
            state.require_reinvoking_previously_invoked()
            result.object = copy.deepcopy(request.get("object"))
        if state.to_reinvoke:
            result.reinvoked = list(state.to_reinvoke)
            self._pass(dict(request, object=result.object), 2, state, session.objschema, session.authorizers, result)
            if result.reinvoked and result.denial is None:
                self._note_unsettled(result)
        state.last_output = copy.deepcopy(result.object)
        return result

    def _pass(
        self,
        request: Mapping[str, Any],
        pass_number: int,
        state: _ReinvocationState,
        objschema,
        authorizers,
        result: MutationResult,
    ) -> bool:
        """One call of the plugin; False when a policy error under failurePolicy Fail denies the request."""
        skipped: list[tuple[Mapping, Mapping | None, str]] = []
        invocations = self._invocations(request, skipped)
        if pass_number == 1:
            result.policies.extend(self._skipped_record(policy, binding, reason) for policy, binding, reason in skipped)
        reinvoke = list(state.to_reinvoke) if pass_number == 2 else None
        if reinvoke is not None:
            state.to_reinvoke = []
        dirty = False
        errors: list[PolicyError] = []
        for inv in invocations:
            if any(e.internal for e in errors):
                break
            if inv.error is not None:
                result.policies.append(self._error_record(inv, inv.error, pass_number, errors))
                continue
            record, applied = self._invoke(
                inv, request, result, pass_number, state, objschema, authorizers, errors, reinvoke
            )
            dirty = dirty or applied
            if record is not None:
                result.policies.append(record)
        if dirty:
            state.require_reinvoking_previously_invoked()
        result.errors.extend(errors)
        denial = _denial(errors)
        if denial is not None:
            result.denial = denial
        return denial is None

    def _skipped_record(self, policy: Mapping, binding: Mapping | None, reason: str) -> dict:
        return _record(_Invocation(policy, self.compiled(policy), binding), "skipped", 1, skipReason=reason)

    def _error_record(
        self, inv: _Invocation, message: str, pass_number: int, errors: list[PolicyError], **extra: Any
    ) -> dict:
        error = PolicyError(
            name_of(inv.policy),
            name_of(inv.binding) if inv.binding is not None else None,
            message,
            inv.compiled.failure_policy,
        )
        errors.append(error)
        return _record(
            inv, "error", pass_number, error=error.text(), ignored=inv.compiled.failure_policy == "Ignore", **extra
        )

    def _inputs(self, inv: _Invocation, request: Mapping[str, Any], authorizers) -> Inputs:
        namespace = "" if act.is_core_namespace(request.get("kind")) else str(request.get("namespace") or "")
        ns_doc = self.cluster.namespaces(namespace)
        return Inputs(
            object=act.versioned_object(request.get("object"), request.get("kind"), inv.matched_kind),
            old_object=act.versioned_object(request.get("oldObject"), request.get("kind"), inv.matched_kind),
            request=act.cel_request(request, inv.matched_kind, inv.matched_resource),
            match_request=act.cel_request(request, inv.matched_kind, request.get("resource")),
            params=inv.param,
            namespace_object=act.namespace_object(ns_doc),
            namespace_raw=act.stored_namespace(ns_doc),
            authorizer=authorizers[0],
            request_resource_authorizer=authorizers[1],
        )

    def _invoke(
        self,
        inv: _Invocation,
        request: Mapping[str, Any],
        result: MutationResult,
        pass_number: int,
        state: _ReinvocationState,
        objschema,
        authorizers,
        errors: list[PolicyError],
        reinvoke: list[str] | None,
    ) -> tuple[dict | None, bool]:
        """Match conditions, then (on the second pass only for scheduled tuples) every mutation in order."""
        trace: dict[str, Any] = {"matchConditions": [], "variables": [], "mutations": []}
        request = dict(request, object=result.object)
        inputs = self._inputs(inv, request, authorizers)
        if inv.compiled.match_conditions:
            matches, error, failed = match_conditions(inv.compiled, inputs, trace)
            if error is not None:
                return self._error_record(inv, error, pass_number, errors, trace=trace), False
            if not matches:
                if reinvoke is not None and inv.key not in reinvoke:
                    return None, False
                reason = (
                    f"matchCondition '{failed}' evaluated to false"
                    if failed
                    else "matchConditions errored and failurePolicy is Ignore"
                )
                return _record(inv, "skipped", pass_number, skipReason=reason, trace=trace), False
        if reinvoke is not None and inv.key not in reinvoke:
            return None, False
        before = result.object
        applied = False
        record_mutations: list[dict] = []
        record_errors: list[str] = []
        for mutation in inv.compiled.mutations:
            inputs.object = act.versioned_object(result.object, request.get("kind"), inv.matched_kind)
            bound = bindings(
                inputs,
                with_authorizer=True,
                has_params=inv.compiled.has_params,
                request=inputs.request,
                namespace=inputs.namespace_object,
            )
            outcome = run_mutation(mutation, result.object, bound, inv.compiled.variables, objschema)
            trace["mutations"].append(outcome.trace)
            entry = {
                "policy": name_of(inv.policy),
                "binding": name_of(inv.binding),
                "param": param_key(inv.param),
                "pass": pass_number,
                "index": mutation.index,
                "patchType": mutation.patch_type,
                "error": None,
                "changed": False,
                "patch": [],
                "object": None,
                "testFailed": outcome.test_failed,
            }
            if outcome.error is not None:
                error = PolicyError(
                    name_of(inv.policy),
                    name_of(inv.binding),
                    outcome.error,
                    inv.compiled.failure_policy,
                    internal=outcome.internal,
                )
                errors.append(error)
                entry["error"] = error.text()
                record_errors.append(error.text())
                result.mutations.append(entry)
                record_mutations.append(entry)
                if outcome.internal:
                    break
                continue
            new_object = self.defaulter(copy.deepcopy(outcome.object)) if self.defaulter else outcome.object
            entry["patch"] = json_patch_between(result.object, new_object)
            entry["changed"] = not semantic_equal(result.object, new_object)
            entry["object"] = new_object
            result.object = new_object
            applied = True
            result.mutations.append(entry)
            record_mutations.append(entry)
        changed = not semantic_equal(before, result.object)
        if changed:
            state.require_reinvoking_previously_invoked()
        if inv.compiled.reinvocation_policy == "IfNeeded":
            state.previously_invoked.append(inv.key)
        outcome_word = "error" if record_errors else ("mutated" if changed else "unchanged")
        record = _record(
            inv,
            outcome_word,
            pass_number,
            mutations=record_mutations,
            trace=trace,
            error=record_errors[0] if record_errors else None,
        )
        if record_errors:
            record["ignored"] = inv.compiled.failure_policy == "Ignore"
        return record, applied

    def _note_unsettled(self, result: MutationResult) -> None:
        second = [m for m in result.mutations if m["pass"] == 2 and m["changed"]]
        for entry in second:
            result.notes.append(
                f"policy '{entry['policy']}' with binding '{entry['binding']}' changed the object again "
                f"when reinvoked (mutation {entry['index']}); the API server reinvokes at most once, so "
                "the object may not have settled"
            )
