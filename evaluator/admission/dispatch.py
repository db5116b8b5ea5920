"""The ValidatingAdmissionPolicy dispatcher: every (policy, binding, param) tuple, as validating/dispatcher.go.

For each policy that a binding names (document order): match the policy, then each binding, collect the
binding's params, evaluate once per param, and sort each decision by the binding's validationActions
into denials, warnings and audited failures. Configuration errors obey the policy's failurePolicy. The
first denial becomes the response. Every tuple, and every policy or binding that was skipped, is
reported with its reason.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import dispatch_ports as ports
from evaluator.k8s.namespaces import assumed_namespace
from evaluator.validating import activation as act
from evaluator.validating.cluster import ClusterIndex, name_of
from evaluator.validating.compiler import CompiledPolicy, compile_policy
from evaluator.validating.params import PolicySkipped, collect_params, param_key, resolve_param_kind
from evaluator.validating.validator import DENY, ERROR, PUBLISH, Inputs, validate

MAX_AUDIT_ANNOTATION_VALUE_BYTES = 10 * 1024
MAX_VALIDATION_FAILURES = 50
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


@dataclass
class Denial:
    policy: str
    binding: str | None
    message: str
    reason: str = ""


@dataclass
class DispatchResult:
    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    validation_failures: list[dict] = field(default_factory=list)
    policies: list[dict] = field(default_factory=list)


class CompileCache:
    """What does not change between requests, per policy/binding document: the compiled policy, the
    resolved paramKind, names and actions. simulate_many and batch runs compute each once."""

    def __init__(self):
        self._cache: dict[int, tuple[Mapping, CompiledPolicy]] = {}
        self._sources: dict[int, tuple[Mapping, tuple]] = {}
        self._meta: dict[int, tuple[Mapping, tuple[str, list[str], str]]] = {}

    def get(self, policy: Mapping[str, Any]) -> CompiledPolicy:
        key = id(policy)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is policy:
            return hit[1]
        compiled = compile_policy(policy)
        self._cache[key] = (policy, compiled)
        return compiled

    def param_source(self, policy: Mapping, compiled: CompiledPolicy, cluster: ClusterIndex) -> tuple:
        """(ParamSource, configuration error, reason the policy is dropped) for the policy's paramKind."""
        hit = self._sources.get(id(policy))
        if hit is not None and hit[0] is policy:
            return hit[1]
        try:
            value = (*resolve_param_kind(compiled.param_kind, cluster), None)
        except PolicySkipped as exc:
            value = (None, None, str(exc))
        self._sources[id(policy)] = (policy, value)
        return value

    def meta(self, doc: Mapping) -> tuple[str, list[str], str]:
        """(name, validationActions, failurePolicy) of a policy or binding document."""
        hit = self._meta.get(id(doc))
        if hit is not None and hit[0] is doc:
            return hit[1]
        value = (name_of(doc), _actions(doc), _failure_policy(doc))
        self._meta[id(doc)] = (doc, value)
        return value


def _failure_policy(policy: Mapping) -> str:
    return str((policy.get("spec") or {}).get("failurePolicy") or "Fail")


def _actions(binding: Mapping) -> list[str]:
    return [str(a) for a in ((binding.get("spec") or {}).get("validationActions") or [])]


def _record(policy: Mapping, binding: Mapping | None, outcome: str, _meta: Callable | None = None,
            **extra: Any) -> dict[str, Any]:
    meta = _meta or (lambda doc: (name_of(doc), _actions(doc), _failure_policy(doc)))
    policy_name, _, failure_policy = meta(policy)
    binding_name, actions, _ = meta(binding) if binding is not None else (None, [], None)
    record = {
        "policy": policy_name,
        "binding": binding_name,
        "param": None,
        "outcome": outcome,
        "skipReason": None,
        "failurePolicy": failure_policy,
        "validationActions": list(actions),
        "error": None,
        "matchedKind": None,
        "matchedResource": None,
        "decisions": [],
        "auditAnnotations": [],
        "trace": None,
    }
    record.update(extra)
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


def _is_core_namespace(kind: Any) -> bool:
    kind = kind if isinstance(kind, Mapping) else {}
    return kind.get("group", "") == "" and kind.get("version") == "v1" and kind.get("kind") == "Namespace"


class Dispatcher:
    """Runs one request through every hook of a cluster; reuse it across requests (compiled policies)."""

    def __init__(self, cluster: ClusterIndex, authorizer_factory: Callable[[Mapping], tuple[Any, Any]] | None = None,
                 cache: CompileCache | None = None, trace: bool = True):
        self.cluster = cluster
        self.trace = trace
        self.authorizer_factory = authorizer_factory
        self.cache = cache or CompileCache()
        self._authorizers: tuple[Any, Any] | None = None
        self._views: act.RequestViews | None = None
        self._namespaces: dict[str, tuple] = {}

    def dispatch(self, request: Mapping[str, Any]) -> DispatchResult:
        out = DispatchResult()
        self._authorizers = None
        self._views = act.RequestViews(request)
        self._namespaces: dict[str, tuple] = {}
        for policy, bindings in self.cluster.hooks():
            try:
                self._dispatch_policy(policy, bindings, request, out)
            except Exception as exc:  # our bug: fail this policy as the server fails on unexpected errors
                out.policies.append(self._config_error(out, policy, None, f"internal error: {type(exc).__name__}: {exc}"))
        if out.validation_failures:
            failures = out.validation_failures[:MAX_VALIDATION_FAILURES]
            out.audit_annotations[VALIDATION_FAILURE_KEY] = _go_json(failures)
        return out

    # -- one policy -------------------------------------------------------------------------------
    def _config_error(self, out: DispatchResult, policy: Mapping, binding: Mapping | None, error: str) -> dict:
        fp = _failure_policy(policy)
        prefix = "failed to configure binding: " if binding is not None else "failed to configure policy: "
        message = prefix + error
        if fp == "Ignore":
            return _record(policy, binding, "error", self.cache.meta, error=message, ignored=True)
        if fp != "Fail":
            message = f"unrecognized failure policy: '{fp}'"
        out.denials.append(Denial(name_of(policy), name_of(binding) if binding is not None else None, message))
        return _record(policy, binding, "error", self.cache.meta, error=message, ignored=False)

    def _namespace_values(self, name: str) -> tuple[Any, Any]:
        """(namespaceObject, stored Namespace) for the request namespace; an unknown namespace is
        assumed to exist with only its metadata.name label (the simulation has no API server to ask)."""
        if name not in self._namespaces:
            doc = None
            if name:
                doc = self.cluster.namespaces.get(name) or assumed_namespace(name)
            self._namespaces[name] = (act.namespace_object(doc), act.stored_namespace(doc))
        return self._namespaces[name]

    def _authorizers_for(self, request: Mapping) -> tuple[Any, Any]:
        """The CEL `authorizer` values, built once per request (the server's caching authorizer)."""
        if self._authorizers is None:
            self._authorizers = (self.authorizer_factory(request) if self.authorizer_factory is not None
                                 else (None, None))
        return self._authorizers

    def _dispatch_policy(self, policy: Mapping, bindings: list[Mapping], request: Mapping, out: DispatchResult) -> None:
        compiled = self.cache.get(policy)
        source, config_error, skipped = self.cache.param_source(policy, compiled, self.cluster)
        if skipped is not None:
            out.policies.append(_record(policy, None, "skipped", self.cache.meta, skipReason=skipped))
            return
        match = ports.definition_matches(policy, request, self.cluster)
        if match.error is not None:
            out.policies.append(self._config_error(out, policy, None, match.error))
            return
        if not match.matched:
            out.policies.append(_record(policy, None, "skipped", self.cache.meta, skipReason=match.reason or "policy does not match"))
            return
        if config_error is not None:
            out.policies.append(self._config_error(out, policy, None, config_error))
            return
        collector: dict[str, list[str]] = {}
        for binding in bindings:
            self._dispatch_binding(policy, compiled, source, binding, match, request, out, collector)
        policy_name = self.cache.meta(policy)[0]
        for key, values in collector.items():
            out.audit_annotations[f"{policy_name}/{key}"] = values[0] if len(values) == 1 else ", ".join(values)

    def _dispatch_binding(self, policy, compiled, source, binding, match, request, out, collector) -> None:
        bmatch = ports.binding_matches(binding, request, self.cluster)
        if bmatch.error is not None:
            out.policies.append(self._config_error(out, policy, binding, bmatch.error))
            return
        if not bmatch.matched:
            out.policies.append(_record(policy, binding, "skipped", self.cache.meta, skipReason=bmatch.reason or "binding does not match"))
            return
        spec = binding.get("spec") or {}
        namespace = str(request.get("namespace") or "")
        params, error = collect_params(compiled.param_kind, source, spec.get("paramRef"), namespace, self.cluster)
        if error is not None:
            out.policies.append(self._config_error(out, policy, binding, error))
            return
        if not params:
            out.policies.append(_record(policy, binding, "skipped",
                                        skipReason="no params found and parameterNotFoundAction is Allow"))
            return
        ns_name = "" if _is_core_namespace(request.get("kind")) else namespace
        namespace_object, namespace_raw = self._namespace_values(ns_name)
        matched_kind = match.matched_kind or request.get("kind")
        matched_resource = match.matched_resource or request.get("resource")
        authorizer, resource_authorizer = self._authorizers_for(request)
        views = self._views
        inputs = Inputs(
            object=act.versioned_object(request.get("object"), request.get("kind"), matched_kind),
            old_object=act.versioned_object(request.get("oldObject"), request.get("kind"), matched_kind),
            request=views.view(matched_kind, matched_resource),
            match_request=lambda: views.view(matched_kind, request.get("resource")),
            params=None,
            namespace_object=namespace_object,
            namespace_raw=namespace_raw,
            trace=self.trace,
            authorizer=authorizer,
            request_resource_authorizer=resource_authorizer,
        )
        policy_name = self.cache.meta(policy)[0]
        binding_name, actions, _ = self.cache.meta(binding)
        for param in params:
            inputs.params = _as_param_kind(param, compiled.param_kind)
            result = validate(compiled, inputs)
            record = _record(policy, binding, "admitted", self.cache.meta, param=param_key(param),
                             matchedKind=matched_kind, matchedResource=matched_resource, trace=result.trace or None)
            if result.skipped:
                record.update(outcome="skipped", skipReason=result.skip_reason)
                out.policies.append(record)
                continue
            outcomes = set()
            for position, decision in enumerate(result.decisions):
                record["decisions"].append({"index": decision.index, "action": decision.action,
                                            "evaluation": decision.evaluation, "message": decision.message or None,
                                            "reason": decision.reason or None})
                if decision.action != DENY:
                    if decision.evaluation == "error":
                        outcomes.add("error-ignored")
                    continue
                is_error = decision.evaluation == "error"
                for action in actions:
                    if action == "Deny":
                        out.denials.append(Denial(policy_name, binding_name, decision.message, decision.reason))
                        outcomes.add("error" if is_error else "denied")
                    elif action == "Audit":
                        out.validation_failures.append({
                            "message": decision.message, "policy": str(spec.get("policyName") or ""),
                            "binding": binding_name, "expressionIndex": position, "validationActions": list(actions)})
                        outcomes.add("audited")
                    elif action == "Warn":
                        warning = (f"Validation failed for ValidatingAdmissionPolicy '{policy_name}' "
                                   f"with binding '{binding_name}': {decision.message}")
                        if warning not in out.warnings:
                            out.warnings.append(warning)
                        outcomes.add("warned")
            for annotation in result.audit_annotations:
                record["auditAnnotations"].append({"key": annotation.key, "action": annotation.action,
                                                   "value": annotation.value or None, "error": annotation.error or None})
                if annotation.action == PUBLISH:
                    value = _truncate(annotation.value, MAX_AUDIT_ANNOTATION_VALUE_BYTES)
                    values = collector.setdefault(annotation.key, [])
                    if value not in values:
                        values.append(value)
                elif annotation.action == ERROR:
                    out.denials.append(Denial(policy_name, binding_name, annotation.error))
                    outcomes.add("error")
            record["outcome"] = _outcome(outcomes)
            if "error" in outcomes or "error-ignored" in outcomes:
                record["error"] = next((d.message for d in result.decisions if d.evaluation == "error"), None) or \
                    next((a.error for a in result.audit_annotations if a.error), None)
                record["ignored"] = "error-ignored" in outcomes and "error" not in outcomes
            out.policies.append(record)


def _outcome(outcomes: set[str]) -> str:
    """One word for a tuple: a failed validation that denies wins, then an error under Fail, then the
    softer actions; an error that failurePolicy Ignore swallowed is still reported as an error."""
    for name in ("denied", "error", "warned", "audited"):
        if name in outcomes:
            return name
    return "error" if "error-ignored" in outcomes else "admitted"


def _truncate(value: str, limit: int) -> str:
    encoded = value.encode()
    if len(encoded) <= limit:
        return value
    return encoded[:limit].decode(errors="ignore")


def _go_json(value: Any) -> str:
    """encoding/json's compact form (Go escapes <, > and & in strings)."""
    import json
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
