"""A set of MutatingPolicies compiled once with their CEL exceptions and autogen variants (the mpol engine's
static provider), run in document order on one input: each policy (then each of its variants) sees the object
as the previous ones left it, as engine.Handle threads the patched object through.

Each policy document gives one result: `{"kind", "apiVersion", "policy", "namespace", "failurePolicy",
"reinvocationPolicy", "rules": [...], "mutations": [...], "patchedObject", "patch", "autogen": [...]}`;
`rules` holds one entry per evaluation that selected the input (`autogen` names the variant, "" for the policy
itself), `mutations` what each mutation did (patch, object after it, error), `patch` the JSON Patch from the
object the policy received to the one it returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.policies.kyverno_vpol.spec import is_cel_exception
from evaluator.policies.mutating.diff import json_patch_between
from evaluator.k8s.object_schema import ObjectSchema

from . import autogen, spec as sp
from .compiler import CompiledMutatingPolicy, compile_policy, mine
from .engine import Inputs, PolicyResponse, evaluate


@dataclass
class PolicyEntry(sp.NamedSpec):
    document: Mapping[str, Any]
    compiled: list[CompiledMutatingPolicy] = field(default_factory=list)  # the policy first, then its variants
    generated: list[dict] = field(default_factory=list)


def compile_all(documents: Iterable[Any]) -> list[PolicyEntry]:
    docs = [d for d in documents if isinstance(d, Mapping)]
    exceptions = [d for d in docs if is_cel_exception(d)]
    entries = []
    for doc in docs:
        if not sp.is_mutating_policy(doc):
            continue
        issue = sp.version_issue(doc)
        if issue is not None and issue[0] == "error":
            continue  # a version the CRD does not serve: never created (a located error of the document)
        entry = PolicyEntry(doc)
        own = mine(doc, exceptions)
        entry.compiled.append(compile_policy(doc, entry.spec, own))
        for variant in autogen.variants(entry.spec):
            entry.generated.append(variant)
            entry.compiled.append(compile_policy(doc, variant["spec"], own, variant=variant["config"]))
        entries.append(entry)
    return entries


def base_result(entry: PolicyEntry) -> dict[str, Any]:
    return {
        "kind": entry.document.get("kind"),
        "apiVersion": entry.document.get("apiVersion"),
        "policy": entry.name,
        "namespace": sp.namespace_of(entry.document),
        "failurePolicy": sp.failure_policy(entry.spec),
        "reinvocationPolicy": sp.reinvocation_policy(entry.spec),
        "rules": [],
        "mutations": [],
        "patchedObject": None,
        "patch": [],
        "notApplicable": [],
        "round": 0,
        "autogen": [
            {"config": g["config"], "targets": g["targets"], "matchConstraints": g["spec"].get("matchConstraints")}
            for g in entry.generated
        ],
    }


def runs_in_admission(entry: PolicyEntry, inputs: Inputs) -> bool:
    """evaluation.admission.enabled, and a NamespacedMutatingPolicy only in its own namespace."""
    if not sp.admission_enabled(entry.spec):
        return False
    if entry.document.get("kind") == "NamespacedMutatingPolicy":
        return ((inputs.match_request or {}).get("namespace") or "") == sp.namespace_of(entry.document)
    return True


def _safe(
    compiled: CompiledMutatingPolicy, inputs: Inputs, obj: Any, objschema: ObjectSchema, **kw: Any
) -> PolicyResponse:
    try:
        return evaluate(compiled, inputs, obj, objschema, **kw)
    except Exception as err:  # a defect must still come out as data about this policy
        response = PolicyResponse()
        response.rules.append({"rule": "evaluation", "result": "error", "message": f"internal error: {err}"})
        return response


def run_entry(
    entry: PolicyEntry, inputs: Inputs, obj: Any, objschema: ObjectSchema, **kw: Any
) -> tuple[dict[str, Any], Any]:
    """The policy and its variants on `obj`: its result and the object after it."""
    result = base_result(entry)
    before = obj
    for compiled in entry.compiled:
        response = _safe(compiled, inputs, obj, objschema, **kw)
        if not response.rules:
            result["notApplicable"].append(compiled.variant and f"autogen-{compiled.variant}" or entry.name)
        result["rules"] += [dict(r, autogen=compiled.variant) for r in response.rules]
        result["mutations"] += [dict(m, autogen=compiled.variant) for m in response.mutations]
        if response.object is not None:
            obj = response.object
            result["patchedObject"] = obj
        if compiled.error is not None:
            break
    if result["patchedObject"] is not None:
        result["patch"] = json_patch_between(before, obj)
    if result["mutations"]:
        result["object"] = before  # what the policy received: the diff of its first mutation starts there
    return result, obj


def run_all(
    entries: list[PolicyEntry], inputs: Inputs, objschema: ObjectSchema, *, admission: bool = False
) -> tuple[list[dict[str, Any]], Any]:
    """Every policy in order on the input's object: (results, final object)."""
    obj = inputs.object
    results = []
    for entry in entries:
        if admission and not runs_in_admission(entry, inputs):
            continue
        result, obj = run_entry(entry, replace(inputs, object=obj), obj, objschema)
        results.append(result)
    return results, obj
