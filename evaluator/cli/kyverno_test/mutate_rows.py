"""Rows for Kyverno ClusterPolicy/Policy results that involve mutation: a `patchedResources` row, or any row of
a policy with mutate rules. As `kyverno test` runs them (commands/test, processor/policy_processor.go): the
resource goes through the mutate rules of every policy of the test in order, then the validate rules see the
mutated resource; a mutate rule's row compares its policy's patched resource, a validate rule's the resource
validation saw, with the expected one (`compare_resources`), then the rule's status.
"""

from __future__ import annotations

import copy
from typing import Any

from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.policy_rows import _request_and_values, as_created, find_resource
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, Row, row_for
from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS
from evaluator.policies.kyverno import evaluate
from evaluator.policies.kyverno.mutate import has_mutate_rules, mutate
from evaluator.policies.mutating.jsonpatch import json_equal

MANAGED_BY = "app.kubernetes.io/managed-by"


def involves_mutation(folder: TestFolder, result: dict) -> bool:
    """A row this module runs: it names a patched resource, or its policy has a mutate rule."""
    if result.get("patchedResources") or result.get("patchedResource"):
        return True
    short = str(result.get("policy", "")).split("/")[-1]
    return any(
        p.get("kind") in KYVERNO_POLICY_KINDS and (p.get("metadata") or {}).get("name") == short and has_mutate_rules(p)
        for p in folder.policies
    )


def _tidy(value: Any) -> Any:
    """resource.Tidy: nulls, empty maps and empty lists removed, recursively."""
    if isinstance(value, dict):
        out = {k: t for k, t in ((k, _tidy(v)) for k, v in value.items()) if t is not None}
        return out or None
    if isinstance(value, list):
        items = [t for t in (_tidy(v) for v in value) if t is not None]
        return items or None
    return value


def _fixup_labels(obj: dict) -> dict:
    """resource.FixupGenerateLabels: Kyverno's generate labels dropped, managed-by set."""
    obj = copy.deepcopy(obj)
    meta = obj.setdefault("metadata", {})
    labels = {MANAGED_BY: "kyverno"}
    labels.update(
        {k: v for k, v in (meta.get("labels") or {}).items() if not str(k).startswith("generate.kyverno.io/")}
    )
    meta["labels"] = labels
    return obj


def compare_resources(actual: dict, expected: dict) -> bool:
    """resource.Compare(tidy=true) after FixupGenerateLabels: equal when the merge patch between them is empty."""
    return json_equal(_tidy(_fixup_labels(actual)) or {}, _tidy(_fixup_labels(expected)) or {})


def _identity(obj: dict) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        meta.get("namespace", "") or "",
        meta.get("name", ""),
    )


def expected_resource(folder: TestFolder, file: str, actual: dict) -> tuple[dict | None, str]:
    """GetResourceFromPath: the document of `file` with the actual resource's apiVersion, kind, namespace and
    name; else (None, the reason)."""
    problems: list[dict] = []
    docs = [d for d in read_yaml(folder.base / file, problems) if isinstance(d, dict)]
    if problems and not docs:
        return None, f"error: failed to load PatchedResources resource ({problems[0].get('message', '')})"
    wanted = _identity(actual)
    for doc in docs:
        if _identity(doc) == wanted:
            return doc, ""
    return None, f"resource with name {wanted[3]} not found in manifest"


def _as_submitted(patched: dict, original: dict) -> dict:
    """The patched object with the namespace the resource file gave (the row's request added "default")."""
    if (original.get("metadata") or {}).get("namespace"):
        return patched
    obj = copy.deepcopy(patched)
    meta = obj.get("metadata") or {}
    if meta.get("namespace") == "default":
        meta.pop("namespace")
    return obj


def _policy_named(policies: list[dict], name: str) -> list[dict]:
    ns, _, short = name.rpartition("/")
    return [
        p
        for p in policies
        if p.get("kind") in KYVERNO_POLICY_KINDS
        and (p.get("metadata") or {}).get("name") == short
        and (not ns or (p.get("metadata") or {}).get("namespace", "") == ns)
    ]


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy_name = str(result.get("policy", ""))
    doc = find_resource(folder.resources, name, str(result.get("kind", "")))
    if doc is None:
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    policies = [p for p in folder.policies if p.get("kind") in KYVERNO_POLICY_KINDS]
    wanted = _policy_named(policies, policy_name)
    if not wanted:
        return row_for(
            folder,
            result,
            name,
            f"no policy named {policy_name!r} in the test's policies (kyverno test reports pass (Excluded))",
            EXCLUDED,
            "excluded",
        )
    request, values = _request_and_values(folder, result, as_created(doc))
    mutated = mutate(policies + folder.exceptions, request, documents=folder.cluster, values=values)
    after: dict = mutated["patchedObject"] or request.get("object") or {}
    responses: list[tuple[dict, dict]] = []  # (rule response, the resource it is compared by)
    for policy_result in mutated["policies"]:
        if any(policy_result["policy"] == (p.get("metadata") or {}).get("name") for p in wanted):
            responses += [(r, policy_result["patchedObject"]) for r in policy_result["rules"]]
    validate_request = {**request, "object": after} if request.get("object") is not None else request
    outcome = evaluate(wanted + folder.exceptions, validate_request, documents=folder.cluster, values=values)
    responses += [(r, after) for res in outcome for r in res["rules"]]
    return _compared(folder, result, name, wanted, responses, doc)


def _compared(
    folder: TestFolder, result: dict, name: str, wanted: list[dict], responses: list[tuple[dict, dict]], doc: dict
) -> Row:
    policy_name = str(result.get("policy", ""))
    rule = result.get("rule")
    expected = str(result.get("result", ""))
    if rule:
        names = {rule, "autogen-" + rule, "autogen-cronjob-" + rule}
        responses = [(r, obj) for r, obj in responses if r["rule"] in names]
    kind = str(result.get("kind", ""))
    if not responses:
        reason = (
            "no rule response" if not rule or _has_rule(wanted, rule) else f"no rule named {rule!r} in {policy_name}"
        )
        return row_for(folder, result, name, f"{reason} (kyverno test reports pass (Excluded))", EXCLUDED, "excluded")
    file = result.get("patchedResources") or result.get("patchedResource")
    problems: list[str] = []
    for response, obj in responses:
        if file:
            actual = _as_submitted(obj, doc)
            found, reason = expected_resource(folder, str(file), actual)
            if found is None:
                if "not found in manifest" in reason:
                    return row_for(
                        folder, result, name, f"{reason} (kyverno test skips the result)", EXCLUDED, "excluded"
                    )
                return Row(policy_name, rule or "", name, kind, expected, "error", FAILED, reason)
            if not compare_resources(actual, found):
                return Row(
                    policy_name,
                    rule or "",
                    name,
                    kind,
                    expected,
                    response["result"],
                    FAILED,
                    "Patched resource didn't match the patched resource in the test result",
                )
        if response["result"] != expected:
            problems.append(response["message"])
    actual_status = ",".join(sorted({r["result"] for r, _ in responses}))
    status = FAILED if problems or any(r["result"] != expected for r, _ in responses) else OK
    message = "; ".join(r["message"] for r, _ in responses if r["result"] != "pass")
    return Row(policy_name, rule or "", name, kind, expected, actual_status, status, message)


def _has_rule(policies: list[dict], rule: str) -> bool:
    names = {rule, rule.removeprefix("autogen-"), rule.removeprefix("autogen-cronjob-")}
    return any(
        r.get("name") in names
        for p in policies
        for r in (p.get("spec") or {}).get("rules") or []
        if isinstance(r, dict)
    )
