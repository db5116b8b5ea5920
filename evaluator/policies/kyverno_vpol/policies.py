"""A set of ValidatingPolicies compiled once with their exceptions and autogen variants (the vpol engine's
provider), evaluated per input into results shaped like the Kyverno ClusterPolicy results.

Each policy document gives one result: `{"kind", "policy", "namespace", "validationActions", "mode",
"rules": [...], "notApplicable": [...], "autogen": [...]}`. `rules` holds one entry per evaluation that
selected the input (the policy itself, or one of its autogen variants): `rule` is the name Kyverno's
PolicyReport gives it ("" for a validation result, "exception", "evaluation", "match"), `autogen` which
variant ran ("" for the policy itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import autogen, spec as sp, webhook_conditions
from .compiler import CompiledPolicy, compile_policy, exceptions_for
from .engine import Inputs, RuleResponse, evaluate, match_constraints

UNSUPPORTED_MODES = {"HTTP", "Envoy"}
JSON_NOTE = (
    "evaluation.mode JSON: Kyverno's admission webhooks do not run this policy; it is evaluated on the "
    "request's object as `kyverno apply` evaluates it on a resource, and does not change the verdict"
)


@dataclass
class PolicyEntry(sp.NamedSpec):
    document: Mapping[str, Any]
    compiled: list[CompiledPolicy] = field(default_factory=list)  # the policy first, then its variants
    generated: list[dict] = field(default_factory=list)

    @property
    def mode(self) -> str:
        return sp.evaluation_mode(self.spec)


def compile_all(documents: Iterable[Any]) -> list[PolicyEntry]:
    docs = [d for d in documents if isinstance(d, Mapping)]
    exceptions = [d for d in docs if sp.is_cel_exception(d)]
    entries = []
    for doc in docs:
        if not sp.is_validating_policy(doc):
            continue
        mine = exceptions_for(doc, exceptions)
        entry = PolicyEntry(doc)
        issue = sp.version_issue(doc)
        if issue is not None and issue[0] == "error":
            entry.compiled.append(CompiledPolicy(document=doc, spec=entry.spec, error=issue[1]))
            entries.append(entry)
            continue
        entry.compiled.append(compile_policy(doc, entry.spec, mine))
        for variant in autogen.variants(entry.spec):
            entry.generated.append(variant)
            entry.compiled.append(compile_policy(doc, variant["spec"], mine, variant=variant["config"]))
        entries.append(entry)
    return entries


def action_of(actions: list[str]) -> str:
    return "Enforce" if "Deny" in actions else "Audit"


def _rule(resp: RuleResponse, variant: str, actions: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "rule": resp.rule,
        "result": resp.status,
        "message": resp.message,
        "action": action_of(actions),
        "autogen": variant,
    }
    if resp.properties:
        entry["properties"] = dict(resp.properties)
    if resp.exceptions:
        entry["exceptions"] = list(resp.exceptions)
    return entry


def base_result(entry: PolicyEntry) -> dict[str, Any]:
    return {
        "kind": entry.document.get("kind"),
        "apiVersion": entry.document.get("apiVersion"),
        "policy": entry.name,
        "namespace": sp.namespace_of(entry.document),
        "validationActions": sp.validation_actions(entry.spec),
        "mode": entry.mode,
        "failurePolicy": sp.failure_policy(entry.spec),
        "rules": [],
        "notApplicable": [],
        "autogen": [
            {"config": g["config"], "targets": g["targets"], "matchConstraints": g["spec"].get("matchConstraints")}
            for g in entry.generated
        ],
    }


def _unsupported(entry: PolicyEntry) -> dict[str, Any]:
    result = base_result(entry)
    result["note"] = (
        f"evaluation.mode {entry.mode}: this policy validates {entry.mode} CheckRequests for "
        "kyverno-authz, not Kubernetes admission requests; Kyverno's admission webhooks do not run it "
        "(run it on a payload with kyverno-test's httpPayloads / envoyPayloads)"
    )
    return result


def _runs_in_admission(entry: PolicyEntry, inputs: Inputs) -> bool:
    """evaluation.admission.enabled, and a NamespacedValidatingPolicy only in its own namespace."""
    if not sp.admission_enabled(entry.spec):
        return False
    if entry.document.get("kind") == "NamespacedValidatingPolicy":
        return ((inputs.match_request or {}).get("namespace") or "") == sp.namespace_of(entry.document)
    return True


def _responses(
    compiled: CompiledPolicy, inputs: Inputs, json_mode: bool, trace: dict[str, list] | None = None
) -> list[RuleResponse] | None:
    try:
        return evaluate(compiled, _as_json(inputs) if json_mode else inputs, check_match=not json_mode, trace=trace)
    except Exception as err:  # a defect must still come out as data about this policy
        return [RuleResponse("", "error", f"internal error: {type(err).__name__}: {err}")]


def _evaluate_entry(entry: PolicyEntry, inputs: Inputs, admission: bool, traced: bool = True) -> dict[str, Any]:
    """The policy and its variants (the policy alone in JSON mode) on one input."""
    result = base_result(entry)
    json_mode = entry.mode == "JSON"
    if json_mode and admission:  # no webhook runs them: shown as `kyverno apply` runs them on a resource
        result["note"] = JSON_NOTE
    elif admission and _refused(entry, inputs, result):
        return result
    for compiled in entry.compiled:
        if json_mode and compiled.variant:
            continue
        if compiled.error is not None:  # Kyverno's provider fails the whole policy: report it once
            result["rules"].append(
                _rule(RuleResponse("", "error", compiled.error), compiled.variant, result["validationActions"])
            )
            break
        trace: dict[str, list] | None = {} if traced else None
        responses = _responses(compiled, inputs, json_mode, trace)
        label = compiled.variant and f"autogen-{compiled.variant}"
        if responses is None:
            result["notApplicable"].append(label or entry.name)
            continue
        if trace and any(trace.values()):  # the expressions of the policy (or variant) that ran, as the VAP trace
            result.setdefault("trace", trace)
        result["rules"].extend(_rule(r, compiled.variant, result["validationActions"]) for r in responses)
    return result


def _refused(entry: PolicyEntry, inputs: Inputs, result: dict[str, Any]) -> bool:
    """The API server refused the request on the policy's webhook matchConditions (webhook_conditions)."""
    policy = entry.compiled[0]
    if policy.error is not None or inputs.request is None or not match_constraints(policy, inputs)[0]:
        return False
    text = webhook_conditions.refusal(entry.spec, inputs.object, inputs.old_object, inputs.request)
    if text is None:
        return False
    result["refused"] = text
    result["note"] = (
        "the API server evaluated this policy's webhook matchConditions first: an error with failurePolicy "
        "Fail refuses the request before Kyverno runs the policy"
    )
    return True


def evaluate_request(
    entries: list[PolicyEntry], inputs: Inputs, *, admission: bool = False, traced: bool = True
) -> list[dict[str, Any]]:
    """Every policy on one Kubernetes input (JSON-mode policies see the resource as their `object`)."""
    results = []
    for entry in entries:
        if entry.mode in UNSUPPORTED_MODES:
            results.append(_unsupported(entry))
        elif not admission or _runs_in_admission(entry, inputs):
            results.append(_evaluate_entry(entry, inputs, admission, traced))
    return results


def _as_json(inputs: Inputs) -> Inputs:
    obj = inputs.object if inputs.object is not None else inputs.old_object
    return Inputs(object=obj, context=inputs.context, payload=True)


def evaluate_payload(entries: list[PolicyEntry], inputs: Inputs, payload_type: str = "json") -> list[dict[str, Any]]:
    """Policies on a payload: a JSON payload reaches JSON-mode policies, an HTTP / Envoy CheckRequest the
    policies of that mode (Kubernetes-mode policies are not run on payloads)."""
    from .engine import evaluate_authz

    results = []
    for entry in entries:
        if payload_type == "json" and entry.mode == "JSON":
            responses = evaluate(entry.compiled[0], inputs, check_match=False) or []
        elif payload_type != "json" and entry.mode.lower() == payload_type:
            responses = [evaluate_authz(entry.compiled[0], inputs.object)]
        else:
            continue
        result = base_result(entry)
        result["rules"].extend(_rule(r, "", result["validationActions"]) for r in responses)
        results.append(result)
    return results
