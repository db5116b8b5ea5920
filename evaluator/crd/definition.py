"""Checks the API server makes on a CRD's schema when the CRD is created or updated (the CEL part of
apiextensions `validation.ValidateCustomResourceDefinitionOpenAPISchema`).

Each rule must be specified, its message/messageExpression/reason/fieldPath well formed; rules compile in
the CRD environment; `oldSelf` only where old values correlate (not under atomic or set lists, nor maps of
an unknown map type); and the estimated cost — a rule's maximum cost times how many times it can run
(the product of `maxItems`/`maxProperties` above it, or what fits in a 3 MiB request) — stays within
10,000,000 per expression and 100,000,000 for the whole schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.cel.escaping import escape
from evaluator.cel.schematypes import ObjectType
from evaluator.crd import structural as st
from evaluator.crd.compilation import CompiledRule, compile_rule, type_name_for
from evaluator.crd.estimation import estimate_for_schema, max_cardinality, size_tree
from evaluator.crd.fielderrors import FieldError
from evaluator.crd.fieldpath import valid_field_path
from evaluator.crd.validator import decl_type, element_type

PER_EXPRESSION_LIMIT = 10_000_000
PER_CRD_LIMIT = 100_000_000
U64 = 2**64 - 1
SUPPORTED_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
_MAP_TYPES = ("granular", "atomic")


def cost_error_message(name: str, cost: int, limit: int) -> str:
    exceed = float(cost) / float(limit)
    if exceed > 100.0:
        factor = "more than 100x"
    elif exceed < 1.5:
        factor = f"{exceed:f}x"
    else:
        factor = f"{exceed:.1f}x"
    return (
        f"{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


@dataclass
class _Total:
    total: int = 0
    most_expensive: list[tuple[int, str]] = field(default_factory=list)
    rules: list[dict] = field(default_factory=list)  # every expression's estimate, for display

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, U64)
        if cost < PER_CRD_LIMIT // 100:
            return
        self.most_expensive.append((cost, path))
        self.most_expensive.sort(key=lambda x: -x[0])
        del self.most_expensive[4:]


@dataclass
class _Ctx:
    cardinality: int | None  # None: unbounded
    forbid_old_self: str | None
    self_type: Any
    is_root: bool


def _mul(a: int, b: int) -> int:
    if a == 0:
        return 0
    return U64 if U64 // a < b else a * b


def _max_elements(schema: Mapping[str, Any]) -> int | None:
    kind = st.type_of(schema)
    if kind == "object":
        if schema.get("additionalProperties") is not None and not isinstance(schema.get("additionalProperties"), bool):
            mp = schema.get("maxProperties")
            return max(mp, 0) if isinstance(mp, int) else None
        return 1
    if kind == "array":
        mi = schema.get("maxItems")
        return max(mi, 0) if isinstance(mi, int) else None
    return 1


def estimated_costs(schema: Mapping[str, Any], path: str = "openAPIV3Schema") -> list[dict]:
    """Each rule's estimated cost as the API server computes it on create (max cost × cardinality)."""
    total = _Total()
    check_schema(schema, path, _total=total)
    return total.rules


def check_schema(
    schema: Mapping[str, Any],
    path: str = "spec.validation.openAPIV3Schema",
    *,
    suppress_per_expression_cost: bool = False,
    _total: _Total | None = None,
) -> list[FieldError]:
    """Every CEL-related error the API server reports for this openAPIV3Schema, in its order."""
    schema = schema if isinstance(schema, Mapping) else {}
    total = _total if _total is not None else _Total()
    defaults = default_errors(schema, path)
    if defaults:  # structuraldefaulting.ValidateDefaults fails first; the CEL checks are then skipped
        return defaults
    errors: list[FieldError] = []
    root_type = decl_type(schema, True, type_name_for(schema))
    walker = _Walker(total, suppress_per_expression_cost)
    walker.walk(schema, path, _Ctx(1, None, root_type, True))
    errors.extend(walker.schema_errors + walker.cel_errors)
    if total.total > PER_CRD_LIMIT:
        for _, p in total.most_expensive:
            errors.append(
                FieldError(
                    "FieldValueForbidden",
                    p,
                    "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                )
            )
        errors.append(
            FieldError(
                "FieldValueForbidden",
                path,
                cost_error_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    total.total,
                    PER_CRD_LIMIT,
                ),
            )
        )
    return errors


def _child_ctx(parent_schema: Mapping[str, Any], ctx: _Ctx, child_type: Any, forbid: str | None) -> _Ctx:
    card = None
    if ctx.cardinality is not None:
        m = _max_elements(parent_schema)
        card = _mul(ctx.cardinality, m) if m is not None else None
    return _Ctx(card, forbid if ctx.forbid_old_self is None else ctx.forbid_old_self, child_type, False)


class _Walker:
    """One check of a schema: structural problems (which stop the CEL checks of the rules above them) and
    the rules' own errors, each in the API server's order, and the cost total they add up to."""

    def __init__(self, total: _Total, suppress: bool):
        self.total = total
        self.suppress = suppress  # the schema is unchanged on update: no per-expression cost errors
        self.schema_errors: list[FieldError] = []
        self.cel_errors: list[FieldError] = []

    def walk(self, schema: Mapping[str, Any], path: str, ctx: _Ctx) -> None:
        first = len(self.schema_errors)
        self.schema_errors += _composition_errors(schema, path)
        self._children(schema, path, ctx)
        rules = st.rules(schema)
        if not rules:
            return
        base = f"{path}.x-kubernetes-validations"
        for i, rule in enumerate(rules):
            _rule_shape(rule, schema, f"{base}[{i}]", self.schema_errors)
        if len(self.schema_errors) == first:  # nothing wrong here nor below
            self._rules(schema, rules, base, ctx)

    def _children(self, schema: Mapping[str, Any], path: str, ctx: _Ctx) -> None:
        map_type = schema.get("x-kubernetes-map-type")
        unknown_map_type = map_type is not None and map_type not in _MAP_TYPES
        extra = st.additional_properties(schema)
        props = st.properties(schema)
        if extra is not None:
            if props:
                self.schema_errors.append(
                    FieldError(
                        "FieldValueForbidden",
                        f"{path}.additionalProperties",
                        "additionalProperties and properties are mutual exclusive",
                    )
                )
            self.walk(extra, f"{path}.additionalProperties", _child_ctx(schema, ctx, element_type(ctx.self_type), None))
        forbid = path if unknown_map_type else None
        for name, prop in (props or {}).items():
            if isinstance(prop, Mapping):
                child_type = _property_type(ctx.self_type, name, prop)
                self.walk(prop, f"{path}.properties[{name}]", _child_ctx(schema, ctx, child_type, forbid))
        if unknown_map_type:
            self.schema_errors.append(
                FieldError(
                    "FieldValueNotSupported",
                    f"{path}.x-kubernetes-map-type",
                    'supported values: "atomic", "granular"',
                    map_type,
                )
            )
        items = st.items(schema)
        if items is not None:
            forbid = path if st.list_type(schema) != "map" else None
            self.walk(items, f"{path}.items", _child_ctx(schema, ctx, element_type(ctx.self_type), forbid))

    def _rules(self, schema: Mapping[str, Any], rules: list, base: str, ctx: _Ctx) -> None:
        embedded = ctx.is_root or st.is_embedded(schema)
        self_type = ctx.self_type
        if self_type is None:
            self_type = decl_type(schema, embedded, type_name_for(schema))
        if self_type is None:
            self.cel_errors.append(
                FieldError(
                    "InternalError",
                    base,
                    "internal error: failed to retrieve type information for x-kubernetes-validations",
                )
            )
            return
        estimator = estimate_for_schema(schema, embedded)
        card = ctx.cardinality
        if card is None:
            sizes = size_tree(schema, embedded)
            card = max_cardinality(sizes.min_size if sizes is not None else 1)
        for i, rule in enumerate(rules):
            compiled = compile_rule(rule, schema, self_type, 1_000_000, estimator)
            self._rule(rule, compiled, f"{base}[{i}]", card, ctx.forbid_old_self)

    def _rule(self, rule: Mapping[str, Any], compiled: CompiledRule, path: str, card: int, forbid: str | None) -> None:
        rule_path = f"{path}.rule"
        cost = _mul(compiled.max_cost, card)
        self._cost("estimated rule cost", rule_path, cost)
        self.total.rules.append(
            {
                "path": rule_path,
                "rule": rule.get("rule"),
                "maxCost": compiled.max_cost,
                "cardinality": card,
                "estimatedCost": cost,
                "limit": PER_EXPRESSION_LIMIT,
                "withinBudget": cost <= PER_EXPRESSION_LIMIT,
            }
        )
        if compiled.error is not None:
            self.cel_errors.append(FieldError("FieldValueInvalid", rule_path, compiled.error, rule.get("rule")))
        message_path = f"{path}.messageExpression"
        if compiled.message_error is not None:
            self.cel_errors.append(
                FieldError("FieldValueInvalid", message_path, compiled.message_error, rule.get("messageExpression"))
            )
        elif compiled.message_program is not None:
            self._cost("estimated messageExpression cost", message_path, compiled.message_max_cost)
        self.cel_errors += _old_self_errors(rule, compiled, path, forbid)

    def _cost(self, label: str, path: str, cost: int) -> None:
        """An expression's estimated cost: refused past the per-expression limit, and added to the total."""
        if not self.suppress and cost > PER_EXPRESSION_LIMIT:
            self.cel_errors.append(
                FieldError("FieldValueForbidden", path, cost_error_message(label, cost, PER_EXPRESSION_LIMIT))
            )
        self.total.observe(path, cost)


def _composition_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """Rules inside allOf/anyOf/oneOf/not: a structural schema keeps them at the node itself."""
    parts = [
        (f"{path}.{key}[{i}]", part)
        for key in ("allOf", "anyOf", "oneOf")
        for i, part in enumerate(schema.get(key) or ())
    ]
    parts.append((f"{path}.not", schema.get("not")))
    return [
        FieldError("FieldValueForbidden", f"{where}.x-kubernetes-validations", "must be empty to be structural")
        for where, part in parts
        if isinstance(part, Mapping) and part.get("x-kubernetes-validations") is not None
    ]


def _property_type(parent_type: Any, name: Any, prop: Mapping[str, Any]) -> Any:
    """A property's CEL type: the parent's field type, or its own schema's when the parent has none for it."""
    escaped = escape(str(name))
    child_type = None
    if isinstance(parent_type, ObjectType) and escaped is not None:
        child_type = parent_type.field_type(escaped)
    if child_type is None:
        child_type = decl_type(prop, st.is_embedded(prop), "selfType.prop")
    return child_type


def _old_self_errors(
    rule: Mapping[str, Any], compiled: CompiledRule, path: str, forbid: str | None
) -> list[FieldError]:
    """`oldSelf` only where old values correlate; `optionalOldSelf` only with `oldSelf`."""
    if compiled.uses_old_self:
        if forbid is None:
            return []
        return [
            FieldError(
                "FieldValueInvalid",
                f"{path}.rule",
                f"oldSelf cannot be used on the uncorrelatable portion of the schema within {forbid}",
                rule.get("rule"),
            )
        ]
    if "optionalOldSelf" in rule and rule.get("optionalOldSelf") is not None:
        return [
            FieldError(
                "FieldValueInvalid",
                f"{path}.optionalOldSelf",
                "may not be set if oldSelf is not used in rule",
                rule.get("optionalOldSelf"),
            )
        ]
    return []


def default_errors(schema: Mapping[str, Any], path: str, is_root: bool = True, depth: int = 0) -> list[FieldError]:
    """Each `default` must pass the rules of its schema node (and below), as the API server checks on create."""
    from evaluator.crd import validate

    errors: list[FieldError] = []
    if depth > 64 or not isinstance(schema, Mapping):
        return errors
    if "default" in schema and schema.get("default") is not None:
        result = validate(
            schema, schema["default"], is_resource_root=is_root or st.is_embedded(schema), root_path=f"{path}.default"
        )
        errors += [FieldError(e["type"], e["field"], e["detail"]) for e in result["errors"]]
    for name, prop in (st.properties(schema) or {}).items():
        errors += default_errors(st.node(prop), f"{path}.properties[{name}]", False, depth + 1)
    extra = st.additional_properties(schema)
    if extra is not None:
        errors += default_errors(extra, f"{path}.additionalProperties", False, depth + 1)
    items = st.items(schema)
    if items is not None:
        errors += default_errors(items, f"{path}.items", False, depth + 1)
    return errors


def _rule_shape(rule: Mapping[str, Any], schema: Mapping[str, Any], path: str, errors: list[FieldError]) -> None:
    """The checks of one rule's own fields, before anything is compiled."""
    text_error = _text_error(_text(rule, "rule"), _text(rule, "message"), path)
    if text_error is not None:
        errors.append(text_error)
    message_expr = _text(rule, "messageExpression")
    if message_expr and not message_expr.strip():
        errors.append(
            FieldError(
                "FieldValueRequired", f"{path}.messageExpression", "messageExpression must be non-empty if specified"
            )
        )
    reason = rule.get("reason")
    if reason is not None and reason not in SUPPORTED_REASONS:
        errors.append(
            FieldError(
                "FieldValueNotSupported",
                f"{path}.reason",
                "supported values: " + ", ".join(f'"{r}"' for r in SUPPORTED_REASONS),
                reason,
            )
        )
    errors += _field_path_errors(_text(rule, "fieldPath"), schema, f"{path}.fieldPath")


def _text(rule: Mapping[str, Any], key: str) -> str:
    value = rule.get(key)
    return value if isinstance(value, str) else ""


def _text_error(text: str, message: str, path: str) -> FieldError | None:
    """The rule and its message: the first problem only, as the API server reports it."""
    if not text.strip():
        return FieldError("FieldValueRequired", f"{path}.rule", "rule is not specified")
    if message and not message.strip():
        return FieldError("FieldValueInvalid", f"{path}.message", "must be non-empty if specified", message)
    if _newlines(message.strip()):
        return FieldError("FieldValueInvalid", f"{path}.message", "must not contain line breaks", message)
    if _newlines(text.strip()) and not message.strip():
        return FieldError(
            "FieldValueRequired", f"{path}.message", "message must be specified if rule contains line breaks"
        )
    return None


def _field_path_errors(field_path: str, schema: Mapping[str, Any], path: str) -> list[FieldError]:
    errors = []
    if field_path and not field_path.strip():
        errors.append(FieldError("FieldValueInvalid", path, "must be non-empty if specified", field_path))
    if _newlines(field_path):
        errors.append(FieldError("FieldValueInvalid", path, "must not contain line breaks", field_path))
    if field_path and valid_field_path(field_path, schema).error is not None:
        errors.append(FieldError("FieldValueInvalid", path, "must be a valid path", field_path))
    return errors


def _newlines(text: str) -> bool:
    return "\n" in text or "\r" in text


def check_crd(crd: Mapping[str, Any], old_crd: Mapping[str, Any] | None = None) -> list[FieldError]:
    """The CEL checks for every version's schema of a CustomResourceDefinition (v1 or internal form)."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    errors: list[FieldError] = []
    old_schemas = _schemas(old_crd) if old_crd else {}
    top = (spec.get("validation") or {}).get("openAPIV3Schema") if isinstance(spec.get("validation"), Mapping) else None
    if isinstance(top, Mapping):
        errors += check_schema(
            top,
            "spec.validation.openAPIV3Schema",
            suppress_per_expression_cost=any(s == top for s in old_schemas.values()),
        )
    for i, version in enumerate(spec.get("versions") or ()):
        if not isinstance(version, Mapping):
            continue
        schema = (
            (version.get("schema") or {}).get("openAPIV3Schema") if isinstance(version.get("schema"), Mapping) else None
        )
        if isinstance(schema, Mapping):
            suppress = schema in (old_schemas.get(str(version.get("name"))), old_schemas.get("*"))
            errors += check_schema(
                schema, f"spec.versions[{i}].schema.openAPIV3Schema", suppress_per_expression_cost=suppress
            )
    return errors


def _schemas(crd: Mapping[str, Any]) -> dict[str, Any]:
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    out = {}
    top = (spec.get("validation") or {}).get("openAPIV3Schema") if isinstance(spec.get("validation"), Mapping) else None
    if isinstance(top, Mapping):
        out["*"] = top
    for version in spec.get("versions") or ():
        if isinstance(version, Mapping) and isinstance(version.get("schema"), Mapping):
            s = version["schema"].get("openAPIV3Schema")
            if isinstance(s, Mapping):
                out[str(version.get("name"))] = s
    return out


def validate_crd_case(case: Mapping[str, Any]) -> list[dict]:
    """Entry point for the conformance harness: a schema-only case or a whole CRD (with its old version)."""
    if case.get("crd"):
        errors = check_crd(case["crd"], case.get("oldCrd"))
    else:
        env = case.get("env") or {}
        root = env.get("rootPath") or "spec.validation"
        errors = check_schema(case.get("schema") or {}, f"{root}.openAPIV3Schema")
    return [e.to_dict() for e in errors]
