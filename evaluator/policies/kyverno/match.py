"""Rule match/exclude blocks (pkg/engine/utils/match.go) and Kubernetes label selectors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import wildcard

_VERSION = re.compile(r"^(v\d+((alpha|beta)\d+)?|\*)$")


@dataclass
class RequestInfo:
    """Who makes the request: what `kyverno` knows as RequestInfo."""

    username: str = ""
    uid: str = ""
    groups: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    cluster_roles: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.username or self.uid or self.groups or self.roles or self.cluster_roles)


def parse_kind_selector(text: str) -> tuple[str, str, str, str]:
    """kubeutils.ParseKindSelector -> (group, version, kind, subresource)."""
    parts = text.split("/")
    parts = parts[:-1] + parts[-1].split(".")
    n = len(parts)
    if n == 1:
        return "*", "*", parts[0], ""
    if n == 2:
        if parts[0] == "*" and parts[1] == "*":
            return "*", "*", "*", "*"
        if parts[0] == "*" and parts[1].lower() == parts[1]:
            return "*", "*", parts[0], parts[1]
        if _VERSION.match(parts[0]):
            return "*", parts[0], parts[1], ""
        return "*", "*", parts[0], parts[1]
    if n == 3:
        if _VERSION.match(parts[0]):
            return "*", parts[0], parts[1], parts[2]
        return parts[0], parts[1], parts[2], ""
    if n == 4:
        return parts[0], parts[1], parts[2], parts[3]
    return "", "", "", ""


def check_kind(kinds: list[str], gvk: tuple[str, str, str], subresource: str) -> bool:
    for k in kinds:
        group, version, kind, sub = parse_kind_selector(k)
        if wildcard.match(group, gvk[0]) and wildcard.match(version, gvk[1]) and wildcard.match(kind, gvk[2]):
            if wildcard.match(sub, subresource):
                return True
            if gvk == ("", "v1", "Pod") and subresource == "ephemeralcontainers":
                return True
    return False


def _selector_requirements(selector: dict, labels: dict) -> bool:
    """metav1.LabelSelectorAsSelector(...).Matches; raises ValueError for an invalid selector."""
    match_labels = selector.get("matchLabels") or {}
    # wildcards in matchLabels are replaced by the first matching label (wildcards.ReplaceInSelector)
    expanded = {}
    for k, v in match_labels.items():
        v = "" if v is None else str(v)
        if wildcard.contains_wildcard(k) or wildcard.contains_wildcard(v):
            for k1, v1 in labels.items():
                if wildcard.match(k, k1) and wildcard.match(v, str(v1)):
                    k, v = k1, str(v1)
                    break
            else:
                k, v = k.replace("*", "0").replace("?", "0"), v.replace("*", "0").replace("?", "0")
        expanded[k] = v
    for k, v in expanded.items():
        if labels.get(k) != v:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In":
            if not values:
                raise ValueError(
                    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
                )
            if key not in labels or labels[key] not in values:
                return False
        elif op == "NotIn":
            if not values:
                raise ValueError(
                    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
                )
            if key in labels and labels[key] in values:
                return False
        elif op == "Exists":
            if key not in labels:
                return False
        elif op == "DoesNotExist":
            if key in labels:
                return False
        else:
            raise ValueError(f'"{op}" is not a valid label selector operator')
    return True


def check_selector(selector: dict, labels: dict | None) -> tuple[bool, str | None]:
    try:
        return _selector_requirements(selector or {}, labels or {}), None
    except ValueError as err:
        return False, str(err)


def _subjects_match(subjects: list[dict], info: RequestInfo) -> bool:
    for s in subjects:
        kind = s.get("kind")
        if kind == "ServiceAccount":
            name = f"system:serviceaccount:{s.get('namespace', '')}:{s.get('name', '')}"
            if wildcard.match(name, info.username):
                return True
        elif kind == "Group":
            if any(wildcard.match(s.get("name", ""), g) for g in info.groups):
                return True
        elif kind == "User":
            if wildcard.match(s.get("name", ""), info.username):
                return True
    return False


_RESOURCE_FIELDS = (
    "kinds",
    "name",
    "names",
    "namespaces",
    "annotations",
    "selector",
    "namespaceSelector",
    "operations",
)
_USER_FIELDS = ("roles", "clusterRoles", "subjects")


@dataclass
class MatchInput:
    resource: dict
    gvk: tuple[str, str, str]
    subresource: str
    operation: str
    namespace_labels: dict
    info: RequestInfo


def _condition_block(desc: dict, user: dict, m: MatchInput) -> list[str]:
    errs: list[str] = []
    ops = desc.get("operations") or []
    if ops and m.operation not in ops:
        return ["operation does not match"]
    kinds = desc.get("kinds") or []
    if kinds and not check_kind(kinds, m.gvk, m.subresource):
        errs.append(f"kind does not match {kinds}")
    meta = m.resource.get("metadata") or {}
    name = meta.get("name") or meta.get("generateName") or ""
    if desc.get("name") and not wildcard.match(desc["name"], name):
        errs.append("name does not match")
    names = desc.get("names") or []
    if names and not any(wildcard.match(n, name) for n in names):
        errs.append("none of the names match")
    namespaces = desc.get("namespaces") or []
    if namespaces:
        ns = meta.get("name", "") if m.resource.get("kind") == "Namespace" else meta.get("namespace", "")
        if not any(wildcard.match(n, ns or "") for n in namespaces):
            errs.append("namespace does not match")
    annotations = desc.get("annotations") or {}
    if annotations:
        actual = meta.get("annotations") or {}
        for k, v in annotations.items():
            if not any(wildcard.match(k, k1) and wildcard.match(str(v), str(v1)) for k1, v1 in actual.items()):
                errs.append("annotations does not match")
                break
    if desc.get("selector") is not None:
        ok, err = check_selector(desc["selector"], meta.get("labels") or {})
        if err:
            errs.append(f"failed to parse selector: {err}")
        elif not ok:
            errs.append("selector does not match")
    if desc.get("namespaceSelector") is not None:
        kind = m.resource.get("kind", "")
        if kind == "Namespace":
            errs.append("namespace selector is not applicable for namespace resource")
        elif kind != "" or "*" in kinds:
            ok, err = check_selector(desc["namespaceSelector"], m.namespace_labels)
            if err:
                errs.append(f"failed to parse namespace selector: {err}")
            elif not ok:
                errs.append("namespace selector does not match labels")
    if user.get("roles") and not any(r in m.info.roles for r in user["roles"]):
        errs.append("user info does not match roles for the given conditionBlock")
    if user.get("clusterRoles") and not any(r in m.info.cluster_roles for r in user["clusterRoles"]):
        errs.append("user info does not match clustersRoles for the given conditionBlock")
    if user.get("subjects") and not _subjects_match(user["subjects"], m.info):
        errs.append("user info does not match subject for the given conditionBlock")
    return errs


def _split_filter(f: dict) -> tuple[dict, dict]:
    """A ResourceFilter: resources + user info (subjects/roles/clusterRoles)."""
    desc = f.get("resources") or {}
    user = {k: f[k] for k in _USER_FIELDS if f.get(k)}
    return desc, user


def _non_empty(desc: dict) -> bool:
    return (
        any(desc.get(k) for k in _RESOURCE_FIELDS)
        or desc.get("selector") is not None
        or desc.get("namespaceSelector") is not None
    )


def _match_helper(f: dict, m: MatchInput) -> list[str]:
    desc, user = _split_filter(f)
    if m.info.is_empty():
        user = {}
    if _non_empty(desc) or user:
        return _condition_block(desc, user, m)
    return ["match cannot be empty"]


def _exclude_helper(f: dict, m: MatchInput) -> list[str]:
    desc, user = _split_filter(f)
    if _non_empty(desc) or user:
        if not _condition_block(desc, user, m):
            return ["resource excluded since one of the criteria excluded it"]
    return []


def matches_rule(rule: dict, m: MatchInput, policy_namespace: str = "") -> str | None:
    """None when the rule applies, else Kyverno's 'rule X not matched' reason."""
    if not m.resource:
        return "resource is empty"
    meta = m.resource.get("metadata") or {}
    if policy_namespace and policy_namespace != (meta.get("namespace") or ""):
        return "policy and resource namespaces mismatch"
    reasons: list[str] = []
    match = rule.get("match") or {}
    if match.get("any"):
        if not any(not _match_helper(f, m) for f in match["any"]):
            reasons.append("no resource matched")
    elif match.get("all"):
        for f in match["all"]:
            reasons.extend(_match_helper(f, m))
    else:
        reasons.extend(_match_helper(match, m))
    exclude = rule.get("exclude") or {}
    if not reasons and exclude:
        if exclude.get("any"):
            for f in exclude["any"]:
                reasons.extend(_exclude_helper(f, m))
        elif exclude.get("all"):
            if all(_exclude_helper(f, m) for f in exclude["all"]):
                reasons.append("resource excluded since the combination of all criteria exclude it")
        else:
            reasons.extend(_exclude_helper(exclude, m))
    if not reasons:
        return None
    return f"rule {rule.get('name', '')} not matched:" + "".join(f"\n {i + 1}. {r}" for i, r in enumerate(reasons))
