"""Running Kyverno validate policies on one admission request (pkg/engine/validation.go + the CLI's context)."""

from __future__ import annotations

import copy

from evaluator.cel.errors import long_number_message

from . import autogen, conditions
from .context import Context
from .context_entries import ContextLoader, OfflineData
from .exceptions import matching_exceptions
from .images import extract_images
from .match import MatchInput, RequestInfo, matches_rule
from .rule_validator import ERROR, FAIL, SKIP, RuleInput, RuleResponse, Validator
from . import cel_rules, pss


def _split_gv(api_version: str) -> tuple[str, str]:
    if "/" in api_version:
        g, v = api_version.split("/", 1)
        return g, v
    return "", api_version


def request_info(request: dict, values: dict) -> RequestInfo:
    user = request.get("userInfo") or {}
    return RequestInfo(
        username=user.get("username", "") or "",
        uid=user.get("uid", "") or "",
        groups=list(user.get("groups") or []),
        roles=list(values.get("roles") or []),
        cluster_roles=list(values.get("clusterRoles") or []),
    )


def build_context(request: dict, info: RequestInfo, values: dict, has_user: bool) -> Context:
    """The JSON context Kyverno builds for an admission request."""
    ctx = Context()
    req = copy.deepcopy({k: v for k, v in request.items() if v is not None or k in ("object", "oldObject")})
    if req.get("object") is None:
        req.pop("object", None)
    if req.get("oldObject") is None:
        req.pop("oldObject", None)
    ctx.add(req, "request")
    ctx.operation = request.get("operation", "") or ""
    if has_user:
        ctx.add(
            {
                "roles": info.roles,
                "clusterRoles": info.cluster_roles,
                "userInfo": copy.deepcopy(request.get("userInfo") or {}),
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
    return ctx


def _action(policy: dict, rule: dict, namespace: str) -> str:
    v = rule.get("validate") or {}
    action = v.get("failureAction") or (policy.get("spec") or {}).get("validationFailureAction") or "Audit"
    overrides = v.get("failureActionOverrides") or (policy.get("spec") or {}).get("validationFailureActionOverrides")
    from . import wildcard

    for o in overrides or []:
        if any(wildcard.match(ns, namespace) for ns in o.get("namespaces") or []):
            action = o.get("action", action)
    return "Enforce" if str(action).lower() == "enforce" else "Audit"


def evaluate_policy(policy: dict, request: dict, documents: list, values: dict, exceptions: list) -> dict:
    operation = request.get("operation") or "CREATE"
    resource = (request.get("oldObject") if operation == "DELETE" else request.get("object")) or {}
    meta = resource.get("metadata") or {}
    group, version = _split_gv(resource.get("apiVersion", ""))
    kind = (request.get("kind") or {}).get("kind") or resource.get("kind", "")
    if request.get("kind"):
        gvk = (request["kind"].get("group", ""), request["kind"].get("version", ""), kind)
    else:
        gvk = (group, version, kind)
    policy_name = (policy.get("metadata") or {}).get("name", "")
    policy_ns = (policy.get("metadata") or {}).get("namespace", "") if policy.get("kind") == "Policy" else ""
    info = request_info(request, values)
    has_user = bool(request.get("userInfo")) or bool(values.get("roles")) or bool(values.get("clusterRoles"))
    ns_labels = values.get("namespaceLabels")
    if ns_labels is None:
        ns_labels = _namespace_labels(documents, meta.get("namespace") or request.get("namespace") or "")
    rule_values = values.get("ruleValues") or {}
    offline = OfflineData(
        documents=list(documents),
        policy_namespace=policy_ns,
        rule_values=rule_values.get(policy_name, rule_values.get("*", {})),
        foreach_values=(values.get("foreachValues") or {}).get(policy_name, {}),
        global_context=values.get("globalContext") or {},
        api_calls=list(values.get("apiCallResponses") or []),
        serve_api_calls=bool(values.get("apiCallsFromDocuments")),
    )
    out = {
        "kind": policy.get("kind", "ClusterPolicy"),
        "policy": policy_name,
        "namespace": policy_ns,
        "rules": [],
        "notApplicable": [],
    }
    ctx = build_context(request, info if has_user else RequestInfo(), values, has_user)
    # the CLI reads the resource back from the context so that variables can override it
    if operation != "DELETE":
        try:
            obj = ctx.query("request.object")
            if isinstance(obj, dict):
                resource = obj
        except Exception:
            pass
    m = MatchInput(
        resource=resource,
        gvk=gvk,
        subresource=request.get("subResource", "") or "",
        operation=operation,
        namespace_labels=ns_labels or {},
        info=info if has_user else RequestInfo(),
    )
    apply_one = (policy.get("spec") or {}).get("applyRules") == "One"
    for rule in autogen.compute_rules(policy, kind):
        if not rule.get("validate"):
            continue
        name = rule.get("name", "")
        if matches_rule(rule, m, policy_ns) is not None:
            out["notApplicable"].append(name)
            continue
        ctx.checkpoint()
        try:
            resp = _run_rule(policy, rule, ctx, resource, request, operation, offline, exceptions, m)
        except Exception as err:  # a defect must still come out as data about this rule
            problem = (
                long_number_message(err) or f"internal error while evaluating rule {name}: {type(err).__name__}: {err}"
            )
            resp = RuleResponse(name, ERROR, problem)
        finally:
            ctx.restore()
        if resp is None:
            out["notApplicable"].append(name)
            continue
        out["rules"].append(
            {
                "rule": resp.rule,
                "result": resp.status,
                "message": resp.message,
                "action": _action(policy, rule, meta.get("namespace", "")),
            }
        )
        if apply_one and resp.status in ("pass", "fail"):
            break
    return out


def _namespace_labels(documents: list, namespace: str) -> dict:
    for doc in documents:
        if doc.get("kind") == "Namespace" and (doc.get("metadata") or {}).get("name") == namespace:
            return dict((doc.get("metadata") or {}).get("labels") or {})
    return {}


def _run_rule(policy, rule, ctx, resource, request, operation, offline, exceptions, m) -> RuleResponse | None:
    name = rule.get("name", "")
    loader = ContextLoader(offline, name)
    from .context import ContextError

    try:
        loader.load(ctx, rule.get("context") or [])
    except ContextError as err:
        return RuleResponse(name, ERROR, f"failed to load context: {err}")
    try:
        passed, msg = conditions.evaluate_conditions(ctx, rule.get("preconditions"))
    except conditions.ConditionError as err:
        return RuleResponse(name, ERROR, f"failed to evaluate preconditions: {err}")
    if not passed:
        return RuleResponse(name, SKIP, "; ".join(p for p in ["preconditions not met", msg] if p))
    v = rule.get("validate") or {}
    matched = matching_exceptions(exceptions, policy, name, m, ctx)
    if v.get("podSecurity") is not None:
        without_pss = [key for key, exc in matched if not (exc.get("spec") or {}).get("podSecurity")]
        if without_pss:
            return RuleResponse(name, SKIP, "rule is skipped due to policy exception " + without_pss[0])
        excludes = [e for _, exc in matched for e in (exc.get("spec") or {}).get("podSecurity") or []]
        enforce = _action(policy, rule, (resource.get("metadata") or {}).get("namespace", "")) == "Enforce"
        return pss.evaluate_rule(rule, resource, operation, request.get("oldObject"), enforce, excludes)
    if matched:
        return RuleResponse(name, SKIP, "rule is skipped due to policy exceptions" + ", ".join(k for k, _ in matched))
    if v.get("cel") is not None:
        return cel_rules.evaluate_rule(rule, request, resource, m, offline)
    if v.get("manifests") is not None:
        return RuleResponse(name, ERROR, "validate.manifests (signature verification) cannot run offline")
    inp = RuleInput(ctx, resource, operation, loader)
    resp = Validator(rule, v, 0, None).validate(inp)
    action = _action(policy, rule, (resource.get("metadata") or {}).get("namespace", ""))
    if (
        action == "Enforce"
        and operation == "UPDATE"
        and v.get("allowExistingViolations", True) is not False
        and resp is not None
        and resp.status == FAIL
    ):
        old = request.get("oldObject")
        if isinstance(old, dict) and old:
            prior = _validate_old(rule, v, ctx, old, offline, m)
            if prior is not None and prior.status == FAIL:
                return RuleResponse(name, SKIP, "skipping the rule evaluation as pre-existing violations are allowed")
    return resp


def _validate_old(rule, v, ctx, old, offline, m) -> RuleResponse | None:
    ctx.checkpoint()
    try:
        ctx.data.setdefault("request", {})["object"] = copy.deepcopy(old)
        ctx.data["request"].pop("oldObject", None)
        ctx.data["request"]["operation"] = "CREATE"
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
        resp = Validator(rule, v, 0, None).validate(inp)
        ctx.operation = saved_op
        return resp
    finally:
        ctx.restore()
