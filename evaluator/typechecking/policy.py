"""Type checking of a ValidatingAdmissionPolicy: the server's `status.typeChecking`, and our diagnostics.

`status` is exactly what kube-controller-manager's status controller writes (typechecking.go `Check`):
only `spec.validations[*].expression` and `.messageExpression`, at most one warning each, every failing
kind in one text (`apps/v1, Kind=Deployment: ERROR: <input>:1:7: ...` + source and caret, kinds joined by
a newline, each part ending in one). `diagnostics` are ours and labelled so: every expression of the
policy (matchConditions, variables, auditAnnotations too), result types, the environment the plugin
binds at admission time, one entry per issue with its line and column inside the expression.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.cel.versions import active_version, parse_version, simulating
from evaluator.cel.types import Type
from evaluator.k8s import schemas
from evaluator.typechecking.checker import CheckResult, Issue
from evaluator.typechecking.environment import (
    MESSAGE,
    PLUGIN,
    PLUGIN_MESSAGE,
    RUNTIME,
    SERVER,
    Declarations,
    KindType,
    TypedEnvironment,
    compile_variables,
    kind_type,
    policy_variables,
)
from evaluator.k8s.restmapping import GVK
from evaluator.typechecking.resolution import gvk_text, mapper_for, params_gvk, types_to_check

PLAYGROUND = "playground"  # a diagnostic the API server does not report
SERVER_ORIGIN = "server"  # also in status.typeChecking

# What each expression must evaluate to when the plugin compiles it (validating/interface.go, message.go).
_RESULT_TYPES = {
    "validation": ("bool",),
    "matchCondition": ("bool",),
    "messageExpression": ("string",),
    "auditAnnotation": ("string", "null_type"),
}


def typecheck(
    policy: Mapping[str, Any],
    documents: Sequence[Any] = (),
    *,
    schemas_by_kind: Mapping[str, Any] | None = None,
    mapper: Any = None,
    kubernetes_version: str | None = None,
) -> dict:
    """Type-check a ValidatingAdmissionPolicy against the kinds it matches. Never raises on bad input.

    `documents` may hold the project's other documents: its CustomResourceDefinitions make custom kinds
    (matched or paramKind) resolvable and typed. The result:
      status        {"typeChecking": {"expressionWarnings": [{"fieldRef", "warning"}]}} as the server
                    writes it; `expressionWarnings` is left out when there is none (Go's omitempty)
      typesChecked  [{"group", "version", "kind"}]: the kinds whose schema resolved, in the server's order
      typesMatched  the same before schema resolution (typechecking.go typesToCheck)
      diagnostics   ours: [{"fieldRef", "severity" (warning|info), "code", "message", "line", "column"
                    (1-based, in the expression; None for notes), "origin" ("server": also in status;
                    "playground": only ours), "types" (the kinds it applies to)}]: notes (severity info)
                    first, then issues in document order
      schemaSource  where the built-in schemas came from (e.g. "kubernetes-validate v1.37.0-local")

    For tests and what-if tools: `schemas_by_kind` ("group/version, Kind=K" -> raw OpenAPI schema, or
    None for "not found") replaces schema resolution for those kinds; `mapper` replaces the REST mapping.
    `kubernetes_version` checks with that release's CEL environment (evaluator.cel.versions).
    """
    if kubernetes_version is not None and parse_version(kubernetes_version) != active_version():
        with simulating(kubernetes_version):
            return typecheck(policy, documents, schemas_by_kind=schemas_by_kind, mapper=mapper)
    policy = policy if isinstance(policy, Mapping) else {}
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    crds = tuple(d for d in (documents or ()) if isinstance(d, Mapping) and schemas.is_crd(d))
    overrides = _schema_overrides(schemas_by_kind)
    matched = types_to_check(policy, mapper or mapper_for(crds))
    kinds = [k for k in (kind_type(g, crds, overrides) for g in matched) if k is not None]
    param_gvk = params_gvk(policy)
    has_params = not param_gvk.empty
    param_type = kind_type(param_gvk, crds, overrides) if has_params else None
    variables = policy_variables(spec)

    server_envs = [(k, compile_variables(Declarations(k, has_params, param_type, SERVER), variables)) for k in kinds]
    warnings, server_issues = _server_warnings(spec, server_envs)
    diagnostics = _notes(policy, matched, kinds, param_gvk, param_type)
    diagnostics += _diagnostics(spec, kinds, has_params, param_type, variables, server_issues)
    diagnostics = _preserved_fields_note(diagnostics, param_gvk, param_type, crds) + diagnostics
    return {
        "status": {"typeChecking": {"expressionWarnings": warnings} if warnings else {}},
        "typesChecked": [k.gvk.to_dict() for k in kinds],
        "typesMatched": [g.to_dict() for g in matched],
        "diagnostics": diagnostics,
        "schemaSource": schemas.builtin_source(),
    }


def _schema_overrides(schemas_by_kind: Mapping[str, Any] | None) -> dict[GVK, Any]:
    return {_parse_gvk(k): v for k, v in (schemas_by_kind or {}).items() if _parse_gvk(k) is not None}


def _parse_gvk(text: Any) -> GVK | None:
    """`group/version, Kind=Kind` (GroupVersionKind.String()) back into a GVK."""
    if not isinstance(text, str) or ", Kind=" not in text:
        return None
    group_version, kind = text.split(", Kind=", 1)
    group, _, version = group_version.rpartition("/")
    return GVK(group, version, kind)


# -- the server's warnings ------------------------------------------------------------------------------
def _validations(spec: Mapping[str, Any]) -> list[tuple[int, Mapping]]:
    items = spec.get("validations")
    return [(i, v) for i, v in enumerate(items) if isinstance(v, Mapping)] if isinstance(items, list) else []


def _server_warnings(spec: Mapping[str, Any], envs: list[tuple[KindType, TypedEnvironment]]):
    warnings: list[dict] = []
    issues: set[tuple] = set()
    for i, validation in _validations(spec):
        for key in ("expression", "messageExpression"):
            expression = validation.get(key)
            if not isinstance(expression, str) or (key == "messageExpression" and expression == ""):
                continue
            field_ref = f"spec.validations[{i}].{key}"
            parts = []
            for kind, env in envs:
                result = env.check(expression)
                if result.issues:
                    parts.append(f"{gvk_text(kind.gvk)}: {result.text()}\n")
                    issues.update((field_ref, kind.gvk, x) for x in result.issues)
            if parts:
                warnings.append({"fieldRef": field_ref, "warning": "\n".join(parts)})
    return warnings, issues


# -- our diagnostics ------------------------------------------------------------------------------------
def _expressions(spec: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(fieldRef, role, expression) for every CEL expression of the policy, in document order."""
    out: list[tuple[str, str, str]] = []

    def add(items: Any, key: str, prefix: str, role: str) -> None:
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, Mapping) and isinstance(item.get(key), str) and item.get(key):
                out.append((f"spec.{prefix}[{i}].{key}", role, item[key]))

    add(spec.get("matchConditions"), "expression", "matchConditions", "matchCondition")
    add(spec.get("variables"), "expression", "variables", "variable")
    for i, v in _validations(spec):
        for key, role in (("expression", "validation"), ("messageExpression", "messageExpression")):
            if isinstance(v.get(key), str) and v.get(key):
                out.append((f"spec.validations[{i}].{key}", role, v[key]))
    add(spec.get("auditAnnotations"), "valueExpression", "auditAnnotations", "auditAnnotation")
    return out


def _result_type_problems(spec, has_params, variables) -> dict[str, str]:
    """fieldRef -> the plugin's "must evaluate to ..." error, from its own (untyped-object) compile."""
    plugin = compile_variables(Declarations(None, has_params, None, PLUGIN), variables)
    plugin_message = TypedEnvironment(Declarations(None, has_params, None, PLUGIN_MESSAGE), plugin.variable_types, [])
    problems = {}
    for field_ref, role, expression in _expressions(spec):
        if role in _RESULT_TYPES:
            result = (plugin_message if role == "messageExpression" else plugin).check(expression)
            problem = _result_type_problem(role, result)
            if problem:
                problems[field_ref] = problem
    return problems


def _diagnostics(spec, kinds, has_params, param_type, variables, server_issues) -> list[dict]:
    merged: dict[tuple, dict] = {}
    result_problems = _result_type_problems(spec, has_params, variables)
    for kind in kinds or [None]:
        gvk = kind.gvk if kind else None
        for field_ref, entry, issue in _kind_findings(spec, kind, has_params, param_type, variables, result_problems):
            entry["origin"] = SERVER_ORIGIN if (field_ref, gvk, issue) in server_issues else PLAYGROUND
            key = (field_ref, entry["message"], entry["line"], entry["column"])
            target = merged.setdefault(key, {**entry, "types": []})
            if gvk is not None:
                target["types"].append(gvk_text(gvk))
    _merge_server_issues(merged, server_issues)
    order = {ref: n for n, (ref, _, _) in enumerate(_expressions(spec))}
    return sorted(merged.values(), key=lambda d: (order.get(d["fieldRef"], 1 << 30), d["line"] or 0, d["column"] or 0))


def _kind_findings(spec, kind, has_params, param_type, variables, result_problems) -> list[tuple[str, dict, Any]]:
    """(fieldRef, entry, issue) for every issue of the policy's expressions checked against one kind (or
    none), with the plugin's result-type problems (issue None)."""
    runtime = compile_variables(Declarations(kind, has_params, param_type, RUNTIME), variables)
    message_env = TypedEnvironment(Declarations(kind, has_params, param_type, MESSAGE), runtime.variable_types, [])
    variable_results = iter(runtime.variable_results)
    found: list[tuple[str, dict, Any]] = []
    for field_ref, role, expression in _expressions(spec):
        if role == "variable":
            result = next(variable_results, None) or runtime.check(expression)
        else:
            result = (message_env if role == "messageExpression" else runtime).check(expression)
        found += [(field_ref, _issue_entry(field_ref, x), x) for x in result.issues]
        problem = result_problems.get(field_ref)
        if problem:
            entry = {"fieldRef": field_ref, "severity": "warning", "code": "result-type", "message": problem}
            found.append((field_ref, {**entry, "line": 1, "column": 1}, None))
    return found


def _merge_server_issues(merged: dict[tuple, dict], server_issues: set[tuple]) -> None:
    """Server issues that the runtime environment does not have (e.g. `authorizer.requestResource`)."""
    for field_ref, gvk, issue in sorted(server_issues, key=lambda t: (t[0], t[1], t[2].line, t[2].column)):
        located = issue.line > 0
        key = (field_ref, issue.message, issue.line if located else None, issue.column if located else None)
        if key not in merged:
            merged[key] = {**_issue_entry(field_ref, issue), "origin": SERVER_ORIGIN, "types": []}
        if gvk_text(gvk) not in merged[key]["types"]:
            merged[key]["types"].append(gvk_text(gvk))
            merged[key]["origin"] = SERVER_ORIGIN


def _issue_entry(field_ref: str, issue: Issue) -> dict:
    located = issue.line > 0
    return {
        "fieldRef": field_ref,
        "severity": "warning",
        "code": classify(issue.message),
        "message": issue.message,
        "line": issue.line if located else None,
        "column": issue.column if located else None,
    }


def classify(message: str) -> str:
    """The error class of a checker message (for the editor and the tests)."""
    for prefix, code in (
        ("undefined field", "undefined-field"),
        ("found no matching overload", "no-matching-overload"),
        ("undeclared reference", "undeclared-reference"),
        ("Syntax error", "syntax"),
        ("expected type", "mixed-literal"),
        ("expression recursion", "syntax"),
    ):
        if message.startswith(prefix):
            return code
    if "does not support field selection" in message:
        return "no-field-selection"
    return "invalid"


def _result_type_problem(role: str, result: CheckResult) -> str | None:
    """compile.go: the output type must be exactly one of the expected ones (`dyn` is not `bool`)."""
    expected = _RESULT_TYPES.get(role)
    t: Type | None = result.output_type
    if not expected or not result.ok or t is None or str(t) in expected:
        return None
    if len(expected) == 1:
        return f"must evaluate to {expected[0]} but got {t}"
    return f"must evaluate to one of [{' '.join(expected)}] but got {t}"


def _notes(policy, matched, kinds, param_gvk, param_type) -> list[dict]:
    """Why something is not typed: informational, ours."""
    notes = []
    checked = {k.gvk for k in kinds}
    for gvk in matched:
        if gvk not in checked:
            notes.append(
                _note(
                    "spec.matchConstraints",
                    "schema-not-found",
                    f"{gvk_text(gvk)}: no schema is known for this kind, so it is not type checked "
                    "(the API server skips it too; add its CustomResourceDefinition to the project)",
                )
            )
    if not kinds:
        notes.append(
            _note(
                "spec.matchConstraints",
                "types-not-checked",
                "no matched kind could be typed (wildcards, sub-resources and unknown resources are "
                "not checked): the API server reports no warnings; our diagnostics treat `object` as dyn",
            )
        )
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    if isinstance(spec.get("paramKind"), Mapping):
        if param_gvk.empty:
            notes.append(
                _note(
                    "spec.paramKind",
                    "params-undeclared",
                    "paramKind.apiVersion does not parse: `params` is not declared when type checking",
                )
            )
        elif param_type is None or param_type.type is None:
            notes.append(
                _note(
                    "spec.paramKind",
                    "params-untyped",
                    f"{gvk_text(param_gvk)}: no schema is known for the paramKind, so `params` is dyn",
                )
            )
    return notes


def _preserved_fields_note(diagnostics: list[dict], param_gvk: GVK, param_type, crds) -> list[dict]:
    """Why `params.x` is an undefined field although the param object has x: the paramKind's schema keeps
    unknown fields (x-kubernetes-preserve-unknown-fields), which SchemaDeclType ignores, so only declared
    properties are typed. The server warns the same; the note says how to fix it."""
    if param_type is None or param_type.origin != "crd" or param_type.type is None:
        return []
    if not any(d["code"] == "undefined-field" and d["severity"] == "warning" for d in diagnostics):
        return []
    resolved = schemas.resolve(param_gvk.group, param_gvk.version, param_gvk.kind, crds)
    root = resolved.root if resolved is not None else None
    if not isinstance(root, Mapping) or root.get("x-kubernetes-preserve-unknown-fields") is not True:
        return []
    return [
        _note(
            "spec.paramKind",
            "params-preserved-fields",
            f"{gvk_text(param_gvk)}: its schema preserves unknown fields, but CEL types only the declared "
            "properties (x-kubernetes-preserve-unknown-fields is ignored), so the API server warns about any "
            "other `params` field too: declare the fields the policy reads in the CustomResourceDefinition",
        )
    ]


def _note(field_ref: str, code: str, message: str) -> dict:
    return {
        "fieldRef": field_ref,
        "severity": "info",
        "code": code,
        "message": message,
        "line": None,
        "column": None,
        "origin": PLAYGROUND,
        "types": [],
    }
