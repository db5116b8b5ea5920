"""Running Kyverno validate policies on one admission request (pkg/engine/validation.go + the CLI's context)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.admission.api_versions import split_api_version
from evaluator.cel.errors import long_number_message

from . import wildcard
from .context import Context
from .context_entries import ContextLoader, OfflineData
from .exceptions import matching_exceptions
from .images import extract_images

from .policy_facts import PolicyFacts, facts, validate_rules
from .match import MatchInput, RequestInfo, all_apply, applies, check_selector, matches_rule
from .rule_validator import ERROR, FAIL, SKIP, RuleInput, RuleResponse, load_and_check_preconditions, rule_validator
from . import cel_rules, generate, pss


def request_info(request: dict, values: dict) -> RequestInfo:
    user = request.get("userInfo") or {}
    return RequestInfo(
        username=user.get("username", "") or "",
        uid=user.get("uid", "") or "",
        groups=list(user.get("groups") or []),
        roles=list(values.get("roles") or []),
        cluster_roles=list(values.get("clusterRoles") or []),
    )


def build_context(
    request: dict, info: RequestInfo, values: dict, has_user: bool, object_later: bool = False
) -> Context:
    """The JSON context Kyverno builds for an admission request. `object_later`: `request.object` is left
    None (in its place) for the caller to set, which saves copying it (the mutate rules set their own).
    The context's data is never changed in place (see `Context`), so the data built for one request is
    shared by every policy evaluated on it: the last request's is kept, by identity of request and values."""
    key = (has_user, object_later)
    cached = _last_base[0]
    same = cached is not None and _same(cached[0], request) and cached[1] is values
    if same and key in cached[2]:  # type: ignore[index]
        data, operation = cached[2][key]  # type: ignore[index]
    else:
        data, operation = _base_data(request, info, values, has_user, object_later)
        if not same:
            cached = (_request_key(request), values, {})
            _last_base[0] = cached
        cached[2][key] = (data, operation)  # type: ignore[index]
    ctx = Context(data)
    ctx.operation = operation
    return ctx


# (request key, values, {(has_user, object_later): (data, operation)}) of the last request a context was built for
_last_base: list[tuple[tuple, dict, dict] | None] = [None]


def _request_key(request: dict) -> tuple:
    """What the per-request caches compare: the request and the parts of it that are replaced rather than
    changed in place when a caller reuses a request dict (its objects, operation and user)."""
    return (
        request,
        request.get("object"),
        request.get("oldObject"),
        request.get("operation"),
        request.get("userInfo"),
        request.get("kind"),
    )


def _same(key: tuple, request: dict) -> bool:
    """`key` is `_request_key(request)`, part for part by identity (asked once per policy and request)."""
    get = request.get
    return (
        key[0] is request
        and key[1] is get("object")
        and key[2] is get("oldObject")
        and key[3] is get("operation")
        and key[4] is get("userInfo")
        and key[5] is get("kind")
    )


def _base_data(request: dict, info: RequestInfo, values: dict, has_user: bool, object_later: bool) -> tuple[dict, str]:
    ctx = Context()
    # a fresh top level is enough: `ctx.add` deep-copies what it stores
    req = {k: v for k, v in request.items() if v is not None or k in ("object", "oldObject")}
    if req.get("object") is None:
        req.pop("object", None)
    elif object_later:
        req["object"] = None
    if req.get("oldObject") is None:
        req.pop("oldObject", None)
    ctx.add(req, "request")
    if has_user:
        ctx.add(
            {
                "roles": info.roles,
                "clusterRoles": info.cluster_roles,
                "userInfo": request.get("userInfo") or {},
            },
            "request",
        )
        prefix = "system:serviceaccount:"
        sa = info.username[len(prefix) :] if len(info.username) > len(prefix) else ""
        parts = sa.split(":")
        name, ns = (parts[1], parts[0]) if len(parts) >= 2 else ("", "")
        ctx.add({"serviceAccountName": name, "serviceAccountNamespace": ns})
    resource = request.get("object") if request.get("operation") != "DELETE" else request.get("oldObject")
    images = extract_images(resource or {})
    if images:
        ctx.add(images, "images")
    for key, value in (values.get("variables") or {}).items():
        ctx.add_variable(key, value)
    return ctx.data, request.get("operation", "") or ""


_ACTIONS = ("enforce", "audit", "Enforce", "Audit")


def _override(overrides: list | None, namespace: str, labels: dict) -> str | None:
    """The action of the first override whose namespaces and namespaceSelector both take the resource
    (engineresponse.go matchOverride): no namespaces means every namespace, no selector every label set."""
    for o in overrides or []:
        if not isinstance(o, dict) or o.get("action") not in _ACTIONS:
            continue
        names = o.get("namespaces")
        if names is None or names == []:
            in_names = names is None
        else:
            in_names = any(isinstance(ns, str) and wildcard.match(ns, namespace) for ns in names)
        if not in_names:
            continue
        selector = o.get("namespaceSelector")
        if selector is None or check_selector(selector, labels) == (True, None):
            return o["action"]
    return None


def _action(policy: dict, rule: dict, namespace: str, labels: dict | None = None) -> str:
    """A rule's failure action: its own overrides, its failureAction, then the policy's overrides and
    validationFailureAction (engineresponse.go ruleAction / failureActionForRule)."""
    v = rule.get("validate") or {}
    spec = policy.get("spec") or {}
    action = _override(v.get("failureActionOverrides"), namespace, labels or {})
    if action is None:
        action = v.get("failureAction")
    if action is None:
        action = _override(spec.get("validationFailureActionOverrides"), namespace, labels or {})
    if action is None:
        action = spec.get("validationFailureAction") or "Audit"
    return "Enforce" if str(action).lower() == "enforce" else "Audit"


@dataclass
class PolicyRun:
    """What every rule of one policy is evaluated against: built once per (policy, request)."""

    policy: dict
    request: dict
    operation: str
    resource: dict  # as read back from the context (variables may override it)
    namespace: str  # the namespace of the resource as the request gave it (picks the failure action)
    ctx: Context
    offline: OfflineData
    exceptions: list
    match: MatchInput

    def action(self, rule: dict, namespace: str | None = None) -> str:
        return _action(
            self.policy, rule, self.namespace if namespace is None else namespace, self.match.namespace_labels
        )


def evaluate_policy(policy: dict, request: dict, documents: list, values: dict, exceptions: list) -> dict:
    """One policy's result: a response for each validate rule that applies, the names of those that do not."""
    run = _policy_run(policy, request, documents, values, exceptions, context=False)
    f = facts(policy)
    rules = validate_rules(policy, run.match.gvk[2])
    known = _known_verdicts(policy, rules, run, f, values)
    if f.has_generate or values.get("variables") or any(known):
        # only a policy with something to evaluate pays for the context (a mutate-only policy has nothing, nor
        # one whose rules match other requests: without variables the context's resource is the request's)
        resource = run.match.resource
        _add_context(run, values)
        if run.match.resource is not resource:  # the context's copy, which variables may have changed: ask again
            known = all_apply(policy, rules, run.match, f.namespace) or []
    out: dict[str, Any] = {"kind": f.kind, "policy": f.name, "namespace": f.namespace, "rules": [], "notApplicable": []}
    for index, rule in enumerate(rules):
        applied = known[index] if index < len(known) else applies(rule, run.match, f.namespace)
        resp = _run_applied(run, rule) if applied else None
        if resp is None:
            out["notApplicable"].append(rule.get("name", ""))
            continue
        out["rules"].append(
            {"rule": resp.rule, "result": resp.status, "message": resp.message, "action": run.action(rule)}
        )
        if f.apply_one and resp.status in ("pass", "fail"):
            break
    if f.has_generate:
        out["generate"] = generate.run_rules(run, values.get("generateSources"))
    return out


def _known_verdicts(policy: dict, rules: list[dict], run: PolicyRun, f: PolicyFacts, values: dict) -> list[bool]:
    """Whether the rules apply, as far as known before the context is built: every rule's when they select by
    kind alone, else each rule's up to the first that applies (the loop asks the rest)."""
    known = all_apply(policy, rules, run.match, f.namespace)
    if known is not None:
        return known
    known = []
    if not (f.has_generate or values.get("variables")):
        for rule in rules:
            known.append(applies(rule, run.match, f.namespace))
            if known[-1]:
                break
    return known


def generate_events(policies: list, request: dict, documents: list, values: dict, exceptions: list) -> list[dict]:
    """Generate results of requests that are not on a trigger: on a Kyverno policy itself (generateExisting,
    deletion), on a synchronized downstream or on a clone source."""
    event = generate.policy_events(_policy_run, request, documents, values, exceptions)
    others = generate.non_trigger_events(_policy_run, policies, request, documents, values, exceptions)
    return ([event] if event is not None else []) + others


def _request_gvk(request: dict, resource: dict) -> tuple[str, str, str]:
    """The request's kind when it names one, else the resource's apiVersion and kind."""
    group, version = split_api_version(resource.get("apiVersion", ""))
    kind = (request.get("kind") or {}).get("kind") or resource.get("kind", "")
    if request.get("kind"):
        return request["kind"].get("group", ""), request["kind"].get("version", ""), kind
    return group, version, kind


def _offline_data(policy: dict, documents: list, values: dict) -> OfflineData:
    """What a policy's rules may read offline. Without values for them (a batch, most simulations) it
    depends on the documents and the policy's namespace alone, and is kept for the last documents: every
    policy of every request asks (rules only read it; generate copies the documents it writes)."""
    f = facts(policy)
    if not any(values[key] for key in _OFFLINE_VALUES & values.keys()):
        kept = _offline_kept[0]
        if kept is None or kept[0] is not documents:  # swapped whole: a thread holds its own documents' pair
            kept = _offline_kept[0] = (documents, {})
        namespace = f.namespace
        found = kept[1].get(namespace)
        if found is None:
            found = kept[1][namespace] = OfflineData(documents=list(documents), policy_namespace=namespace)
        return found
    policy_name = f.name
    rule_values = values.get("ruleValues") or {}
    return OfflineData(
        documents=list(documents),
        policy_namespace=f.namespace,
        rule_values=rule_values.get(policy_name, rule_values.get("*", {})),
        foreach_values=(values.get("foreachValues") or {}).get(policy_name, {}),
        global_context=values.get("globalContext") or {},
        api_calls=list(values.get("apiCallResponses") or []),
        serve_api_calls=bool(values.get("apiCallsFromDocuments")),
    )


_OFFLINE_VALUES = frozenset(
    ("ruleValues", "foreachValues", "globalContext", "apiCallResponses", "apiCallsFromDocuments")
)
_offline_kept: list[tuple[list, dict[str, OfflineData]] | None] = [None]  # (documents, {policy namespace: data})


def _resource_from_context(ctx: Context, resource: dict, operation: str) -> dict:
    """The CLI reads the resource back from the context so that variables can override it."""
    if operation == "DELETE":
        return resource
    request = ctx.data.get("request")  # the query `request.object` on a fresh context, without parsing it
    obj = request.get("object") if isinstance(request, dict) else None
    return obj if isinstance(obj, dict) else resource


def _policy_run(
    policy: dict,
    request: dict,
    documents: list,
    values: dict,
    exceptions: list,
    context: bool = True,
    object_later: bool = False,
) -> PolicyRun:
    """What the policy's rules run against; without `context`, an empty context (for a policy that turns
    out to have no rule to evaluate, so that it does not pay for copying the request); `object_later`:
    see `build_context` (the run's `resource` is then the request's object)."""
    operation, resource, meta, gvk, info, ns_labels = _request_parts(request, documents, values)
    offline = _offline_data(policy, documents, values)
    m = MatchInput(
        resource=resource,
        gvk=gvk,
        subresource=request.get("subResource", "") or "",
        operation=operation,
        namespace_labels=ns_labels,
        info=info,
    )
    run = PolicyRun(policy, request, operation, resource, meta.get("namespace", ""), Context(), offline, exceptions, m)
    if context:
        _add_context(run, values, object_later)
    return run


def _request_parts(request: dict, documents: list, values: dict) -> tuple:
    """(operation, resource, its metadata, gvk, RequestInfo, namespace labels): the same for every policy on
    one request, so the last request's are kept (by identity of request, documents and values; none of them
    is changed while its policies run)."""
    cached = _last_parts[0]
    if cached is not None and _same(cached[0], request) and cached[1] is documents and cached[2] is values:
        return cached[3]
    operation = request.get("operation") or "CREATE"
    resource = (request.get("oldObject") if operation == "DELETE" else request.get("object")) or {}
    meta = resource.get("metadata") or {}
    gvk = _request_gvk(request, resource)
    info = request_info(request, values)
    has_user = bool(request.get("userInfo")) or bool(values.get("roles")) or bool(values.get("clusterRoles"))
    if not has_user:
        info = RequestInfo()
    ns_labels = values.get("namespaceLabels")
    if ns_labels is None:
        namespace = meta.get("namespace") or request.get("namespace") or ""
        model = values.get("namespaces")  # a simulation's Namespaces: known or assumed, as the webhook sees them
        ns_labels = model.labels(namespace) if model is not None else _namespace_labels(documents, namespace)
    parts = (operation, resource, meta, gvk, info, ns_labels or {})
    _last_parts[0] = (_request_key(request), documents, values, parts)
    return parts


_last_parts: list[tuple[tuple, list, dict, tuple] | None] = [None]


def _add_context(run: PolicyRun, values: dict, object_later: bool = False) -> None:
    """The run's context, and its resource read back from it (unless `object_later`)."""
    request = run.request
    has_user = bool(request.get("userInfo")) or bool(values.get("roles")) or bool(values.get("clusterRoles"))
    run.ctx = build_context(request, run.match.info, values, has_user, object_later)
    if not object_later:
        run.resource = _resource_from_context(run.ctx, run.resource, run.operation)
        run.match.resource = run.resource


def _namespace_labels(documents: list, namespace: str) -> dict:
    for doc in documents:
        if doc.get("kind") == "Namespace" and (doc.get("metadata") or {}).get("name") == namespace:
            return dict((doc.get("metadata") or {}).get("labels") or {})
    return {}


def _run_applied(run: PolicyRun, rule: dict) -> RuleResponse | None:
    """The response of a rule that applies (None: it has nothing to say, as a pattern on a DELETE); the
    context is as before it afterwards."""
    name = rule.get("name", "")
    run.ctx.checkpoint()
    try:
        return _run_rule(run, rule)
    except Exception as err:  # a defect must still come out as data about this rule
        problem = (
            long_number_message(err) or f"internal error while evaluating rule {name}: {type(err).__name__}: {err}"
        )
        return RuleResponse(name, ERROR, problem)
    finally:
        run.ctx.restore()


def _run_rule(run: PolicyRun, rule: dict) -> RuleResponse | None:
    """validation.go's order: context, preconditions, exceptions, then the rule's kind of validation."""
    name = rule.get("name", "")
    loader = ContextLoader(run.offline, name)
    stopped = load_and_check_preconditions(name, run.ctx, loader, rule.get("context") or [], rule.get("preconditions"))
    if stopped is not None:
        return stopped
    v = rule.get("validate") or {}
    matched = matching_exceptions(run.exceptions, run.policy, name, run.match, run.ctx)
    if v.get("podSecurity") is not None:
        return _pod_security_rule(run, rule, matched)
    if matched:
        return RuleResponse(name, SKIP, "rule is skipped due to policy exceptions" + ", ".join(k for k, _ in matched))
    if v.get("cel") is not None:
        return cel_rules.evaluate_rule(rule, run.request, run.resource, run.match, run.offline)
    if v.get("manifests") is not None:
        return RuleResponse(name, ERROR, "validate.manifests (signature verification) cannot run offline")
    return _pattern_rule(run, rule, loader)


def _pod_security_rule(run: PolicyRun, rule: dict, matched: list[tuple[str, dict]]) -> RuleResponse | None:
    """An exception without podSecurity controls skips the rule; those with controls exempt them."""
    without_pss = [key for key, exc in matched if not (exc.get("spec") or {}).get("podSecurity")]
    if without_pss:
        return RuleResponse(rule.get("name", ""), SKIP, "rule is skipped due to policy exception " + without_pss[0])
    excludes = [e for _, exc in matched for e in (exc.get("spec") or {}).get("podSecurity") or []]
    enforce = run.action(rule, _namespace_of(run.resource)) == "Enforce"
    return pss.evaluate_rule(rule, run.resource, run.operation, run.request.get("oldObject"), enforce, excludes)


def _namespace_of(resource: dict) -> str:
    return (resource.get("metadata") or {}).get("namespace", "")


def _pattern_rule(run: PolicyRun, rule: dict, loader: ContextLoader) -> RuleResponse | None:
    """pattern / anyPattern / deny / foreach; an enforced UPDATE that only keeps a violation the old object
    already had is skipped (allowExistingViolations)."""
    resp = rule_validator(rule).validate(RuleInput(run.ctx, run.resource, run.operation, loader))
    if resp is None or resp.status != FAIL or not _allows_existing_violations(run, rule):
        return resp
    old = run.request.get("oldObject")
    if isinstance(old, dict) and old:
        prior = _validate_old(rule, run.ctx, old, run.offline, run.match)
        if prior is not None and prior.status == FAIL:
            return RuleResponse(
                rule.get("name", ""), SKIP, "skipping the rule evaluation as pre-existing violations are allowed"
            )
    return resp


def _allows_existing_violations(run: PolicyRun, rule: dict) -> bool:
    return (
        run.operation == "UPDATE"
        and (rule.get("validate") or {}).get("allowExistingViolations", True) is not False
        and run.action(rule, _namespace_of(run.resource)) == "Enforce"
    )


def _validate_old(rule, ctx, old, offline, m) -> RuleResponse | None:
    ctx.checkpoint()
    try:
        ctx.set_object(old)
        request = {k: v for k, v in ctx.data["request"].items() if k != "oldObject"}
        ctx.put("request", {**request, "operation": "CREATE"})
        saved_op = ctx.operation
        ctx.operation = "CREATE"
        m_old = MatchInput(
            resource=old,
            gvk=m.gvk,
            subresource=m.subresource,
            operation="CREATE",
            namespace_labels=m.namespace_labels,
            info=RequestInfo(
                username="kyverno:kyverno-invalid-controller",
                uid="kyverno:invaliduid",
                groups=["kyverno:invalidgroup"],
                roles=["kyverno:invalidrole"],
                cluster_roles=["kyverno:invalidrole"],
            ),
        )
        if matches_rule(rule, m_old) is not None:
            return RuleResponse(rule.get("name", ""), SKIP, "resource not matched")
        inp = RuleInput(ctx, old, "CREATE", ContextLoader(offline, rule.get("name", "")))
        resp = rule_validator(rule).validate(inp)
        ctx.operation = saved_op
        return resp
    finally:
        ctx.restore()
