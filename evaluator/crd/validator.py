"""Running every `x-kubernetes-validations` rule of a schema over an object (apiextensions `schema/cel/validation.go`).

The schema is walked with the object: a node's rules run first, then allOf's rules, then the rules below
(properties and additionalProperties in the object's key order, list items in order). One cost budget is
shared by the whole object; running out of it stops validation with the API server's error. Transition
rules (`oldSelf`) run only where an old value correlates, unless `optionalOldSelf` is set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.cel.errors import CostLimitError, EvaluationError
from evaluator.cel.escaping import escape
from evaluator.cel.schematypes import ObjectType, SchemaContext, schema_type
from evaluator.cel.types import Type
from evaluator.cel.values import OPTIONAL_NONE, Optional
from evaluator.crd import structural as st
from evaluator.crd.compilation import CompiledRule, compile_rule, type_name_for
from evaluator.crd.correlation import MapList, Ratchet
from evaluator.crd.fielderrors import OMIT, FieldError, for_reason, invalid
from evaluator.crd.values import Activation, CheckedMap, to_cel

MAX_MESSAGE_BYTES = 5 * 1024
_UNCONVERTED = object()
_CTX = SchemaContext({}, keyword_fields=True)
_NO_DECL = "failed to convert to declType for CEL validation rules"


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def keyed(path: str, key: Any) -> str:
    return f"{path}[{key}]"


def decl_type(schema: Mapping[str, Any], is_resource_root: bool, name: str) -> Type | None:
    return schema_type(schema, _CTX, name, is_resource_root)


class Outcome:
    """What one validation collects: errors, ratcheted warnings and a trace of every rule evaluated."""

    def __init__(self, trace: bool = False):
        self.errors: list[FieldError] = []
        self.warnings: list[str] = []
        self.trace: list[dict] | None = [] if trace else None


class NodeValidator:
    def __init__(
        self,
        validation_schema: Mapping[str, Any],
        node_schema: Mapping[str, Any],
        is_resource_root: bool,
        self_type: Type | None,
        per_call_limit: int,
    ):
        self.schema = node_schema
        self.rules = st.rules(validation_schema)
        self.is_resource_root = is_resource_root
        self.compilation_error: str | None = None
        self.compiled: list[CompiledRule] = []
        if self.rules:
            if self_type is None:
                self.compilation_error = _NO_DECL
            else:
                self.compiled = [compile_rule(r, node_schema, self_type, per_call_limit) for r in self.rules]
        elem = element_type(self_type)
        self.items = _build_child(st.items, validation_schema, node_schema, elem, per_call_limit)
        self.properties = _build_properties(validation_schema, node_schema, self_type, per_call_limit)
        self.additional = _build_child(st.additional_properties, validation_schema, node_schema, elem, per_call_limit)
        self.all_of: list[NodeValidator] = []
        for part in validation_schema.get("allOf") or ():
            if isinstance(part, Mapping):
                sub = _useful(NodeValidator(part, node_schema, is_resource_root, self_type, per_call_limit))
                if sub is not None:
                    self.all_of.append(sub)
        self.uses_old_self = any(c.uses_old_self for c in self.compiled)

    def useful(self) -> bool:
        return bool(self.rules or self.items or self.additional or self.properties or self.all_of)

    # -- validation ------------------------------------------------------------------------------------
    def validate(
        self, path: str, obj: Any, old: Any, ratchet: Ratchet, budget: int, out: Outcome, converted: Any = _UNCONVERTED
    ) -> int:
        """`converted` is `obj` as CEL sees it when a parent already converted it (converted once, top down)."""
        if obj is None:
            return budget
        if converted is _UNCONVERTED and (
            self.compiled or self.all_of or self.items or self.properties or self.additional
        ):
            sts = st.with_type_and_object_meta(self.schema) if self.is_resource_root else self.schema
            converted = to_cel(obj, sts)
        budget = self.validate_rules(path, obj, old, ratchet, budget, out, converted)
        if budget < 0:
            return budget
        for sub in self.all_of:
            budget = sub.validate(path, obj, old, Ratchet(None, ratchet.parent), budget, out, converted)
            if budget < 0:
                return budget
        if isinstance(obj, list):
            return self.validate_list(
                path,
                obj,
                old if isinstance(old, list) else None,
                ratchet,
                budget,
                out,
                converted if isinstance(converted, list) else None,
            )
        if isinstance(obj, dict):
            return self.validate_map(path, obj, old if isinstance(old, dict) else None, ratchet, budget, out, converted)
        return budget

    def validate_map(
        self, path: str, obj: dict, old: dict | None, ratchet: Ratchet, budget: int, out: Outcome, converted: Any = None
    ) -> int:
        values = _plain(converted)
        correlatable = st.map_type(self.schema) in (None, "granular", "atomic")
        if self.additional is not None:
            for k, v in obj.items():
                old_v = old.get(k) if correlatable and old is not None else None
                budget = self.additional.validate(
                    keyed(path, k), v, old_v, ratchet.key(k), budget, out, values.get(k, _UNCONVERTED)
                )
                if budget < 0:
                    return budget
        if self.properties:
            for k, v in obj.items():
                sub = self.properties.get(k)
                if sub is None:
                    continue
                old_v = old.get(k) if correlatable and old is not None else None
                budget = sub.validate(
                    child(path, k), v, old_v, ratchet.key(k), budget, out, values.get(k, _UNCONVERTED)
                )
                if budget < 0:
                    return budget
        return budget

    def validate_list(
        self,
        path: str,
        obj: list,
        old: list | None,
        ratchet: Ratchet,
        budget: int,
        out: Outcome,
        converted: list | None = None,
    ) -> int:
        if self.items is None:
            return budget
        old_items = MapList(self.schema, old)
        same = converted is not None and len(converted) == len(obj)
        for i, item in enumerate(obj):
            budget = self.items.validate(
                keyed(path, i),
                item,
                old_items.get(item),
                ratchet.index(i),
                budget,
                out,
                converted[i] if same else _UNCONVERTED,
            )
            if budget < 0:
                return budget
        return budget

    def validate_rules(
        self, path: str, obj: Any, old: Any, ratchet: Ratchet, budget: int, out: Outcome, self_value: Any = None
    ) -> int:
        type_value = st.type_of(self.schema)
        if self.compilation_error is not None:
            out.errors.append(
                invalid(path, type_value, f"rule compiler initialization error: {self.compilation_error}")
            )
            return budget
        if not self.compiled:
            return budget
        if budget <= 0:
            out.errors.append(_out_of_budget(path, type_value))
            return -1
        plain, optional = self._activations(old, self_value)
        for compiled in self.compiled:
            if compiled.program is None:
                if compiled.error is not None:
                    out.errors.append(invalid(path, type_value, f"rule compile error: {compiled.error}"))
                continue
            if compiled.uses_old_self and old is None and not compiled.optional_old_self:
                continue
            value, cost, error, cost_limit = _run(compiled.program, optional if compiled.optional_old_self else plain)
            if cost > budget:
                out.errors.append(_out_of_budget(path, type_value))
                return -1
            budget -= cost
            if out.trace is not None:
                _record(out.trace, compiled.rule, path, value, cost, error)
            if error is not None:
                if _rule_error(out, path, type_value, compiled.rule, error, cost_limit):
                    return -1
            elif value is not True:
                budget = self._failed(compiled, path, obj, ratchet, budget, out, plain, type_value)
                if budget < 0:
                    return budget
        return budget

    def _activations(self, old: Any, self_value: Any) -> tuple[Activation, Activation]:
        """`self` (and `oldSelf` where a rule reads it and an old value correlates) for plain rules, and for
        `optionalOldSelf` rules with `oldSelf` as an optional."""
        old_value = None
        if old is not None and self.uses_old_self:
            sts = st.with_type_and_object_meta(self.schema) if self.is_resource_root else self.schema
            old_value = to_cel(old, sts)
            plain = Activation({"self": self_value, "oldSelf": old_value})
        else:
            plain = Activation({"self": self_value})
        optional = Activation(
            {"self": self_value, "oldSelf": Optional(old_value) if old is not None else OPTIONAL_NONE}
        )
        return plain, optional

    def _failed(
        self,
        compiled: CompiledRule,
        path: str,
        obj: Any,
        ratchet: Ratchet,
        budget: int,
        out: Outcome,
        activation: Activation,
        type_value: str,
    ) -> int:
        """A rule that evaluated to false: its message (from messageExpression when that works) at its field."""
        rule = compiled.rule
        field_path = child(path, compiled.field_path) if compiled.field_path else path
        detail = None
        if compiled.message_program is not None:
            detail, budget, fatal = _message(compiled, activation, budget, field_path, type_value)
            if fatal is not None:
                self._add(out, compiled, ratchet, fatal)
                return -1
        if detail is None:
            detail = rule_message_or_default(rule)
        bad_value = OMIT if type_value in ("object", "array") else obj
        reason = rule.get("reason") if isinstance(rule.get("reason"), str) else None
        self._add(out, compiled, ratchet, for_reason(field_path, bad_value, detail, reason))
        return budget

    @staticmethod
    def _add(out: Outcome, compiled: CompiledRule, ratchet: Ratchet, error: FieldError) -> None:
        if not compiled.uses_old_self and ratchet.should_ratchet():
            out.warnings.append(error.text)
        else:
            out.errors.append(error)


def _record(trace: list[dict], rule: Mapping[str, Any], path: str, value: Any, cost: int, error: str | None) -> None:
    trace.append(
        {
            "rule": rule.get("rule"),
            "path": path,
            "value": value if error is None else None,
            "cost": cost,
            "error": error,
        }
    )


def _run(program: Any, activation: Activation) -> tuple[Any, int, str | None, bool]:
    """(value, cost, error text, whether the error is the per-call cost limit) of one evaluation."""
    try:
        evaluation = program.evaluate(activation, timeout=5.0)
    except CostLimitError as e:
        return None, e.cost, e.message, True
    except EvaluationError as e:
        return None, e.cost, e.message, False
    return evaluation.value, evaluation.cost, None, False


def _cost_limited(error: str, cost_limit: bool) -> bool:
    return cost_limit or error.startswith("operation cancelled: actual cost limit exceeded")


def _out_of_budget(path: str, type_value: str) -> FieldError:
    return invalid(
        path, type_value, "validation failed due to running out of cost budget, no further validation rules will be run"
    )


def _rule_error(
    out: Outcome, path: str, type_value: str, rule: Mapping[str, Any], error: str, cost_limit: bool
) -> bool:
    """A rule whose evaluation failed: its field error; True when it stops validation (the cost limit)."""
    label = rule_error_string(rule)
    stop = False
    if error.startswith("no such overload"):
        detail = (
            f"'{error}': call arguments did not match a "
            f"supported operator, function or macro signature for rule: {label}"
        )
    elif _cost_limited(error, cost_limit):
        detail = f"'{error}': no further validation rules will be run due to call cost exceeds limit for rule: {label}"
        stop = True
    else:
        detail = f"{error} evaluating rule: {label}"
    out.errors.append(invalid(path, type_value, detail))
    return stop


def _message(
    compiled: CompiledRule, activation: Activation, budget: int, path: str, type_value: str
) -> tuple[str | None, int, FieldError | None]:
    """evalMessageExpression: (message or None to fall back on `message`, remaining budget, fatal error)."""
    value, cost, error, cost_limit = _run(compiled.message_program, activation)
    fatal = None
    if cost > budget:
        fatal = (
            "messageExpression evaluation failed due to running out of cost budget, "
            "no further validation rules will be run"
        )
    elif error is not None and _cost_limited(error, cost_limit):
        quoted = _go_quote(compiled.rule.get("messageExpression"))
        fatal = (
            f"no further validation rules will be run due to call cost exceeds limit for messageExpression: {quoted}"
        )
    if fatal is not None:
        return None, -1, invalid(path, type_value, fatal)
    if error is not None or not isinstance(value, str):
        return None, budget - cost, None
    text = value.strip()
    if len(text.encode()) > MAX_MESSAGE_BYTES or "\n" in text or not text:
        return None, budget - cost, None
    return text, budget - cost, None


def _go_quote(text: Any) -> str:
    import json

    return json.dumps(str(text), ensure_ascii=False)


def _plain(converted: Any) -> Mapping[str, Any]:
    if isinstance(converted, CheckedMap):
        return converted.raw
    return converted if isinstance(converted, dict) else {}


def rule_error_string(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    text = rule.get("rule")
    return text.strip() if isinstance(text, str) else ""


def rule_message_or_default(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return f"failed rule: {rule_error_string(rule)}"


def element_type(t: Type | None) -> Type | None:
    """The type of a list's items or of a map's values (None for anything else)."""
    if t is None:
        return None
    if t.name == "list" and t.params:
        return t.params[0]
    if t.name == "map" and len(t.params) == 2:
        return t.params[1]
    return None


def _build_child(
    get: Callable[[Mapping[str, Any]], Mapping[str, Any] | None],
    validation_schema: Mapping[str, Any],
    node_schema: Mapping[str, Any],
    self_type: Type | None,
    per_call_limit: int,
) -> NodeValidator | None:
    """The validator of the items or the additionalProperties, when both schemas have them."""
    v_child, n_child = get(validation_schema), get(node_schema)
    if v_child is None or n_child is None:
        return None
    return _useful(NodeValidator(v_child, n_child, st.is_embedded(n_child), self_type, per_call_limit))


def _build_properties(
    validation_schema: Mapping[str, Any],
    node_schema: Mapping[str, Any],
    self_type: Type | None,
    per_call_limit: int,
) -> dict[str, NodeValidator]:
    built: dict[str, NodeValidator] = {}
    n_props = st.properties(node_schema) or {}
    for name, v_prop in (st.properties(validation_schema) or {}).items():
        if name not in n_props:
            continue
        n_prop = st.node(n_props[name])
        field_type = _field_type(self_type, name, n_prop)
        if field_type is None:
            continue
        sub = _useful(NodeValidator(st.node(v_prop), n_prop, st.is_embedded(n_prop), field_type, per_call_limit))
        if sub is not None:
            built[name] = sub
    return built


def _field_type(self_type: Type | None, name: Any, prop: Mapping[str, Any]) -> Type | None:
    """A property's type: its parent's field type, or its own schema's for a name CEL cannot spell."""
    escaped = escape(str(name))
    if escaped is None:
        return decl_type(prop, st.is_embedded(prop), "selfType.unescaped")
    return self_type.field_type(escaped) if isinstance(self_type, ObjectType) else None


def has_rules(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if st.rules(schema):
        return True
    if has_rules(st.items(schema)) or has_rules(st.additional_properties(schema)):
        return True
    if any(has_rules(part) for part in schema.get("allOf") or ()):
        return True
    return any(has_rules(p) for p in (st.properties(schema) or {}).values())


def _useful(validator: NodeValidator) -> NodeValidator | None:
    """A validator with nothing to run (no rules here nor below) is left out of the tree."""
    return validator if validator.useful() else None


def root_validator(
    schema: Mapping[str, Any],
    is_resource_root: bool,
    per_call_limit: int,
    decl_root: bool | None = None,
) -> NodeValidator | None:
    if not has_rules(schema):
        return None
    decl_root = is_resource_root if decl_root is None else decl_root
    self_type = decl_type(schema, decl_root, type_name_for(schema))
    return _useful(NodeValidator(schema, schema, is_resource_root, self_type, per_call_limit))
