"""Kyverno validate rules in pure Python: `evaluate(policies, request, documents=..., values=...)`.

Each Kyverno policy gives `{"kind", "policy", "namespace", "rules": [{"rule", "result", "message", "action"}],
"notApplicable": [rule names]}`; `admission_decision(results, request)` words the webhook's verdict,
`policy_report(policies, results, request)` builds a PolicyReport, `generate_vap(policy)` the
ValidatingAdmissionPolicy + binding Kyverno generates from a `validate.cel` rule. Mutate rules are in
`mutate/` (`evaluator.policies.kyverno.mutate.mutate(policies, request, ...)`). Kyverno CLI test folders run
with `python -m evaluator kyverno-test DIR` (`evaluator.cli.kyverno_test`).
"""

from __future__ import annotations

from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS, POLICY_EXCEPTION

from .admission import admission_decision
from .cli_values import merge_values, values_from_documents
from .engine import evaluate_policy, generate_events
from .policy_report import policy_report
from .vap_generation import generate as generate_vap

__all__ = ["evaluate", "admission_decision", "policy_report", "generate_vap"]


def _with_request_namespace(request: dict) -> dict:
    """The API server sets an object's empty namespace from the request before admission runs, and a
    request always carries the namespace of a namespaced object (`request.namespace`)."""
    if not isinstance(request, dict):
        return request
    ns = request.get("namespace")
    if "namespace" not in request:
        obj = request.get("object") or request.get("oldObject") or {}
        found = (obj.get("metadata") or {}).get("namespace") if isinstance(obj, dict) else None
        if found:
            return {**request, "namespace": found}
    if not ns:
        return request
    out = dict(request)
    for key in ("object", "oldObject"):
        obj = out.get(key)
        if isinstance(obj, dict) and not (obj.get("metadata") or {}).get("namespace"):
            out[key] = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": ns}}
    return out


def admission_inputs(
    policies: list[dict], request: dict, documents, values: dict | None
) -> tuple[dict, dict, list, list[dict]]:
    """What every Kyverno stage starts from: the request as the API server hands it over, the CLI's Values and
    UserInfo documents applied under explicit `values`, the documents, and the PolicyExceptions among them."""
    docs = list(documents or ())
    request = _with_request_namespace(request)
    doc_values, user = values_from_documents(docs, request)
    values = merge_values(doc_values, values)
    if user and not request.get("userInfo"):
        request = {**request, "userInfo": user["userInfo"]}
        values = merge_values(user["_roles"], values)
    exceptions = [d for d in list(policies) + docs if isinstance(d, dict) and d.get("kind") == POLICY_EXCEPTION]
    return request, values, docs, exceptions


def evaluate(
    policies: list[dict], request: dict, *, documents: list[dict] = (), values: dict | None = None
) -> list[dict]:
    """Evaluate every Kyverno ClusterPolicy/Policy in `policies` on an AdmissionRequest dict.

    values: {"variables": {dotted.path: value}, "ruleValues": {policy: {rule: {key: value}}},
    "foreachValues": {...}, "namespaceLabels": {...}, "roles": [...], "clusterRoles": [...],
    "namespaces": a `Namespaces` model (the labels of the resource's namespace when `namespaceLabels` gives none),
    "globalContext": {name: data}, "apiCallResponses": [...], "apiCallsFromDocuments": bool (answer apiCall
    GETs from `documents`, like `kyverno test` with clusterResources)}. PolicyException documents may be among
    `policies` or `documents`; so may the CLI's `Values` and `UserInfo` documents (cli.kyverno.io), which
    apply as `kyverno test` applies them (explicit `values` win).

    A policy with generate rules also gets `"generate"`: per rule its result and the objects it would create,
    update or delete (`generate.run_rules`); `values["generateSources"]` limits what the rules may read to the
    trigger and those objects (as `kyverno test` does). A request on a policy with generate rules, or one that
    changes a synchronized downstream or a clone source, adds an entry with `"event"`.
    """
    request, values, docs, exceptions = admission_inputs(policies, request, documents, values)
    results = []
    for policy in policies:
        if not isinstance(policy, dict) or policy.get("kind") not in KYVERNO_POLICY_KINDS:
            continue
        try:
            results.append(evaluate_policy(policy, request, docs, values, exceptions))
        except Exception as err:  # malformed policy structure: report it, never raise
            results.append(
                {
                    "kind": policy.get("kind"),
                    "policy": str((policy.get("metadata") or {}).get("name", "")),
                    "namespace": "",
                    "notApplicable": [],
                    "rules": [
                        {
                            "rule": "",
                            "result": "error",
                            "action": "Audit",
                            "message": f"invalid policy: {type(err).__name__}: {err}",
                        }
                    ],
                }
            )
    kyverno_policies = [p for p in policies if isinstance(p, dict) and p.get("kind") in KYVERNO_POLICY_KINDS]
    try:
        results += generate_events(kyverno_policies, request, docs, values, exceptions)
    except Exception as err:  # a malformed policy in the request: report it, never raise
        message = f"invalid policy: {type(err).__name__}: {err}"
        rule = {"rule": "", "result": "error", "message": message, "objects": []}
        results.append(
            {"kind": "", "policy": "", "namespace": "", "rules": [], "notApplicable": [], "generate": [rule]}
        )
    return results


from . import webhook  # noqa: E402,F401  (registers the kind with the admission core; needs `evaluate` above)
from . import provides  # noqa: E402,F401  (offers its kind selector and report envelope to batch and CLI)
from .mutate import admission as _mutate_admission  # noqa: E402,F401  (registers the mutate rules' kind)
