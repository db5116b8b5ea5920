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


def can_generate(policy: dict, exceptions: list[dict] = ()) -> str | None:
    """None when Kyverno would generate a VAP from this policy, else its reason for skipping."""
    spec = policy.get("spec") or {}
    rules = spec.get("rules") or []
    if not rules:
        return _SKIP + "no rules found."
    if len(rules) > 1:
        return _SKIP + "multiple rules are not applicable."
    rule = rules[0]
    if (rule.get("validate") or {}).get("cel") is None:
        return "skip generating ValidatingAdmissionPolicy for non CEL rules."
    for overrides in (spec.get("validationFailureActionOverrides"), rule["validate"].get("failureActionOverrides")):
        err = _check_overrides(overrides)
        if err:
            return err
    for block, is_match in ((rule.get("match"), True), (rule.get("exclude"), False)):
        if block is None:
            continue
        top, any_f, all_f = _filters(block)
        if not _user_info_empty(top):
            return _SKIP + "Roles / ClusterRoles / Subjects in `any/all` is not applicable."
        for err in (_check_resources(top.get("resources") or {}, is_match), _check_filters(any_f, is_match)):
            if err:
                return err
        if len(all_f) > 1:
            return _SKIP + f"multiple 'all' in the {'match' if is_match else 'exclude'} block is not applicable."
        err = _check_filters(all_f, is_match)
        if err:
            return err
    for exc in exceptions:
        espec = exc.get("spec") or {}
        if any(len(e.get("ruleNames") or []) > 1 for e in espec.get("exceptions") or []):
            return _SKIP + "multiple ruleNames in PolicyException is not applicable."
        if espec.get("conditions") is not None:
            return _SKIP + "Conditions in PolicyException is not applicable."
        _, any_f, all_f = _filters(espec.get("match"))
        err = _check_filters(any_f, False)
        if err:
            return err
        if len(all_f) > 1:
            return _SKIP + "multiple 'all' in the PolicyException's match block is not applicable."
        err = _check_filters(all_f, False)
        if err:
            return err
    return None


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
    cel = rule["validate"]["cel"]
    match_resources: dict = {}
    match_rules: list[dict] = []
    exclude_rules: list[dict] = []
    try:
        for block, is_match, rules in (
            (rule.get("match"), True, match_rules),
            (rule.get("exclude"), False, exclude_rules),
            *[((e.get("spec") or {}).get("match"), False, exclude_rules) for e in exceptions],
        ):
            top, any_f, all_f = _filters(block)
            descs = ([top.get("resources")] if top.get("resources") else []) + [
                f.get("resources") or {} for f in any_f + all_f
            ]
            for res in descs:
                _rules_for(mapper, res, rules, is_match)
                if is_match:
                    match_resources["resourceRules"] = copy.deepcopy(rules)
                    if res.get("namespaces"):
                        match_resources["namespaceSelector"] = {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/metadata.name",
                                    "operator": "In",
                                    "values": list(res["namespaces"]),
                                }
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
                elif rules:
                    match_resources["excludeResourceRules"] = copy.deepcopy(rules)
    except ValueError as err:
        return {"skipped": f"failed to build ValidatingAdmissionPolicy: {err}"}
    name = "cpol-" + (policy.get("metadata") or {}).get("name", "")
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
    owner = {
        "apiVersion": policy.get("apiVersion", "kyverno.io/v1"),
        "kind": policy.get("kind", "ClusterPolicy"),
        "name": (policy.get("metadata") or {}).get("name", ""),
        "uid": (policy.get("metadata") or {}).get("uid", ""),
    }
    labels = {"app.kubernetes.io/managed-by": "kyverno"}
    vap = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": labels, "ownerReferences": [owner]},
        "spec": vap_spec,
    }
    action = rule["validate"].get("failureAction") or spec.get("validationFailureAction") or "Audit"
    actions = ["Deny"] if str(action).lower() == "enforce" else ["Audit", "Warn"]
    binding_spec = {"policyName": name, "validationActions": actions}
    if cel.get("paramRef"):
        binding_spec["paramRef"] = copy.deepcopy(cel["paramRef"])
    binding = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name + "-binding", "labels": dict(labels), "ownerReferences": [owner]},
        "spec": binding_spec,
    }
    return {"policy": vap, "binding": binding}
