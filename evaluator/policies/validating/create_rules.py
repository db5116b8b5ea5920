"""The create-time rules of ValidatingAdmissionPolicy and its binding that are theirs alone: validations,
auditAnnotations and the binding's validationActions. The admission core checks the parts every policy and
binding share (`admission/validation.py`) and then calls these through `policy_kind.CreateRules`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission import validation_rules as vr
from evaluator.admission.policy_kind import CreateRules, register_create_rules
from evaluator.admission.validation import SpecCheck
from evaluator.k8s import fielderrors as fe
from evaluator.k8s.kinds import VALIDATING_BINDING, VALIDATING_POLICY

SUPPORTED_VALIDATION_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]
# Accepted with a warning: the API server's validation rejects it, but the admission plugin maps it to 401
# and tests that bypass API validation (the k8s-vap conformance set) rely on it.
TOLERATED_VALIDATION_REASONS = ["Unauthorized"]
VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
MAX_AUDIT_ANNOTATIONS = 20
MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024

_text = vr.text
_as_list = vr.as_list


def validate_policy_spec(spec: Mapping, check: SpecCheck) -> list[fe.FieldError]:
    """validations and auditAnnotations (at least one of them), after the shared policy fields."""
    errors: list[fe.FieldError] = []
    validations = _as_list(spec.get("validations"))
    annotations = _as_list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        message = "validations or auditAnnotations must contain at least one item"
        return [fe.required("spec.validations", message), fe.required("spec.auditAnnotations", message)]
    for i, validation in enumerate(validations):
        errors.extend(_validate_validation(validation, f"spec.validations[{i}]", check))
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        errors.append(
            fe.invalid(
                "spec.auditAnnotations",
                f"{len(annotations)} items",
                f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
            )
        )
    keys: set[str] = set()
    for path, annotation in vr.each_object(annotations, "spec.auditAnnotations", errors):
        errors.extend(_validate_audit_annotation(annotation, path, check))
        key = _text(annotation.get("key"))
        if key in keys:
            errors.append(fe.duplicate(f"{path}.key", key))
        keys.add(key)
    return errors


def _validate_validation(validation: Any, path: str, check: SpecCheck) -> list[fe.FieldError]:
    if not isinstance(validation, Mapping):
        return vr.not_an_object(validation, path, optional=False)
    errors: list[fe.FieldError] = []
    expression = _text(validation.get("expression"))
    if not expression.strip():
        errors.append(fe.required(f"{path}.expression", "expression is not specified"))
    else:
        errors.extend(check.expressions.check(expression, f"{path}.expression", "validation", check.has_params))
    message_expression = _text(validation.get("messageExpression"))
    if message_expression and not message_expression.strip():
        errors.append(fe.invalid(f"{path}.messageExpression", message_expression, "must be non-empty if specified"))
    elif message_expression.strip():
        errors.extend(
            check.expressions.check(
                message_expression, f"{path}.messageExpression", "messageExpression", check.has_params
            )
        )
    message = _text(validation.get("message"))
    if message and not message.strip():
        errors.append(fe.invalid(f"{path}.message", message, "message must be non-empty if specified"))
    elif "\n" in message.strip() or "\r" in message.strip():
        errors.append(fe.invalid(f"{path}.message", message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in SUPPORTED_VALIDATION_REASONS:
        unsupported = fe.not_supported(f"{path}.reason", _text(reason), SUPPORTED_VALIDATION_REASONS)
        (check.warnings if reason in TOLERATED_VALIDATION_REASONS else errors).append(unsupported)
    return errors


def _validate_audit_annotation(annotation: Mapping, path: str, check: SpecCheck) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    key = _text(annotation.get("key"))
    if check.name:
        errors.extend(vr.validate_qualified_name(f"{check.name}/{key}", f"{path}.key"))
    else:
        errors.append(fe.invalid(f"{path}.key", key, "requires metadata.name be non-empty"))
    value_expression = _text(annotation.get("valueExpression"))
    trimmed = value_expression.strip()
    if not trimmed:
        errors.append(fe.required(f"{path}.valueExpression", "valueExpression is not specified"))
    elif len(trimmed.encode()) > MAX_AUDIT_VALUE_EXPRESSION_LENGTH:
        errors.append(
            fe.required(
                f"{path}.valueExpression", f"must not exceed {MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length"
            )
        )
    else:
        errors.extend(check.expressions.check(trimmed, f"{path}.valueExpression", "auditAnnotation", check.has_params))
    return errors


def validate_binding_spec(spec: Mapping, check: SpecCheck) -> list[fe.FieldError]:
    """validationActions: supported, unique, not both Deny and Warn, at least one."""
    path = "spec.validationActions"
    actions = _as_list(spec.get("validationActions"))
    errors: list[fe.FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in VALIDATION_ACTIONS:
            errors.append(fe.not_supported(f"{path}[{i}]", _text(action), VALIDATION_ACTIONS))
            continue  # only supported (string) values can repeat; a list or map here must not crash
        if action in seen:
            errors.append(fe.duplicate(f"{path}[{i}]", _text(action)))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errors.append(
            fe.invalid(
                path,
                fe.GoValue(actions, "[]admissionregistration.ValidationAction"),
                "must not contain both Deny and Warn (repeating the same validation failure "
                "information in the API response and headers serves no purpose)",
            )
        )
    if not seen:
        errors.append(fe.required(path, "at least one validation action is required"))
    return errors


register_create_rules(CreateRules(VALIDATING_POLICY, validate=validate_policy_spec))
register_create_rules(CreateRules(VALIDATING_BINDING, validate=validate_binding_spec))
