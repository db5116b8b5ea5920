"""The create-time rules of MutatingAdmissionPolicy and its binding that are theirs alone: mutations,
reinvocationPolicy (defaulted to Never) and no DELETE among the matched operations. The admission core checks
the parts every policy and binding share (`admission/validation.py`) and then calls these through
`policy_kind.CreateRules`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission import validation_rules as vr
from evaluator.admission.defaults import set_if_unset
from evaluator.admission.policy_kind import CreateRules, register_create_rules
from evaluator.admission.validation import SpecCheck
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.kinds import MUTATING_BINDING, MUTATING_POLICY

PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]
PATCH_FIELDS = {"JSONPatch": "jsonPatch", "ApplyConfiguration": "applyConfiguration"}
MATCHABLE_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"]  # a MutatingAdmissionPolicy cannot match DELETE
REINVOCATION_POLICIES = ["IfNeeded", "Never"]


def default_policy_spec(spec: dict) -> None:
    set_if_unset(spec, "reinvocationPolicy", "Never")


def tolerate_policy(document: Mapping[str, Any]) -> list[fe.FieldError]:
    """The server requires reinvocationPolicy; the Go unit tests' documents leave it out, so it is defaulted."""
    if document["spec"].get("reinvocationPolicy") is None:
        return [fe.required("spec.reinvocationPolicy", "the API server requires it; Never is assumed here")]
    return []


def validate_policy_spec(spec: Mapping, check: SpecCheck) -> list[fe.FieldError]:
    """Operations, mutations (at least one) and reinvocationPolicy, after the shared policy fields."""
    errors: list[fe.FieldError] = []
    constraints = spec.get("matchConstraints")
    if isinstance(constraints, Mapping):
        errors.extend(_validate_operations(constraints, "spec.matchConstraints"))
    mutations = vr.as_list(spec.get("mutations"))
    if not mutations:
        errors.append(fe.required("spec.mutations", "mutations must contain at least one item"))
    for i, mutation in enumerate(mutations):
        errors.extend(_validate_mutation(mutation, f"spec.mutations[{i}]", check))
    policy = spec.get("reinvocationPolicy")
    if policy == "":
        errors.append(fe.required("spec.reinvocationPolicy"))
    elif policy is not None and policy not in REINVOCATION_POLICIES:
        errors.append(fe.not_supported("spec.reinvocationPolicy", vr.text(policy), REINVOCATION_POLICIES))
    return errors


def _validate_mutation(mutation: Any, path: str, check: SpecCheck) -> list[fe.FieldError]:
    if not isinstance(mutation, Mapping):
        return vr.not_an_object(mutation, path, optional=False)
    errors: list[fe.FieldError] = []
    patch_type = mutation.get("patchType")
    if not patch_type:
        return [fe.required(f"{path}.patchType")]
    if patch_type not in PATCH_FIELDS:
        return [fe.not_supported(f"{path}.patchType", vr.text(patch_type), PATCH_TYPES)]
    wanted = PATCH_FIELDS[patch_type]
    other = "applyConfiguration" if wanted == "jsonPatch" else "jsonPatch"
    body = mutation.get(wanted)
    if body is None:
        errors.append(fe.required(f"{path}.{wanted}", f"must be specified when patchType is {patch_type}"))
    elif not isinstance(body, Mapping) or not vr.text(body.get("expression")).strip():
        errors.append(fe.required(f"{path}.{wanted}.expression"))
    else:
        errors.extend(
            check.expressions.check(body["expression"], f"{path}.{wanted}.expression", wanted, check.has_params)
        )
    if mutation.get(other) is not None:
        errors.append(
            fe.invalid(f"{path}.{other}", "{" + other + "}", f"must not be specified when patchType is {patch_type}")
        )
    return errors


def _validate_operations(match: Mapping, path: str) -> list[fe.FieldError]:
    """Rules may not name DELETE; the server reports it without a rule index."""
    errors: list[fe.FieldError] = []
    for rule in vr.as_list(match.get("resourceRules")):
        for operation in vr.as_list(rule.get("operations")) if isinstance(rule, Mapping) else []:
            if operation not in MATCHABLE_OPERATIONS:
                errors.append(
                    fe.not_supported(f"{path}.resourceRules.operations", vr.text(operation), MATCHABLE_OPERATIONS)
                )
    return errors


def validate_binding_spec(spec: Mapping, check: SpecCheck) -> list[fe.FieldError]:
    match = spec.get("matchResources")
    return _validate_operations(match, "spec.matchResources") if isinstance(match, Mapping) else []


register_create_rules(
    CreateRules(MUTATING_POLICY, default=default_policy_spec, validate=validate_policy_spec, tolerate=tolerate_policy)
)
register_create_rules(CreateRules(MUTATING_BINDING, validate=validate_binding_spec))
