"""The ValidatingAdmissionPolicy dispatcher: every (policy, binding, param) tuple, as validating/dispatcher.go.

The core's PolicyDispatcher says which tuples a request reaches (policy and binding matching, params); here
each tuple is evaluated once per param and each decision is sorted by the binding's validationActions into
denials, warnings and audited failures. Configuration errors obey the policy's failurePolicy. The first
denial becomes the response. Every tuple, and every policy or binding that was skipped, is reported with
its reason. What a record and a decision say is declared in `records`; a binding's LeanTuple (the shortcut,
off under `shortcuts.off()`) writes the same from the same declarations.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from evaluator import shortcuts
from evaluator.admission import activation as act
from evaluator.admission.cluster import ClusterIndex, name_of
from evaluator.admission.dispatcher import BindingTuples, PolicyDispatcher
from evaluator.admission.evaluation import Inputs
from evaluator.admission.params import param_key
from evaluator.k8s.kinds import VALIDATING_BINDING, VALIDATING_POLICY
from evaluator.policies.validating import reuse
from evaluator.policies.validating.compiler import CompiledPolicy, compile_policy
from evaluator.policies.validating.lean import LeanTuple, lean_tuple
from evaluator.policies.validating.records import (
    DENY,
    ERROR,
    ERROR_IGNORED,
    EVAL_ERROR,
    PUBLISH,
    Denial,
    TupleForm,
    collect,
    decision_entry,
    outcome,
)
from evaluator.policies.validating.validator import ValidateResult, validate

MAX_VALIDATION_FAILURES = 50
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


@dataclass
class DispatchResult:
    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    validation_failures: list[dict] = field(default_factory=list)
    policies: list[dict] = field(default_factory=list)


_TRACED = "traced"  # the key of CompileCache.traced_leans' answer in a plan's `prepared` data
_UNSET = object()


def denial_message(policy: str, binding: str | None, message: str) -> str:
    """How the API server words a ValidatingAdmissionPolicy denial (the Status cause and message)."""
    if binding is not None:
        return f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {message}"
    return f"ValidatingAdmissionPolicy '{policy}' denied request: {message}"


class CompileCache:
    """What does not change between requests, per policy/binding document: the compiled policy, the
    resolved paramKind (both kept by the core's PolicyDispatcher), names and actions. simulate_many and
    batch runs compute each once."""

    def __init__(self, cluster: ClusterIndex, compile: Callable[[Mapping], CompiledPolicy] = compile_policy):
        self.tuples = PolicyDispatcher(cluster, VALIDATING_POLICY, VALIDATING_BINDING, compile)
        # (namespaceObject, stored Namespace) by namespace name: the cluster's namespaces never change, and CEL
        # only reads these values, so every request may share them.
        self.namespaces: dict[str, tuple[Any, Any]] = {}
        self._meta: dict[int, tuple[Mapping, tuple[str, list[str], str]]] = {}
        self._bindings: dict[int, _BindingMeta] = {}
        self._uses_request: bool | None = None
        self._cluster_key: tuple[bytes | None] | None = None  # reuse.cluster_key, once
        self._policy_keys: dict[int, tuple[Mapping, bytes | None]] = {}

    def cluster_key(self) -> bytes | None:
        if self._cluster_key is None:
            self._cluster_key = (reuse.cluster_key(self.tuples.cluster),)
        return self._cluster_key[0]

    def policy_key(self, policy: Mapping, bindings: list[Mapping]) -> bytes | None:
        """`reuse.policy_key`, once per policy (its bindings are the document set's, fixed with it)."""
        hit = self._policy_keys.get(id(policy))
        if hit is None or hit[0] is not policy:
            hit = self._policy_keys[id(policy)] = (policy, reuse.policy_key(policy, bindings))
        return hit[1]

    def uses_request(self) -> bool:
        """Whether any bound policy's expression names `request`: if none does, no request gets a CEL
        `request` value built (the expressions, and so the answer, are the document set's)."""
        if self._uses_request is None:
            self._uses_request = any(self.get(policy).uses_request for policy, _ in self.tuples.hooks())
        return self._uses_request

    def binding_meta(self, policy: Mapping, binding: Mapping) -> _BindingMeta:
        """What a (policy, binding) tuple's records and decisions need that no request changes."""
        hit = self._bindings.get(id(binding))
        if hit is not None and hit.binding is binding and hit.policy is policy:
            return hit
        policy_name, _, failure_policy = self.meta(policy)
        binding_name, actions, _ = self.meta(binding)
        policy_name_ref = str((binding.get("spec") or {}).get("policyName") or "")
        form = TupleForm(policy_name, binding_name, actions, policy_name_ref, failure_policy)
        hit = self._bindings[id(binding)] = _BindingMeta(policy, binding, form, lean_tuple(self.get(policy), form))
        return hit

    def traced_leans(self, policy: Mapping, items: list) -> tuple[tuple[LeanTuple, BindingTuples], ...] | None:
        """(LeanTuple, tuple) of each of a policy's static bindings (`PolicyDispatcher.resolve_static`'s) when
        every one is `traceable`, else None (the dispatcher keeps the answer with the plan)."""
        leans = tuple((self.binding_meta(policy, item.binding).lean, item) for item in items)
        return leans if all(lean is not None and lean.traceable for lean, _ in leans) else None

    def get(self, policy: Mapping[str, Any]) -> CompiledPolicy:
        return self.tuples.compiled(policy)

    def meta(self, doc: Mapping) -> tuple[str, list[str], str]:
        """(name, validationActions, failurePolicy) of a policy or binding document."""
        hit = self._meta.get(id(doc))
        if hit is not None and hit[0] is doc:
            return hit[1]
        value = (name_of(doc), _actions(doc), _failure_policy(doc))
        self._meta[id(doc)] = (doc, value)
        return value


@dataclass(frozen=True)
class _BindingMeta:
    policy: Mapping
    binding: Mapping
    form: TupleForm
    lean: LeanTuple | None  # evaluation straight into the record, for the policies it covers


def _failure_policy(policy: Mapping) -> str:
    return str((policy.get("spec") or {}).get("failurePolicy") or "Fail")


def _actions(binding: Mapping) -> list[str]:
    actions = (binding.get("spec") or {}).get("validationActions")
    return [str(a) for a in actions] if isinstance(actions, list) else []  # a policy has none (fuzzed: anything)


def _record(policy: Mapping, binding: Mapping | None, meta: Callable, **fields: Any) -> dict[str, Any]:
    """The record of a policy or binding that was not evaluated (skipped, or its configuration failed)."""
    policy_name, _, failure_policy = meta(policy)
    binding_name, actions, _ = meta(binding) if binding is not None else (None, [], None)
    record = TupleForm(policy_name, binding_name, actions, "", failure_policy).new_record(None, None, None)
    record.update(fields)  # in place; keys RECORD has not (`ignored`) after its own
    return record


def _as_param_kind(param: Mapping | None, param_kind: Mapping | None) -> Mapping | None:
    """The param as the policy sees it: read through the paramKind's version, so its apiVersion and kind
    are the paramKind's (the informer serves that version; typed objects are wrapped with it)."""
    if param is None or param_kind is None:
        return param
    api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
    if param.get("apiVersion") == api_version and param.get("kind") == kind:
        return param
    return {**param, "apiVersion": api_version, "kind": kind}


class Dispatcher:
    """Runs one request through every hook of a cluster; reuse it across requests (compiled policies)."""

    def __init__(
        self,
        cluster: ClusterIndex,
        authorizer_factory: Callable[[Mapping], tuple[Any, Any]] | None = None,
        cache: CompileCache | None = None,
        trace: bool = True,
    ):
        self.cluster = cluster
        self.trace = trace
        self.authorizer_factory = authorizer_factory
        # What the request was read from, when that stands for it (the caller sets it, as the factory): a
        # policy's dispatch is then reused where nothing it depends on changed (validating/reuse.py).
        self.origin: Any = None
        self.cache = cache or CompileCache(cluster)
        self._authorizers: tuple[Any, Any] | None = None
        self._views: act.RequestViews | None = None
        self._match_memo: dict = {}  # per request (emptied after it): equal matchConstraints are matched once
        self._inputs: dict[tuple, Inputs] = {}  # per request, emptied after it
        self._last_inputs: tuple[Any, Any, Inputs] | None = None  # (kind, resource, inputs) of _inputs_for's last

    def dispatch(self, request: Mapping[str, Any]) -> DispatchResult:
        out = DispatchResult()
        self._authorizers = None
        try:
            part = reuse.request_part(self.origin, self.cache.cluster_key(), self.trace)
            for policy, bindings in self.cache.tuples.hooks():
                try:
                    policy_part = None if part is None else self.cache.policy_key(policy, bindings)
                    if part is None or policy_part is None:
                        self._dispatch_policy(policy, bindings, request, out)
                    else:
                        self._dispatch_reusing(
                            reuse.look_up(part, policy_part, out.warnings), policy, bindings, request, out
                        )
                except Exception as exc:  # our bug: fail this policy as the server fails on unexpected errors
                    out.policies.append(
                        self._config_error(out, policy, None, f"internal error: {type(exc).__name__}: {exc}")
                    )
        finally:
            # The per-request state refers back to this dispatcher (the inputs' `authorizers` thunk): drop it,
            # so that the request's values are freed as soon as the result no longer needs them, not by the
            # cyclic garbage collector. The (empty) dicts serve the next request.
            self._inputs.clear()
            self._last_inputs = None
            self._match_memo.clear()
            self._views = None
            self._authorizers = None
        if out.validation_failures:
            failures = out.validation_failures[:MAX_VALIDATION_FAILURES]
            out.audit_annotations[VALIDATION_FAILURE_KEY] = _go_json(failures)
        return out

    def _dispatch_reusing(
        self, lookup: reuse.Lookup, policy: Mapping, bindings: list[Mapping], request: Mapping, out: DispatchResult
    ) -> None:
        """The policy's dispatch replayed when it is kept; else made, and kept if it was made once before."""
        if lookup.kept is not None:
            reuse.replay(lookup.kept, out)
        elif not lookup.seen:
            self._dispatch_policy(policy, bindings, request, out)
            reuse.made_once(lookup)
        else:
            before = reuse.mark(out)
            self._dispatch_policy(policy, bindings, request, out)
            reuse.keep(lookup, before, out)

    # -- one policy -------------------------------------------------------------------------------
    def _config_error(self, out: DispatchResult, policy: Mapping, binding: Mapping | None, error: str) -> dict:
        fp = _failure_policy(policy)
        prefix = "failed to configure binding: " if binding is not None else "failed to configure policy: "
        message = prefix + error
        if fp == "Ignore":
            return _record(policy, binding, self.cache.meta, outcome="error", error=message, ignored=True)
        if fp != "Fail":
            message = f"unrecognized failure policy: '{fp}'"
        out.denials.append(Denial(name_of(policy), name_of(binding) if binding is not None else None, message))
        return _record(policy, binding, self.cache.meta, outcome="error", error=message, ignored=False)

    def _namespace_values(self, name: str) -> tuple[Any, Any]:
        """(namespaceObject, stored Namespace) for the request namespace; an unknown namespace is
        assumed to exist with only its metadata.name label (the simulation has no API server to ask)."""
        found = self.cache.namespaces.get(name)
        if found is None:
            doc = self.cluster.namespaces(name)
            found = self.cache.namespaces[name] = (act.namespace_object(doc), act.stored_namespace(doc))
        return found

    def _authorizers_for(self, request: Mapping) -> tuple[Any, Any]:
        """The CEL `authorizer` values, built once per request (the server's caching authorizer)."""
        if self._authorizers is None:
            self._authorizers = (
                self.authorizer_factory(request) if self.authorizer_factory is not None else (None, None)
            )
        return self._authorizers

    def _request_views(self, request: Mapping) -> act.RequestViews:
        """The request's CEL `request` values, made when a policy first needs one (most requests need none)."""
        views = self._views
        if views is None:
            views = self._views = act.RequestViews(request)
        return views

    def _inputs_for(self, request: Mapping, matched_kind: Any, matched_resource: Any) -> Inputs:
        """The CEL inputs of the tuples that matched as (kind, resource), built once per request: only
        `params` differs between tuples, and each tuple sets it before it evaluates."""
        last = self._last_inputs  # the previous policy's, commonly: policies share their matchConstraints
        if last is not None and last[0] is matched_kind and last[1] is matched_resource:
            return last[2]
        key = (id(matched_kind), id(matched_resource))  # the dicts stay alive: the match memo holds them
        inputs = self._inputs.get(key)
        if inputs is None:  # built apart: its closures' cells are made only then, not on every hit
            inputs = self._inputs[key] = self._new_inputs(request, matched_kind, matched_resource)
        self._last_inputs = (matched_kind, matched_resource, inputs)
        return inputs

    def _new_inputs(self, request: Mapping, matched_kind: Any, matched_resource: Any) -> Inputs:
        namespace = str(request.get("namespace") or "")
        ns_name = "" if act.is_core_namespace(request.get("kind")) else namespace
        namespace_object, namespace_raw = self._namespace_values(ns_name)
        return Inputs(
            object=act.versioned_object(request.get("object"), request.get("kind"), matched_kind),
            old_object=act.versioned_object(request.get("oldObject"), request.get("kind"), matched_kind),
            request=self._request_views(request).view(matched_kind, matched_resource)
            if self.cache.uses_request()
            else None,
            match_request=lambda: self._request_views(request).view(matched_kind, request.get("resource")),
            params=None,
            namespace_object=namespace_object,
            namespace_raw=namespace_raw,
            trace=self.trace,
            authorizers=lambda: self._authorizers_for(request),
        )

    def _dispatch_policy(self, policy: Mapping, bindings: list[Mapping], request: Mapping, out: DispatchResult) -> None:
        static = self.cache.tuples.resolve_static(policy, bindings, request, self._match_memo)
        if static is not None:  # matched, every binding one tuple of params == null
            plan, kind, resource = static
            if self.trace and shortcuts.ON:
                traced = plan.prepared.get(_TRACED, _UNSET)
                if traced is _UNSET:
                    traced = plan.prepared[_TRACED] = self.cache.traced_leans(policy, plan.static)
                if traced is not None:
                    self._dispatch_traced(policy, plan.compiled, kind, resource, traced, request, out)
                    return
            compiled, items = plan.compiled, plan.static
        else:
            found = self.cache.tuples.resolve(policy, bindings, request, self._match_memo)
            if found.skip is not None:
                out.policies.append(_record(policy, None, self.cache.meta, outcome="skipped", skipReason=found.skip))
                return
            if found.error is not None:
                out.policies.append(self._config_error(out, policy, None, found.error))
                return
            compiled, kind, resource, items = found.compiled, found.matched_kind, found.matched_resource, found.bindings
        collector: dict[str, list[str]] = {}
        for item in items:
            if item.error is not None:
                out.policies.append(self._config_error(out, policy, item.binding, item.error))
            elif item.skip is not None:
                out.policies.append(
                    _record(policy, item.binding, self.cache.meta, outcome="skipped", skipReason=item.skip)
                )
            else:
                self._dispatch_binding(
                    policy, compiled, kind, resource, item.binding, item.params, request, out, collector
                )
        if not collector:
            return
        policy_name = self.cache.meta(policy)[0]
        for key, values in collector.items():
            out.audit_annotations[f"{policy_name}/{key}"] = values[0] if len(values) == 1 else ", ".join(values)

    def _dispatch_traced(
        self,
        policy: Mapping,
        compiled: CompiledPolicy,
        matched_kind: Any,
        matched_resource: Any,
        traced: tuple[tuple[LeanTuple, BindingTuples], ...],
        request: Mapping,
        out: DispatchResult,
    ) -> None:
        """`_dispatch_binding` of each of a policy's static bindings (one tuple, params == null) when all are
        `traceable` LeanTuples: a binding whose evaluation the lean form refuses takes the general path."""
        inputs = self._inputs_for(request, matched_kind, matched_resource)
        inputs.params = None
        for lean, item in traced:
            record = lean.traced_record(inputs, (None, matched_kind, matched_resource), out)
            if record is not None:
                out.policies.append(record)
                continue
            collector: dict[str, list[str]] = {}  # a traceable policy has no auditAnnotations to publish
            self._dispatch_binding(
                policy, compiled, matched_kind, matched_resource, item.binding, item.params, request, out, collector
            )

    def _dispatch_binding(
        self,
        policy: Mapping,
        compiled: CompiledPolicy,
        matched_kind: Any,
        matched_resource: Any,
        binding: Mapping,
        params: list,
        request: Mapping,
        out: DispatchResult,
        collector: dict[str, list[str]],
    ) -> None:
        inputs = self._inputs_for(request, matched_kind, matched_resource)
        meta = self.cache.binding_meta(policy, binding)
        lean = meta.lean if shortcuts.ON else None
        if lean is not None and self.trace and not lean.traceable:
            lean = None
        for param in params:
            inputs.params = None if param is None else _as_param_kind(param, compiled.param_kind)
            where = (None if param is None else param_key(param), matched_kind, matched_resource)
            if lean is not None:  # the shortcut; it declines (None) with nothing written
                if self.trace:
                    record = lean.traced_record(inputs, where, out)
                else:
                    record = lean.form.new_record(*where)
                    if not lean.decide(inputs, record, out, collector):
                        record = None
                if record is not None:
                    out.policies.append(record)
                    continue
            self._general(meta.form, compiled, inputs, where, out, collector)

    def _general(
        self,
        form: TupleForm,
        compiled: CompiledPolicy,
        inputs: Inputs,
        where: tuple,
        out: DispatchResult,
        collector: dict,
    ) -> None:
        """The tuple evaluated by `validate` (every shape, error and budget), its decisions applied to `out`."""
        result = validate(compiled, inputs)
        record = form.new_record(*where)
        record["trace"] = result.trace or None
        out.policies.append(record)
        if result.skipped:
            record["outcome"], record["skipReason"] = "skipped", result.skip_reason
            return
        words = _decisions(form, result, record["decisions"], out)
        words |= _annotations(form, result, record["auditAnnotations"], out, collector)
        if not words:  # "admitted", as the record says already
            return
        record["outcome"] = outcome(words)
        if "error" in words or ERROR_IGNORED in words:
            record["error"] = next((d.message for d in result.decisions if d.evaluation == EVAL_ERROR), None) or next(
                (a["error"] for a in result.audit_annotations if a["error"]), None
            )
            record["ignored"] = "error" not in words


def _decisions(form: TupleForm, result: ValidateResult, entries: list, out: DispatchResult) -> set[str]:
    """Each decision's entry, and what a decision that denies does under the binding's actions; the outcome
    words they add."""
    words: set[str] = set()
    for position, decision in enumerate(result.decisions):
        is_error = decision.evaluation == EVAL_ERROR
        if decision.action != DENY:
            entries.append(
                decision_entry(decision.index, decision.action, decision.evaluation, decision.message, decision.reason)
            )
            if is_error:
                words.add(ERROR_IGNORED)
            continue
        failed = form.failure(position, decision.index, decision.evaluation, decision.message, decision.reason)
        entries.append(failed[0])
        form.apply(failed, out)
        words |= form.error_words if is_error else form.failed_words
    return words


def _annotations(
    form: TupleForm, result: ValidateResult, entries: list, out: DispatchResult, collector: dict[str, list[str]]
) -> set[str]:
    """Each auditAnnotation's entry; a published value is collected, an error denies. The outcome words added."""
    words: set[str] = set()
    for entry in result.audit_annotations:
        entries.append(entry)
        if entry["action"] == PUBLISH:
            collect(collector, entry["key"], entry["value"])
        elif entry["action"] == ERROR:
            out.denials.append(Denial(form.policy_name, form.binding_name, entry["error"]))
            words.add("error")
    return words


# json.dumps with these, made once; the failures it encodes are built here (strings, ints, lists): never cyclic.
# orjson writes the same text several times faster; this encoder is for what orjson refuses (lone surrogates).
_GO_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


def _go_json(value: Any) -> str:
    """encoding/json's compact form (Go escapes <, > and & in strings)."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError
        text = _GO_JSON.encode(value)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
