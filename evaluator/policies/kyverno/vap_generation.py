"""The ValidatingAdmissionPolicy + binding Kyverno generates from a ClusterPolicy with one `validate.cel` rule
(pkg/admissionpolicy/builder.go and kyvernopolicy_checker.go), so both can be evaluated side by side."""

from __future__ import annotations

import copy

from . import wildcard
from .match import parse_kind_selector

_VAP_API = "admissionregistration.k8s.io/v1"
_SKIP = "skip generating ValidatingAdmissionPolicy: "


def _filters(block: dict | None) -> tuple[dict, list[dict], list[dict]]:
    block = block or {}
    return block, list(block.get("any") or []), list(block.get("all") or [])


def _user_info_empty(f: dict) -> bool:
    return not (f.get("roles") or f.get("clusterRoles") or f.get("subjects"))


def _check_resources(res: dict, is_match: bool) -> str | None:
    if not is_match and res.get("kinds") and res.get("namespaces"):
        return _SKIP + "excluding a resource within a namespace is not applicable."
    if res.get("annotations"):
        return _SKIP + "Annotations in resource description is not applicable."
    if wildcard.contains_wildcard(res.get("name") or "") or any(
        wildcard.contains_wildcard(n) for n in res.get("names") or []
    ):
        return _SKIP + "wildcards in resource name is not applicable."
    if any(wildcard.contains_wildcard(n) for n in res.get("namespaces") or []):
        return _SKIP + "wildcards in namespace name is not applicable."
    return None


def _check_filters(filters: list[dict], is_match: bool) -> str | None:
    ns_sel = obj_sel = False
    for f in filters:
        if not _user_info_empty(f):
            return _SKIP + "Roles / ClusterRoles / Subjects in `any/all` is not applicable."
        res = f.get("resources") or {}
        err = _check_resources(res, is_match)
        if err:
            return err
        ns_sel = ns_sel or res.get("namespaceSelector") is not None
        obj_sel = obj_sel or res.get("selector") is not None
    if not is_match and (ns_sel or obj_sel):
        return _SKIP + "NamespaceSelector / ObjectSelector in the exclude block is not applicable."
    if is_match and len(filters) > 1 and (ns_sel or obj_sel):
        return (
            _SKIP
            + "NamespaceSelector / ObjectSelector across multiple resources in the match block are not applicable."
        )
    return None


def _check_overrides(overrides: list | None) -> str | None:
    if overrides and len(overrides) > 1:
        return _SKIP + "multiple validationFailureActionOverrides are not applicable."
    if overrides and overrides[0].get("namespaces"):
        return _SKIP + "Namespaces in validationFailureActionOverrides is not applicable."
    return None


def _rules_reason(spec: dict) -> str | None:
    """Exactly one rule, a `validate.cel` one, with at most one override naming no namespaces."""
    rules = spec.get("rules") or []
    if not rules:
        return _SKIP + "no rules found."
    if len(rules) > 1:
        return _SKIP + "multiple rules are not applicable."
    rule = rules[0]
    if (rule.get("validate") or {}).get("cel") is None:
        return "skip generating ValidatingAdmissionPolicy for non CEL rules."
    return _check_overrides(spec.get("validationFailureActionOverrides")) or _check_overrides(
        rule["validate"].get("failureActionOverrides")
    )


def _any_all_reason(block: dict | None, is_match: bool, where: str) -> str | None:
    _, any_f, all_f = _filters(block)
    err = _check_filters(any_f, is_match)
    if err:
        return err
    if len(all_f) > 1:
        return _SKIP + f"multiple 'all' in the {where} block is not applicable."
    return _check_filters(all_f, is_match)


def _block_reason(block: dict, is_match: bool) -> str | None:
    """A rule's match or exclude block."""
    if not _user_info_empty(block):
        return _SKIP + "Roles / ClusterRoles / Subjects in `any/all` is not applicable."
    return _check_resources(block.get("resources") or {}, is_match) or _any_all_reason(
        block, is_match, "match" if is_match else "exclude"
    )


def _exception_reason(exc: dict) -> str | None:
    espec = exc.get("spec") or {}
    if any(len(e.get("ruleNames") or []) > 1 for e in espec.get("exceptions") or []):
        return _SKIP + "multiple ruleNames in PolicyException is not applicable."
    if espec.get("conditions") is not None:
        return _SKIP + "Conditions in PolicyException is not applicable."
    return _any_all_reason(espec.get("match"), False, "PolicyException's match")


def can_generate(policy: dict, exceptions: list[dict] = ()) -> str | None:
    """None when Kyverno would generate a VAP from this policy, else its reason for skipping."""
    spec = policy.get("spec") or {}
    reason = _rules_reason(spec)
    if reason:
        return reason
    rule = spec["rules"][0]
    for block, is_match in ((rule.get("match"), True), (rule.get("exclude"), False)):
        reason = _block_reason(block, is_match) if block is not None else None
        if reason:
            return reason
    return next((reason for exc in exceptions if (reason := _exception_reason(exc))), None)


def _operations(ops: list[str]) -> list[str]:
    out = [op for op in ops if op in ("CREATE", "UPDATE", "CONNECT", "DELETE")]
    return out or ["CREATE", "UPDATE", "CONNECT", "DELETE"]


def _find_resource(mapper, kind_selector: str) -> tuple[str, str, str]:
    """discovery FindResources: exactly one served resource must match."""
    group, version, kind, sub = parse_kind_selector(kind_selector)
    found = set()
    for info in mapper.entries:
        if not info.served or (info.subresource or "") != (sub or ""):
            continue
        if (
            wildcard.match(group, info.kind.group)
            and wildcard.match(version, info.kind.version)
            and wildcard.match(kind, info.kind.kind)
        ):
            name = info.gvr.resource + (f"/{info.subresource}" if info.subresource else "")
            found.add((info.gvr.group, info.gvr.version, name))
    if len(found) != 1:
        raise ValueError(f"no unique match for kind {kind}")
    return found.pop()


def _rules_for(mapper, res: dict, rules: list[dict], is_match: bool) -> None:
    ops = _operations(list(res.get("operations") or []))
    names = list(res.get("names") or []) + ([res["name"]] if res.get("name") else [])
    for kind in res.get("kinds") or []:
        if kind == "*":
            rules.append(_named_rule(names, "*", "*", ops, ["*"]))
            continue
        group, version, resource = _find_resource(mapper, kind)
        resources = [resource] + (["pods/ephemeralcontainers"] if resource == "pods" else [])
        for r in rules:
            if group in r["apiGroups"] and version in r["apiVersions"]:
                r["resources"] = sorted(r["resources"] + resources)
                break
        else:
            rules.append(_named_rule(names, group, version, ops, resources))
    if not is_match and res.get("namespaces") and not res.get("kinds"):
        rules.append(
            {
                "resourceNames": list(res["namespaces"]),
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["namespaces"],
                "operations": ops,
            }
        )


def _named_rule(names: list[str], group: str, version: str, ops: list[str], resources: list[str]) -> dict:
    rule = {"apiGroups": [group], "apiVersions": [version], "resources": sorted(resources), "operations": ops}
    if names:
        rule = {"resourceNames": names, **rule}
    return rule


def _select_namespaces(match_resources: dict, res: dict) -> None:
    """The namespace and object selectors of the last match resource description win."""
    if res.get("namespaces"):
        match_resources["namespaceSelector"] = {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(res["namespaces"])}
            ]
        }
    elif res.get("namespaceSelector") is not None:
        match_resources["namespaceSelector"] = res["namespaceSelector"]
    else:
        match_resources.pop("namespaceSelector", None)
    if res.get("selector") is not None:
        match_resources["objectSelector"] = res["selector"]
    else:
        match_resources.pop("objectSelector", None)


def _resource_descriptions(block: dict | None) -> list[dict]:
    top, any_f, all_f = _filters(block)
    return ([top.get("resources")] if top.get("resources") else []) + [f.get("resources") or {} for f in any_f + all_f]


def _match_constraints(mapper, rule: dict, exceptions: list[dict]) -> dict:
    """matchConstraints from the rule's match (resourceRules, selectors) and from its exclude and the
    exceptions' match (excludeResourceRules); raises ValueError when a kind maps to no unique resource."""
    match_resources: dict = {}
    match_rules: list[dict] = []
    exclude_rules: list[dict] = []
    for block, is_match, rules in (
        (rule.get("match"), True, match_rules),
        (rule.get("exclude"), False, exclude_rules),
        *[((e.get("spec") or {}).get("match"), False, exclude_rules) for e in exceptions],
    ):
        for res in _resource_descriptions(block):
            _rules_for(mapper, res, rules, is_match)
            if is_match:
                match_resources["resourceRules"] = copy.deepcopy(rules)
                _select_namespaces(match_resources, res)
            elif rules:
                match_resources["excludeResourceRules"] = copy.deepcopy(rules)
    return match_resources


def _owner(policy: dict) -> dict:
    return {
        "apiVersion": policy.get("apiVersion", "kyverno.io/v1"),
        "kind": policy.get("kind", "ClusterPolicy"),
        "name": (policy.get("metadata") or {}).get("name", ""),
        "uid": (policy.get("metadata") or {}).get("uid", ""),
    }


def _vap_spec(rule: dict, match_resources: dict) -> dict:
    cel = rule["validate"]["cel"]
    vap_spec = {"matchConstraints": match_resources}
    for key, value in (
        ("paramKind", cel.get("paramKind")),
        ("variables", cel.get("variables")),
        ("validations", cel.get("expressions")),
        ("auditAnnotations", cel.get("auditAnnotations")),
        ("matchConditions", rule.get("celPreconditions")),
    ):
        if value:
            vap_spec[key] = copy.deepcopy(value)
    return vap_spec


def _binding_spec(spec: dict, rule: dict, name: str) -> dict:
    action = rule["validate"].get("failureAction") or spec.get("validationFailureAction") or "Audit"
    actions = ["Deny"] if str(action).lower() == "enforce" else ["Audit", "Warn"]
    binding_spec = {"policyName": name, "validationActions": actions}
    param_ref = rule["validate"]["cel"].get("paramRef")
    if param_ref:
        binding_spec["paramRef"] = copy.deepcopy(param_ref)
    return binding_spec


def generate(policy: dict, exceptions: list[dict] = (), mapper=None) -> dict:
    """{"policy": VAP, "binding": binding} or {"skipped": reason}."""
    reason = can_generate(policy, exceptions)
    if reason:
        return {"skipped": reason}
    if mapper is None:
        from evaluator.k8s.restmapping import builtin_mapper

        mapper = builtin_mapper()
    spec = policy.get("spec") or {}
    rule = spec["rules"][0]
    try:
        match_resources = _match_constraints(mapper, rule, exceptions)
    except ValueError as err:
        return {"skipped": f"failed to build ValidatingAdmissionPolicy: {err}"}
    name = "cpol-" + (policy.get("metadata") or {}).get("name", "")
    owner = _owner(policy)
    labels = {"app.kubernetes.io/managed-by": "kyverno"}
    vap = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": labels, "ownerReferences": [owner]},
        "spec": _vap_spec(rule, match_resources),
    }
    binding = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name + "-binding", "labels": dict(labels), "ownerReferences": [owner]},
        "spec": _binding_spec(spec, rule, name),
    }
    return {"policy": vap, "binding": binding}
