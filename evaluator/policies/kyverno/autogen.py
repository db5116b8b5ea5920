"""Pod-controller autogen rules as Kyverno v1 computes them (pkg/autogen/v1)."""

from __future__ import annotations

import json

from .memos import Memo, remembered_under
from .tree_copy import deep_copy
from .variables import REGEX_REFERENCES

POD_CONTROLLERS = {"DaemonSet", "Deployment", "Job", "StatefulSet", "ReplicaSet", "ReplicationController", "CronJob"}
_GVK = {
    "DaemonSet": "apps/v1/DaemonSet",
    "Deployment": "apps/v1/Deployment",
    "Job": "batch/v1/Job",
    "StatefulSet": "apps/v1/StatefulSet",
    "ReplicaSet": "apps/v1/ReplicaSet",
    "ReplicationController": "v1/ReplicationController",
    "CronJob": "batch/v1/CronJob",
    "Pod": "v1/Pod",
}
ANNOTATION = "pod-policies.kyverno.io/autogen-controllers"


def _kind_of(selector: str) -> str:
    """kubeutils.GetKindFromGVK + SplitSubresource: the bare kind of a match entry."""
    from .match import _VERSION

    parts = selector.split("/")
    if len(parts) == 1:
        kind = selector.replace(".", "/", 1)
    elif len(parts) == 2:
        if parts[0] == "*" and parts[1] == "*":
            kind = "*/*"
        elif _VERSION.match(parts[0]):
            kind = parts[1].replace(".", "/", 1)
        else:
            kind = parts[0] + "/" + parts[1]
    elif len(parts) == 3:
        kind = parts[1] + "/" + parts[2] if _VERSION.match(parts[0]) else parts[2].replace(".", "/", 1)
    elif len(parts) == 4:
        kind = parts[2] + "/" + parts[3]
    else:
        return ""
    k = kind.split("/")
    return k[0] if len(k) == 2 else kind


def contains_kind(kinds: list[str], kind: str) -> bool:
    return any(_kind_of(k) == kind for k in kinds or [])


def _filters(block: dict | None) -> list[dict]:
    if not block:
        return []
    out = [block.get("resources") or {}]
    out += [f.get("resources") or {} for f in block.get("any") or []]
    out += [f.get("resources") or {} for f in block.get("all") or []]
    return out


def _get_kinds(block: dict | None) -> list[str]:
    if not block:
        return []
    kinds = list((block.get("resources") or {}).get("kinds") or [])
    for f in (block.get("any") or []) + (block.get("all") or []):
        kinds += (f.get("resources") or {}).get("kinds") or []
    return kinds


def _rule_prevents_autogen(rule: dict) -> bool:
    mutate = rule.get("mutate") or {}
    return bool(
        rule.get("generate")
        or mutate.get("patchesJson6902")
        or any(f.get("patchesJson6902") for f in mutate.get("foreach") or [])
    )


def _description_prevents_autogen(desc: dict) -> bool:
    """Names, selectors or annotations, or Pod among several kinds: the rule cannot be carried over."""
    kinds = desc.get("kinds") or []
    return bool(
        desc.get("name")
        or desc.get("names")
        or desc.get("selector") is not None
        or desc.get("annotations") is not None
        or (len(kinds) > 1 and contains_kind(kinds, "Pod"))
    )


def can_autogen(spec: dict) -> bool:
    """Whether pod-controller rules are generated: some rule matches a Pod (or controller) kind, and nothing
    in any rule prevents it."""
    needed = False
    for rule in spec.get("rules") or []:
        if _rule_prevents_autogen(rule):
            return False
        for desc in _filters(rule.get("match")) + _filters(rule.get("exclude")):
            if _description_prevents_autogen(desc):
                return False
            needed = needed or any(k in POD_CONTROLLERS or k == "Pod" for k in desc.get("kinds") or [])
    return needed


def _shift_references(message: str, shift: str, pivot: str) -> str:
    for ref in [m.group(0) for m in REGEX_REFERENCES.finditer(message or "")]:
        initial = ref[:2] == "$("
        old = ref
        if not initial:
            ref = ref[1:]
        p = pivot
        index = ref.find(p)
        if p == "anyPattern" and index >= 0:
            p = p + "/" + ref[index + len(p) + 1 :].split("/")[0]
        shifted = ref.replace(p, p + "/" + shift)
        message = message.replace(old, ("" if initial else old[0]) + shifted, 1)
    return message


def _validation_base(v: dict, shift: str, pivot: str) -> dict:
    out = {"message": _shift_references(v.get("message", ""), shift, pivot)}
    for k in ("failureAction", "failureActionOverrides", "allowExistingViolations"):
        if k in v:
            out[k] = v[k]
    return out


def _retarget_any_all(block: dict, gvks: list[str], replace_all: bool) -> bool:
    """Point the kinds of an any/all block at the controllers (all of them, or those naming Pod); False
    when the block has neither."""
    for key in ("any", "all"):
        if block.get(key):
            filters = deep_copy(block[key])
            for f in filters:
                res = f.setdefault("resources", {})
                if replace_all or contains_kind(res.get("kinds") or [], "Pod"):
                    res["kinds"] = list(gvks)
            block[key] = filters
            return True
    return False


def _retarget_kinds(rule: dict, gvks: list[str], replace_all: bool) -> None:
    match = rule.setdefault("match", {})
    if not _retarget_any_all(match, gvks, replace_all):
        match.setdefault("resources", {})["kinds"] = list(gvks)
    exclude = rule.get("exclude")
    if exclude and not _retarget_any_all(exclude, gvks, replace_all):
        if (exclude.get("resources") or {}).get("kinds"):
            exclude["resources"]["kinds"] = list(gvks)


def _controller_validation(v: dict, tpl_key: str, shift: str) -> dict | None:
    """The validate block moved under the controller's pod template (`tpl_key`); None for a kind of
    validation autogen does not carry."""
    if v.get("pattern") is not None:
        return {**_validation_base(v, shift, "pattern"), "pattern": {"spec": {tpl_key: v["pattern"]}}}
    if v.get("deny") is not None:
        return {**_validation_base(v, shift, "deny"), "deny": v["deny"]}
    if v.get("podSecurity") is not None:
        ps = v["podSecurity"]
        pod_security = {k: ps[k] for k in ("level", "version", "exclude") if k in ps}
        return {**_validation_base(v, shift, "podSecurity"), "podSecurity": pod_security}
    if v.get("anyPattern") is not None:
        patterns = [{"spec": {tpl_key: p}} for p in v["anyPattern"]]
        return {**_validation_base(v, shift, "anyPattern"), "anyPattern": patterns}
    if v.get("foreach"):
        return {**_validation_base(v, shift, "pattern"), "foreach": v["foreach"]}
    if v.get("cel") is not None:
        return v
    return None


def _generate_rule(name: str, rule: dict | None, tpl_key: str, shift: str, kinds: list[str], replace_all: bool):
    if rule is None:
        return None
    rule = deep_copy(rule)
    rule["name"] = name
    _retarget_kinds(rule, [_GVK.get(k, k) for k in kinds], replace_all)
    if rule.get("mutate"):
        mutation = _controller_mutation(rule["mutate"], tpl_key)
        if mutation is None:
            return None
        rule["mutate"] = mutation
        return rule
    v = rule.get("validate")
    validation = _controller_validation(v, tpl_key, shift) if v else None
    if validation is None:
        return None
    rule["validate"] = validation
    return rule


def _controller_mutation(m: dict, tpl_key: str) -> dict | None:
    """A strategic merge patch moved under the controller's pod template; a foreach keeps only its list,
    context, preconditions and patch (what autogen carries over)."""
    if m.get("patchStrategicMerge") is not None:
        return {"patchStrategicMerge": {"spec": {tpl_key: m["patchStrategicMerge"]}}}
    if m.get("foreach"):
        entries = []
        for f in m["foreach"]:
            entry = {k: f[k] for k in ("list", "context", "preconditions") if k in f}
            entry["patchStrategicMerge"] = {"spec": {tpl_key: f.get("patchStrategicMerge")}}
            entries.append(entry)
        return {"foreach": entries}
    return None


_POD_REPLACEMENTS = [
    ("request.object.spec", "request.object.spec.template.spec"),
    ("request.oldObject.spec", "request.oldObject.spec.template.spec"),
    ("request.object.metadata", "request.object.spec.template.metadata"),
    ("request.oldObject.metadata", "request.oldObject.spec.template.metadata"),
]
_CRON_REPLACEMENTS = [
    (a, b.replace("spec.template.", "spec.jobTemplate.spec.template.", 1)) for a, b in _POD_REPLACEMENTS
]


def _replace_fields(rule: dict, replacements, cel: bool) -> dict:
    text = json.dumps(rule)
    for old, new in replacements:
        if cel:
            old, new = old.replace("request.", "", 1), new.replace("request.", "", 1)
        text = text.replace(old, new)
    return json.loads(text)


def _rule_for_controllers(rule: dict, controllers: str) -> dict | None:
    if rule.get("name", "").startswith("autogen-") or controllers == "":
        return None
    if not contains_kind(_get_kinds(rule.get("match")), "Pod"):
        return None
    exclude_kinds = _get_kinds(rule.get("exclude"))
    if exclude_kinds and not contains_kind(exclude_kinds, "Pod"):
        return None
    if controllers == "all":
        controllers = "DaemonSet,Deployment,Job,StatefulSet,ReplicaSet,ReplicationController"
    elif controllers != "none":
        valid = [c for c in sorted(controllers.split(",")) if c in POD_CONTROLLERS - {"CronJob"}]
        if valid:
            controllers = ",".join(valid)
    name = ("autogen-" + rule.get("name", ""))[:63]
    return _generate_rule(name, rule, "template", "spec/template", sorted(controllers.split(",")), False)


def _cronjob_rule(rule: dict, controllers: str) -> dict | None:
    if "CronJob" not in controllers and "all" not in controllers:
        return None
    name = ("autogen-cronjob-" + rule.get("name", ""))[:63]
    return _generate_rule(
        name,
        _rule_for_controllers(rule, controllers),
        "jobTemplate",
        "spec/jobTemplate/spec/template",
        ["CronJob"],
        True,
    )


def _controllers(policy: dict, spec: dict) -> set[str]:
    """The controllers autogen applies to: those the annotation names, else all; {"none"} without autogen."""
    apply = can_autogen(spec)
    annotations = (policy.get("metadata") or {}).get("annotations") or {}
    if not apply:
        return {"none"}
    if ANNOTATION in annotations:
        return set(str(annotations[ANNOTATION]).split(","))
    return set(POD_CONTROLLERS)


def _is_cel(rule: dict) -> bool:
    return bool((rule.get("validate") or {}).get("cel"))


def _generated_rules(rules: list[dict], kind: str) -> list[dict]:
    """Each rule's pod-controller variant, then its CronJob variant (with the paths moved down the template)."""
    generated = []
    stripped = ",".join(c for c in sorted(kind.split(",")) if c != "CronJob")
    for rule in rules:
        r = _rule_for_controllers(rule, stripped)
        if r is not None:
            generated.append(_replace_fields(r, _POD_REPLACEMENTS, _is_cel(r)))
        r = _cronjob_rule(rule, kind)
        if r is not None:
            generated.append(_replace_fields(r, _CRON_REPLACEMENTS, _is_cel(r)))
    return generated


def compute_rules(policy: dict, kind: str) -> list[dict]:
    """autogen.ComputeRules(policy, kind): the rules Kyverno evaluates for a resource of `kind`. Computed
    once per (policy, kind): a batch asks for the same few kinds of each policy for every object (the policy
    is kept with its rules, so its id stays its own; policies are read, never changed in place)."""
    return list(remembered_under((id(policy), kind), policy, _compute_rules, _computed, kind, size=2048))


_computed: Memo = {}


def _compute_rules(policy: dict, kind: str) -> list[dict]:
    spec = policy.get("spec") or {}
    rules = list(spec.get("rules") or [])
    actual = _controllers(policy, spec)
    if kind:
        if kind not in actual:
            return rules
    else:
        kind = ",".join(sorted(actual))
    if kind == "none":
        return rules
    generated = _generated_rules(rules, kind)
    if not generated:
        return rules
    return [r for r in rules if not r.get("name", "").startswith("autogen-")] + generated
