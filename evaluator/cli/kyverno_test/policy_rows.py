"""Rows for Kyverno ClusterPolicy/Policy validate rules, as `kyverno test` builds them: values
(globalValues, per-policy rule/resource values, namespaceSelector), userinfo, API-call and global-context
mocks, exceptions; results compared per (policy, rule, resource)."""

from __future__ import annotations

import copy

from evaluator.cli.kyverno_test import generate_rows
from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, Row, no_such_policy, reported, row_for
from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS
from evaluator.policies.kyverno import evaluate
from evaluator.policies.kyverno.cli_values import values_from_spec


def find_resource(resources: list[dict], name: str, kind: str) -> dict | None:
    """The resource a result names (`name` or `namespace/name`, of `kind` when given)."""
    ns, _, short = name.rpartition("/")
    if not short:
        return None
    for doc in resources:
        meta = doc.get("metadata") or {}
        d_ns, d_name = meta.get("namespace", "") or "", meta.get("name", "") or ""
        if d_name == short and (not kind or doc.get("kind") == kind) and (not ns or ns == (d_ns or "default")):
            return doc
    return None


def as_created(doc: dict) -> dict:
    """The resource as the CLI submits it: a copy, namespace "default" when a namespaced object has none."""
    obj = copy.deepcopy(doc)
    meta = obj.setdefault("metadata", {})
    if not meta.get("namespace") and obj.get("kind") != "Namespace":
        meta["namespace"] = "default"
    return obj


def _global_value(entry: dict, folder: TestFolder) -> object:
    if "resources" in entry:
        return entry["resources"]
    if entry.get("resourceFiles"):
        docs: list = []
        for name in entry["resourceFiles"]:
            docs += read_yaml(folder.base / str(name), folder.problems)
        return docs
    data = entry.get("data")
    if entry.get("projections"):
        from evaluator.policies.kyverno.jmes import search

        return {p["name"]: search(p["path"], data) for p in entry["projections"]}
    return data


def run_row(folder: TestFolder, result: dict, name: str) -> Row:
    policy_name = str(result.get("policy", ""))
    doc = find_resource(folder.resources, name, str(result.get("kind", "")))
    if doc is None:
        return row_for(folder, result, name, f"resource {name} is not in the test's resources", ERROR, "missing")
    short = policy_name.split("/")[-1]
    wanted = [
        p
        for p in folder.policies
        if p.get("kind") in KYVERNO_POLICY_KINDS and (p.get("metadata") or {}).get("name") == short
    ]
    if not wanted:
        return no_such_policy(folder, result, name)
    request, vals = _request_and_values(folder, result, as_created(doc))
    network = needs_network(wanted, result.get("rule"), vals)
    if network:
        return row_for(folder, result, name, network)
    vals["generateSources"] = [d for p in wanted for d in generate_rows.clone_sources(folder, p)]
    outcome = evaluate(wanted + folder.exceptions, request, documents=folder.cluster, values=vals)
    generated = [g for res in outcome for g in res.get("generate") or []]
    row = generate_rows.compared(folder, result, name, generated) if generated else None
    return row or _compared(folder, result, name, wanted, [r for res in outcome for r in res["rules"]])


def _compared(folder: TestFolder, result: dict, name: str, wanted: list[dict], rules: list[dict]) -> Row:
    """The row of the rule responses a result names (all of them when it names no rule, autogen ones too)."""
    policy_name = str(result.get("policy", ""))
    rule = result.get("rule")
    expected = str(result.get("result", ""))
    if rule:
        names = {rule, "autogen-" + rule, "autogen-cronjob-" + rule}
        rules = [r for r in rules if r["rule"] in names]
    if not rules:
        reason = (
            f"no rule named {rule!r} in {policy_name}" if rule and not _has_rule(wanted, rule) else "no rule response"
        )
        return row_for(folder, result, name, f"{reason} (kyverno test reports pass (Excluded))", EXCLUDED, "excluded")
    policy = wanted[0] if wanted else None
    results = [reported(policy, r["result"]) for r in rules]
    ok = all(r == expected for r in results)
    actual = ",".join(sorted(set(results)))
    message = "; ".join(r["message"] for r in rules if r["result"] != "pass")
    return Row(
        policy_name, rule or "", name, str(result.get("kind", "")), expected, actual, OK if ok else FAILED, message
    )


def _request_and_values(folder: TestFolder, result: dict, obj: dict) -> tuple[dict, dict]:
    """The request the CLI makes of the resource, and the values the engine gets: the folder's values for
    the resource, its userinfo, API-call and global-context mocks."""
    test = folder.test
    meta = obj["metadata"]
    vals = values_from_spec(folder.values, meta.get("name", ""), meta.get("namespace", ""))
    op = result.get("operation") or vals["variables"].get("request.operation") or "CREATE"
    request = {"operation": op, "namespace": meta.get("namespace", "")}
    request["oldObject" if op == "DELETE" else "object"] = obj
    if op == "UPDATE":
        request["oldObject"] = copy.deepcopy(obj)
    if folder.user:
        request["userInfo"] = folder.user.get("userInfo") or {}
        vals["roles"] = folder.user.get("roles") or []
        vals["clusterRoles"] = folder.user.get("clusterRoles") or []
    if test.get("clusterResources"):
        vals["apiCallsFromDocuments"] = True
    if test.get("apiCallResponses"):
        vals["apiCallResponses"] = test["apiCallResponses"]
    if test.get("globalContextEntries"):
        vals["globalContext"] = {e["name"]: _global_value(e, folder) for e in test["globalContextEntries"]}
    return request, vals


def needs_network(policies: list[dict], rule: object, values: dict) -> str | None:
    """Why the rules a result names (every rule when it names none) cannot be checked offline: they verify
    images or signed manifests, or read a registry through a context entry the values (global, rule or
    foreach values) do not supply."""
    names = _rule_names(str(rule)) if rule else None
    for policy in policies:
        policy_name = str((policy.get("metadata") or {}).get("name", ""))
        for entry in (policy.get("spec") or {}).get("rules") or []:
            if not isinstance(entry, dict) or (names is not None and entry.get("name") not in names):
                continue
            supplied = set(values.get("variables") or {})
            for table in ("ruleValues", "foreachValues"):
                supplied |= set(((values.get(table) or {}).get(policy_name) or {}).get(entry.get("name")) or {})
            what = _network_use(entry, supplied)
            if what:
                return f"rule {entry.get('name')} {what}: that needs the network, which kyverno-test does not use"
    return None


def _network_use(rule: dict, variables: set[str]) -> str | None:
    if rule.get("verifyImages"):
        return "verifies images in their registry (verifyImages)"
    validate = rule.get("validate")
    if isinstance(validate, dict) and validate.get("manifests"):
        return "verifies signed manifests (validate.manifests)"
    for entry in _context_entries(rule):
        if entry.get("imageRegistry") is not None:
            name = str(entry.get("name") or "")
            if not any(key == name or key.startswith(name + ".") for key in variables):
                return f"reads image data from a registry (context entry {name}: imageRegistry)"
    return None


def _context_entries(node: object) -> list[dict]:
    """Every context entry of a rule: its own and those of its foreach loops, at any depth."""
    found: list[dict] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "context" and isinstance(value, list):
                found += [e for e in value if isinstance(e, dict)]
            else:
                found += _context_entries(value)
    elif isinstance(node, list):
        for value in node:
            found += _context_entries(value)
    return found


def _rule_names(rule: str) -> set[str]:
    return {rule, rule.removeprefix("autogen-"), rule.removeprefix("autogen-cronjob-")}


def _has_rule(policies: list[dict], rule: str) -> bool:
    names = _rule_names(rule)
    return any(
        r.get("name") in names
        for p in policies
        for r in (p.get("spec") or {}).get("rules") or []
        if isinstance(r, dict)
    )
