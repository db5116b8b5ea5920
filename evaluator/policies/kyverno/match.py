"""Rule match/exclude blocks (pkg/engine/utils/match.go) and Kubernetes label selectors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import wildcard
from .memos import Memo, remembered, remembered_under

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


def _in_values(op: str, key: str, values: list, labels: dict) -> bool:
    if not values:
        raise ValueError("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty")
    found = key in labels and labels[key] in values
    return found if op == "In" else not found


# matchExpressions operators: (key, values, labels) -> whether the requirement holds
_EXPRESSION_OPERATORS = {
    "In": lambda key, values, labels: _in_values("In", key, values, labels),
    "NotIn": lambda key, values, labels: _in_values("NotIn", key, values, labels),
    "Exists": lambda key, values, labels: key in labels,
    "DoesNotExist": lambda key, values, labels: key not in labels,
}


def _expanded_match_labels(match_labels: dict, labels: dict) -> dict:
    """wildcards.ReplaceInSelector: a wildcard key or value becomes the first label it matches."""
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
    return expanded


def _selector_requirements(selector: dict, labels: dict) -> bool:
    """metav1.LabelSelectorAsSelector(...).Matches; raises ValueError for an invalid selector."""
    expanded = _expanded_match_labels(selector.get("matchLabels") or {}, labels)
    if any(labels.get(k) != v for k, v in expanded.items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        op = expr.get("operator")
        holds = _EXPRESSION_OPERATORS.get(op)
        if holds is None:
            raise ValueError(f'"{op}" is not a valid label selector operator')
        if not holds(expr.get("key"), expr.get("values") or [], labels):
            return False
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


def _resource_name(meta: dict) -> str:
    return meta.get("name") or meta.get("generateName") or ""


# --- the resource checks of a condition block, in Kyverno's order; each gives its reason or None ---


def _kind_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    kinds = desc.get("kinds") or []
    if kinds and not check_kind(kinds, m.gvk, m.subresource):
        return f"kind does not match {kinds}"
    return None


def _name_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    if desc.get("name") and not wildcard.match(desc["name"], _resource_name(meta)):
        return "name does not match"
    return None


def _names_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    names = desc.get("names") or []
    if names and not any(wildcard.match(n, _resource_name(meta)) for n in names):
        return "none of the names match"
    return None


def _namespaces_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    namespaces = desc.get("namespaces") or []
    if not namespaces:
        return None
    ns = meta.get("name", "") if m.resource.get("kind") == "Namespace" else meta.get("namespace", "")
    if not any(wildcard.match(n, ns or "") for n in namespaces):
        return "namespace does not match"
    return None


def _annotations_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    actual = meta.get("annotations") or {}
    for k, v in (desc.get("annotations") or {}).items():
        if not any(wildcard.match(k, k1) and wildcard.match(str(v), str(v1)) for k1, v1 in actual.items()):
            return "annotations does not match"
    return None


def _selector_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    if desc.get("selector") is None:
        return None
    ok, err = check_selector(desc["selector"], meta.get("labels") or {})
    if err:
        return f"failed to parse selector: {err}"
    return None if ok else "selector does not match"


def _namespace_selector_error(desc: dict, m: MatchInput, meta: dict) -> str | None:
    if desc.get("namespaceSelector") is None:
        return None
    kind = m.resource.get("kind", "")
    if kind == "Namespace":
        return "namespace selector is not applicable for namespace resource"
    if kind == "" and "*" not in (desc.get("kinds") or []):
        return None
    ok, err = check_selector(desc["namespaceSelector"], m.namespace_labels)
    if err:
        return f"failed to parse namespace selector: {err}"
    return None if ok else "namespace selector does not match labels"


_RESOURCE_CHECKS = (
    _kind_error,
    _name_error,
    _names_error,
    _namespaces_error,
    _annotations_error,
    _selector_error,
    _namespace_selector_error,
)

# the user checks: (field, whether the request's user satisfies the field's list, reason when not)
_USER_CHECKS = (
    (
        "roles",
        lambda wanted, info: any(r in info.roles for r in wanted),
        "user info does not match roles for the given conditionBlock",
    ),
    (
        "clusterRoles",
        lambda wanted, info: any(r in info.cluster_roles for r in wanted),
        "user info does not match clustersRoles for the given conditionBlock",
    ),
    ("subjects", _subjects_match, "user info does not match subject for the given conditionBlock"),
)


def _condition_block(desc: dict, user: dict, m: MatchInput) -> list[str]:
    """Every reason the block does not select the request (empty: it does); a wrong operation says only that."""
    ops = desc.get("operations") or []
    if ops and m.operation not in ops:
        return ["operation does not match"]
    meta = m.resource.get("metadata") or {}
    errs = [err for check in _RESOURCE_CHECKS if (err := check(desc, m, meta)) is not None]
    errs += [reason for key, holds, reason in _USER_CHECKS if user.get(key) and not holds(user[key], m.info)]
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


def _match_reasons(match: dict, m: MatchInput) -> list[str]:
    if match.get("any"):
        return [] if any(not _match_helper(f, m) for f in match["any"]) else ["no resource matched"]
    if match.get("all"):
        return [reason for f in match["all"] for reason in _match_helper(f, m)]
    return _match_helper(match, m)


def _exclude_reasons(exclude: dict, m: MatchInput) -> list[str]:
    if exclude.get("any"):
        return [reason for f in exclude["any"] for reason in _exclude_helper(f, m)]
    if exclude.get("all"):
        if all(_exclude_helper(f, m) for f in exclude["all"]):
            return ["resource excluded since the combination of all criteria exclude it"]
        return []
    return _exclude_helper(exclude, m)


def matches_rule(rule: dict, m: MatchInput, policy_namespace: str = "") -> str | None:
    """None when the rule applies, else Kyverno's 'rule X not matched' reason."""
    if not m.resource:
        return "resource is empty"
    meta = m.resource.get("metadata") or {}
    if policy_namespace and policy_namespace != (meta.get("namespace") or ""):
        return "policy and resource namespaces mismatch"
    reasons = _match_reasons(rule.get("match") or {}, m)
    exclude = rule.get("exclude") or {}
    if not reasons and exclude:
        reasons = _exclude_reasons(exclude, m)
    if not reasons:
        return None
    return f"rule {rule.get('name', '')} not matched:" + "".join(f"\n {i + 1}. {r}" for i, r in enumerate(reasons))


def applies(rule: dict, m: MatchInput, policy_namespace: str = "") -> bool:
    """`matches_rule(...) is None`. A rule that selects by kinds (and operations) alone, as most do, is
    decided once per (rule, kind, subresource, operation) rather than for every object."""
    if not m.resource or policy_namespace or not _kinds_only(rule):
        return matches_rule(rule, m, policy_namespace) is None
    key = (id(rule), m.gvk, m.subresource, m.operation)
    return remembered_under(key, rule, _matched, _applies, m)


def _matched(rule: dict, m: MatchInput) -> bool:
    return matches_rule(rule, m) is None


_applies: Memo = {}
_kinds_only_memo: Memo = {}


def _kinds_only(rule: dict) -> bool:
    return remembered(rule, _reads_kinds_only, _kinds_only_memo)


def _reads_kinds_only(rule: dict) -> bool:
    """Whether the rule's match reads nothing of the request but its kind, subresource and operation: no
    exclude, no user fields, and resource filters of `kinds` and `operations` only."""
    match = rule.get("match")
    result = False
    if not rule.get("exclude") and isinstance(match, dict):
        if match.get("any"):
            filters, top = match["any"], False
        elif match.get("all"):
            filters, top = match["all"], False
        else:
            filters, top = [match], True
        allowed = {"resources", "any", "all"} if top else {"resources"}
        result = isinstance(filters, list) and all(
            isinstance(f, dict)
            and set(f) <= allowed
            and isinstance(f.get("resources") or {}, dict)
            and set(f.get("resources") or {}) <= {"kinds", "operations"}
            for f in filters
        )
    return result


def all_apply(owner: dict, rules: list[dict], m: MatchInput, policy_namespace: str = "") -> list[bool] | None:
    """`applies` of each of a policy's `rules` (for `m`'s kind), decided once per (policy, kind, subresource,
    operation) when every rule selects by kinds and operations alone; None otherwise (ask rule by rule)."""
    if not m.resource or policy_namespace:
        return None
    key = (id(owner), m.gvk, m.subresource, m.operation)
    return remembered_under(key, owner, _all_apply, _all_applies, rules, m)


def _all_apply(owner: dict, rules: list[dict], m: MatchInput) -> list[bool] | None:
    try:
        if not all(_kinds_only(rule) for rule in rules):
            return None
        return [_matched(rule, m) for rule in rules]
    except Exception:  # a malformed rule: asked rule by rule, it fails where the engine meets it
        return None


_all_applies: Memo = {}
