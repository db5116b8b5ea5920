"""Label selectors with apimachinery's exact semantics, shared by VAP, MAP and Kyverno.

Two entry points mirror Go:
- ``parse_selector`` is ``metav1.LabelSelectorAsSelector``: ``None`` selects nothing, ``{}`` selects
  everything, and a malformed selector yields the error text the API server would wrap.
- ``validate_label_selector`` is ``metav1validation.ValidateLabelSelector``: field errors for objects
  that the API would refuse to store.

Matching rules (``labels.Selector.Matches``): ``NotIn`` and ``DoesNotExist`` match a missing key;
``In``/``Exists`` and matchLabels need the key.
"""

from __future__ import annotations

from itertools import chain
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.k8s import fielderrors as fe
from evaluator.k8s.names import is_qualified_name, is_valid_label_value

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, EQUALS = "In", "NotIn", "Exists", "DoesNotExist", "Equals"
_SELECTOR_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST)


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.operator in (IN, EQUALS):
            return present and labels[self.key] in self.values
        if self.operator == NOT_IN:
            return not present or labels[self.key] not in self.values
        if self.operator == EXISTS:
            return present
        if self.operator == DOES_NOT_EXIST:
            return not present
        return False


@dataclass(frozen=True)
class Selector:
    """A parsed selector. ``nothing`` is Go's ``labels.Nothing()`` (a nil LabelSelector)."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @property
    def empty(self) -> bool:
        """Go's ``Selector.Empty()``: true only for the match-everything selector."""
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, Any] | None) -> bool:
        if self.nothing:
            return False
        normalized = _string_labels(labels)
        return all(req.matches(normalized) for req in self.requirements)


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def _string_labels(labels: Mapping[str, Any] | None) -> dict[str, str]:
    if not isinstance(labels, Mapping):
        return {}
    return {str(k): v for k, v in labels.items() if isinstance(v, str)}


def object_labels(obj: Any) -> dict[str, str]:
    """``metadata.labels`` of a JSON object; anything missing or malformed reads as no labels."""
    if not isinstance(obj, Mapping):
        return {}
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        return {}
    return _string_labels(metadata.get("labels"))


def _requirement_errors(key: str, operator: str, values: list[str]) -> list[fe.FieldError]:
    """``labels.NewRequirement`` validation (field paths relative to the requirement, as Go reports them)."""
    errors: list[fe.FieldError] = []
    key_problems = is_qualified_name(key)
    if key_problems:
        errors.append(fe.invalid("key", key, "; ".join(key_problems)))
    if operator in (IN, NOT_IN) and not values:
        errors.append(
            fe.invalid("values", fe.GoValue(values), "for 'in', 'notin' operators, values set can't be empty")
        )
    if operator == EQUALS and len(values) != 1:
        errors.append(fe.invalid("values", fe.GoValue(values), "exact-match compatibility requires one single value"))
    if operator in (EXISTS, DOES_NOT_EXIST) and values:
        errors.append(
            fe.invalid("values", fe.GoValue(values), "values set must be empty for exists and does not exist")
        )
    for i, value in enumerate(values):
        problems = is_valid_label_value(value)
        if problems:
            errors.append(fe.invalid(f"values[{i}][{value}]", value, "; ".join(problems)))
    return errors


def _string_list(values: Any) -> list[str] | None:
    if values is None:
        return []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    return values


def parse_selector(selector: Any) -> tuple[Selector | None, str | None]:
    """``metav1.LabelSelectorAsSelector``: returns ``(selector, None)`` or ``(None, error text)``."""
    if selector is None:
        return NOTHING, None
    if not isinstance(selector, Mapping):
        return None, f"label selector must be an object, got {type(selector).__name__}"
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        return None, "matchLabels must be a map of string to string"
    if not isinstance(expressions, list):
        return None, "matchExpressions must be a list"
    if not match_labels and not expressions:
        return EVERYTHING, None
    requirements: list[Requirement] = []
    made = chain(
        (_label_requirement(key, value) for key, value in match_labels.items()),
        (_expression_requirement(expr) for expr in expressions),
    )
    for requirement in made:
        if isinstance(requirement, str):
            return None, requirement
        requirements.append(requirement)
    return Selector(tuple(requirements)), None


def _label_requirement(key: Any, value: Any) -> Requirement | str:
    """One matchLabels entry as an Equals requirement, or the error text."""
    value = "" if value is None else value  # JSON null decodes to "" in a map[string]string
    if not isinstance(value, str):
        return f"matchLabels[{key}] must be a string"
    errors = _requirement_errors(str(key), EQUALS, [value])
    if errors:
        return fe.aggregate_text(errors)
    return Requirement(str(key), EQUALS, (value,))


def _expression_requirement(expr: Any) -> Requirement | str:
    """One matchExpressions entry as a requirement, or the error text."""
    if not isinstance(expr, Mapping):
        return "matchExpressions entries must be objects"
    operator = expr.get("operator")
    if operator not in _SELECTOR_OPERATORS:
        return f'"{operator if operator is not None else ""}" is not a valid label selector operator'
    key = expr.get("key") if isinstance(expr.get("key"), str) else ""
    values = _string_list(expr.get("values"))
    if values is None:
        return "matchExpressions values must be a list of strings"
    errors = _requirement_errors(key, operator, values)
    if errors:
        return fe.aggregate_text(errors)
    return Requirement(key, operator, tuple(values))


def selector_matches(selector: Any, labels: Mapping[str, Any] | None) -> bool:
    """Convenience: True when a (valid) selector dict selects ``labels``. Invalid selectors select nothing."""
    parsed, error = parse_selector(selector)
    return parsed is not None and error is None and parsed.matches(labels)


def _validate_label_name(name: Any, path: str) -> list[fe.FieldError]:
    text = name if isinstance(name, str) else ""
    return [fe.invalid(path, text, msg) for msg in is_qualified_name(text)]


def validate_label_selector(selector: Any, path: str, allow_invalid_label_value: bool = False) -> list[fe.FieldError]:
    """``metav1validation.ValidateLabelSelector``: errors for a selector the API would refuse to store."""
    if selector is None:
        return []
    if not isinstance(selector, Mapping):
        return [fe.invalid(path, str(selector), "must be a label selector object")]
    errors: list[fe.FieldError] = []
    labels_path = f"{path}.matchLabels"
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        errors.append(fe.invalid(labels_path, str(match_labels), "must be a map of string to string"))
        match_labels = {}
    for key, value in match_labels.items():
        errors.extend(_validate_label_name(key, labels_path))
        text = value if isinstance(value, str) else str(value)
        errors.extend(fe.invalid(labels_path, text, msg) for msg in is_valid_label_value(text))
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        return errors + [fe.invalid(f"{path}.matchExpressions", str(expressions), "must be a list")]
    for i, expr in enumerate(expressions):
        expr_path = f"{path}.matchExpressions[{i}]"
        if not isinstance(expr, Mapping):
            errors.append(fe.invalid(expr_path, str(expr), "must be an object"))
            continue
        errors.extend(_validate_requirement(expr, expr_path, allow_invalid_label_value))
    return errors


def _validate_requirement(expr: Mapping, path: str, allow_invalid_label_value: bool) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    operator = expr.get("operator")
    values = expr.get("values") or []
    if not isinstance(values, list):
        values = [values]
    if operator in (IN, NOT_IN):
        if not values:
            errors.append(fe.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in (EXISTS, DOES_NOT_EXIST):
        if values:
            errors.append(
                fe.forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
            )
    else:
        errors.append(
            fe.invalid(f"{path}.operator", operator if operator is not None else "", "not a valid selector operator")
        )
    errors.extend(_validate_label_name(expr.get("key"), f"{path}.key"))
    if not allow_invalid_label_value:
        for i, value in enumerate(values):
            text = value if isinstance(value, str) else str(value)
            errors.extend(fe.invalid(f"{path}.values[{i}]", text, msg) for msg in is_valid_label_value(text))
    return errors
