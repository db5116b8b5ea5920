"""API defaulting of admission policy objects, as the v1 API applies it on create.

ValidatingAdmissionPolicy / MutatingAdmissionPolicy (+ bindings), any served version
(v1, v1beta1, v1alpha1; the defaulters are the same):
- spec.failurePolicy: Fail (policies);
- matchConstraints / matchResources: matchPolicy Equivalent, namespaceSelector {}, objectSelector {};
- every resource rule (resourceRules, excludeResourceRules): scope "*";
- paramRef.parameterNotFoundAction: Deny;
- then the kind's own defaults (`policy_kind.CreateRules.default`, declared in its policy package).
Absent structs are not created (a binding without matchResources stays without it), and values that
are set, even to something invalid, are left for validation to report.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import create_rules
from evaluator.k8s.kinds import ADMISSION_GROUP, ADMISSION_KINDS
from evaluator.k8s.kinds import ADMISSION_POLICY_KINDS as POLICY_KINDS

SERVED_VERSIONS = ("v1", "v1beta1", "v1alpha1")


def is_admission_object(obj: Any) -> bool:
    """A VAP/MAP policy or binding of the admissionregistration group (any version)."""
    if not isinstance(obj, Mapping):
        return False
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group == ADMISSION_GROUP and obj.get("kind") in ADMISSION_KINDS


def apply_defaults(obj: Mapping) -> dict:
    """A defaulted deep copy of ``obj``; objects of other kinds come back as plain copies."""
    result = copy.deepcopy(dict(obj))
    if not is_admission_object(result):
        return result
    spec = result.get("spec")
    if not isinstance(spec, dict):
        return result
    kind = result["kind"]
    if kind in POLICY_KINDS:
        set_if_unset(spec, "failurePolicy", "Fail")
        _default_match_resources(spec.get("matchConstraints"))
    else:
        _default_match_resources(spec.get("matchResources"))
        _default_param_ref(spec.get("paramRef"))
    rules = create_rules(kind)
    if rules is not None:
        rules.default(spec)
    return result


def set_if_unset(target: dict, key: str, value: Any) -> None:
    if target.get(key) is None:
        target[key] = value


def _default_match_resources(match: Any) -> None:
    if not isinstance(match, dict):
        return
    set_if_unset(match, "matchPolicy", "Equivalent")
    set_if_unset(match, "namespaceSelector", {})
    set_if_unset(match, "objectSelector", {})
    for key in ("resourceRules", "excludeResourceRules"):
        rules = match.get(key)
        if isinstance(rules, list):
            for rule in rules:
                if isinstance(rule, dict):
                    set_if_unset(rule, "scope", "*")


def _default_param_ref(param_ref: Any) -> None:
    if isinstance(param_ref, dict):
        set_if_unset(param_ref, "parameterNotFoundAction", "Deny")
