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
from evaluator.cli.kyverno_test.policy_rows import _request_and_values, find_resource
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, Row, no_such_policy, row_for
from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS
from evaluator.k8s.restmapping import builtin_mapper
from evaluator.policies.kyverno import evaluate
from evaluator.policies.kyverno.mutate import has_mutate_rules, mutate
from evaluator.policies.mutating.jsonpatch import json_equal

MANAGED_BY = "app.kubernetes.io/managed-by"


def involves_mutation(folder: TestFolder, result: dict) -> bool:
    """A row this module runs: it names a patched resource, or some policy of the test has a mutate rule (the
    validate rules then see the mutated resource)."""
    if result.get("patchedResources") or result.get("patchedResource"):
        return True
    return any(p.get("kind") in KYVERNO_POLICY_KINDS and has_mutate_rules(p) for p in folder.policies)


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
    docs = [as_loaded(d) for d in read_yaml(folder.base / file, problems) if isinstance(d, dict)]
    if problems and not docs:
        return None, f"error: failed to load PatchedResources resource ({problems[0].get('message', '')})"
    wanted = _identity(actual)
    for doc in docs:
        if _identity(doc) == wanted:
            return doc, ""
    return None, f"resource with name {wanted[3]} not found in manifest"


# map fields the CLI turns from null into {} when it loads a resource (resource.normalizeNilMaps)
NIL_MAPS = frozenset({"annotations", "labels", "matchLabels", "nodeSelector", "data", "stringData"})


def _normalize_nil_maps(value: Any) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            if child is None and key in NIL_MAPS:
                value[key] = {}
            else:
                _normalize_nil_maps(child)
    elif isinstance(value, list):
        for child in value:
            _normalize_nil_maps(child)


def as_loaded(doc: dict) -> dict:
    """resource.YamlToUnstructured: a namespaced object without a namespace gets "default" (a kind the built-in
    REST mapping does not know counts as namespaced), null label-like maps become {}."""
    obj = copy.deepcopy(doc)
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        return obj
    if not meta.get("namespace"):
        info = builtin_mapper().resource_for(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        if info is None or info.namespaced:
            meta["namespace"] = "default"
    _normalize_nil_maps(obj)
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


def _targets(folder: TestFolder) -> list[dict]:
    """The test's `targetResources`, loaded as the CLI loads them (what mutate-existing rules may patch)."""
    docs: list[dict] = []
    for name in folder.test.get("targetResources") or []:
        docs += [as_loaded(d) for d in read_yaml(folder.base / str(name), folder.problems) if isinstance(d, dict)]
    return docs


# a rule response and the resource the row compares for it
Check = tuple[dict, dict]


def _trigger_checks(folder: TestFolder, result: dict, wanted: list[dict], doc: dict, targets: list[dict]) -> list:
    """The named policy's rule responses for one trigger resource: mutate rules with the policy's patched
    resource (a mutate-existing rule with the patched target), validate rules with the resource they saw."""
    policies = [p for p in folder.policies if p.get("kind") in KYVERNO_POLICY_KINDS]
    request, values = _request_and_values(folder, result, as_loaded(doc))
    mutated = mutate(policies + folder.exceptions, request, documents=folder.cluster, values=values, targets=targets)
    after: dict = mutated["patchedObject"] or request.get("object") or {}
    checks: list[Check] = []
    names = {(p.get("metadata") or {}).get("name") for p in wanted}
    for policy_result in mutated["policies"]:
        if policy_result["policy"] in names:
            checks += [(r, r.get("target") or policy_result["patchedObject"]) for r in policy_result["rules"]]
    validate_request = {**request, "object": after} if request.get("object") is not None else request
    outcome = evaluate(wanted + folder.exceptions, validate_request, documents=folder.cluster, values=values)
    return checks + [(r, after) for res in outcome for r in res["rules"]]


def _named_rule(result: dict, checks: list[Check]) -> list[Check]:
    rule = result.get("rule")
    if not rule:
        return checks
    names = {rule, "autogen-" + rule, "autogen-cronjob-" + rule}
    return [(r, obj) for r, obj in checks if r["rule"] in names]


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy_name = str(result.get("policy", ""))
    kind = str(result.get("kind", ""))
    wanted = _policy_named([p for p in folder.policies if p.get("kind") in KYVERNO_POLICY_KINDS], policy_name)
    if not wanted:
        return no_such_policy(folder, result, name)
    targets = _targets(folder)
    if not name:  # no resource named: every trigger's and every target's responses are checked
        checks = [
            c
            for d in folder.resources
            for c in _named_rule(result, _trigger_checks(folder, result, wanted, d, targets))
        ]
        return compared_row(folder, result, name, wanted, checks, skip_missing=True)
    doc = find_resource(folder.resources, name, kind)
    if doc is not None:
        checks = _named_rule(result, _trigger_checks(folder, result, wanted, doc, targets))
        return compared_row(folder, result, name, wanted, checks)
    target = find_resource(targets, name, kind)
    if target is None:
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    wanted_id = _identity(target)
    checks = []
    for trigger in folder.resources:
        for response, obj in _trigger_checks(folder, result, wanted, trigger, targets):
            if response.get("target") is not None and _identity(obj) == wanted_id:
                checks.append((response, obj))
                break  # extractPatchedTargetFromEngineResponse: the first rule that patched this target
    return compared_row(folder, result, name, wanted, checks)


def compared_row(
    folder: TestFolder, result: dict, name: str, wanted: list[dict], checks: list[Check], skip_missing: bool = False
) -> Row:
    """The row: each response's resource compared with the expected patched resource (when the result names
    one), then its status with the expected result. A resource missing from the expected file is skipped, as
    `kyverno test` skips it, unless the result says `failOnMissingResources` (then the row fails)."""
    policy_name = str(result.get("policy", ""))
    rule = result.get("rule")
    expected = str(result.get("result", ""))
    kind = str(result.get("kind", ""))
    file = result.get("patchedResources") or result.get("patchedResource")
    compared: list[dict] = []
    skipped = ""
    for response, obj in checks:
        if file:
            found, reason = expected_resource(folder, str(file), obj)
            if found is None:
                if "not found in manifest" in reason and not result.get("failOnMissingResources"):
                    skipped = reason  # skipped unless the result asks to fail on a missing resource
                    continue
                return Row(policy_name, rule or "", name, kind, expected, "error", FAILED, reason)
            if not compare_resources(obj, found):
                message = "Patched resource didn't match the patched resource in the test result\n" + _diff(found, obj)
                return Row(policy_name, rule or "", name, kind, expected, "resource diff", FAILED, message)
        compared.append(response)
    if not compared:
        if skipped and not skip_missing:
            return row_for(folder, result, name, f"{skipped} (kyverno test skips the result)", EXCLUDED, "excluded")
        reason = (
            "no rule response" if not rule or _has_rule(wanted, rule) else f"no rule named {rule!r} in {policy_name}"
        )
        return row_for(folder, result, name, f"{reason} (kyverno test reports pass (Excluded))", EXCLUDED, "excluded")
    actual = ",".join(sorted({r["result"] for r in compared}))
    status = OK if all(r["result"] == expected for r in compared) else FAILED
    message = "; ".join(r["message"] for r in compared if r["result"] != "pass")
    return Row(policy_name, rule or "", name, kind, expected, actual, status, message)


def _diff(expected: dict, actual: dict) -> str:
    """The two resources (tidied, as compared) as a unified YAML diff: expected, then actual."""
    from evaluator.policies.kyverno.mutate import unified_diff

    return unified_diff(_tidy(_fixup_labels(expected)), _tidy(_fixup_labels(actual)), ("expected", "actual"), sort=True)


def _has_rule(policies: list[dict], rule: str) -> bool:
    names = {rule, rule.removeprefix("autogen-"), rule.removeprefix("autogen-cronjob-")}
    return any(
        r.get("name") in names
        for p in policies
        for r in (p.get("spec") or {}).get("rules") or []
        if isinstance(r, dict)
    )
