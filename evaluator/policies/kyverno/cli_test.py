"""Running a Kyverno CLI test folder (`kyverno-test.yaml`) as `kyverno test` does, for validate rules:
policies, resources, values (globalValues, per-policy rule/resource values, namespaceSelector), userinfo,
API-call and global-context mocks, exceptions; results compared per (policy, rule, resource)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS, POLICY_EXCEPTION

from . import evaluate
from .cli_values import values_from_spec
from .yaml_io import load_all



@dataclass
class Row:
    policy: str
    rule: str
    resource: str
    kind: str
    expected: str
    actual: str
    ok: bool
    message: str = ""


@dataclass
class TestReport:
    path: str
    rows: list[Row] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.errors and all(r.ok for r in self.rows)


def _read_docs(base: Path, paths: list[str], errors: list[str]) -> list[dict]:
    docs = []
    for p in paths or []:
        try:
            docs.extend(d for d in load_all((base / p).read_text()) if isinstance(d, dict))
        except (OSError, ValueError) as err:
            errors.append(f"cannot read {p}: {err}")
    return docs


def _resource_key(doc: dict) -> tuple[str, str]:
    meta = doc.get("metadata") or {}
    return meta.get("namespace", "") or "", meta.get("name", "") or ""


def _find_resource(resources: list[dict], name: str, kind: str) -> dict | None:
    ns, _, short = name.rpartition("/")
    for doc in resources:
        d_ns, d_name = _resource_key(doc)
        if d_name == short and (not kind or doc.get("kind") == kind) and (not ns or ns == (d_ns or "default")):
            return doc
    return None


def _global_value(entry: dict, base: Path) -> object:
    if "resources" in entry:
        return entry["resources"]
    if entry.get("resourceFiles"):
        return _read_docs(base, entry["resourceFiles"], [])
    data = entry.get("data")
    if entry.get("projections"):
        from .jmes import search
        return {p["name"]: search(p["path"], data) for p in entry["projections"]}
    return data


def run_test_file(path: Path) -> TestReport:
    report = TestReport(str(path))
    base = path.parent
    try:
        [test] = load_all(path.read_text())
    except (OSError, ValueError) as err:
        report.errors.append(f"cannot read test: {err}")
        return report
    policies = [d for d in _read_docs(base, test.get("policies"), report.errors) if d.get("kind") in KYVERNO_POLICY_KINDS]
    exceptions = [d for d in _read_docs(base, test.get("exceptions"), report.errors)
                  if d.get("kind") == POLICY_EXCEPTION]
    resources = _read_docs(base, test.get("resources"), report.errors)
    cluster = list(resources)
    for doc in _read_docs(base, test.get("clusterResources"), report.errors):
        if doc.get("kind") == "ClusterResource":
            cluster.extend(d for d in (doc.get("spec") or {}).get("resources") or [] if isinstance(d, dict))
        else:
            cluster.append(doc)
    values = dict(test.get("values") or {})
    if test.get("variables"):
        docs = _read_docs(base, [test["variables"]], report.errors)
        if docs:
            values = docs[0].get("spec", docs[0]) if docs[0].get("kind") == "Values" else docs[0]
    user = {}
    if test.get("userinfo"):
        docs = _read_docs(base, [test["userinfo"]], report.errors)
        user = docs[0] if docs else {}
    vpol = _vpol_test(test, base, report.errors)
    for result in test.get("results") or []:
        if vpol.handles(result):  # ValidatingPolicy rows: evaluator.policies.kyverno_vpol
            report.rows.extend(Row(r.policy, "", r.resource, r.kind, r.expected, r.actual, r.ok, r.message)
                               for r in vpol.rows(result))
            continue
        if any(result.get(k) for k in ("isValidatingAdmissionPolicy", "isMutatingAdmissionPolicy",
                                       "isValidatingPolicy", "isDeletingPolicy", "isImageValidatingPolicy",
                                       "isGeneratingPolicy", "isMutatingPolicy", "patchedResources",
                                       "generatedResource", "cloneSourceResource")):
            continue
        names = list(result.get("resources") or []) + ([result["resource"]] if result.get("resource") else [])
        for name in names:
            report.rows.append(_run_row(result, name, policies, exceptions, resources, values, user, test,
                                         base, cluster))
    return report


def _vpol_test(test: dict, base: Path, errors: list[str]):
    from evaluator.policies.kyverno_vpol.cli_test import VpolTest
    found: list[str] = []
    vpol = VpolTest(test, base, lambda paths: _read_docs(base, paths, found))
    errors.extend(e for e in dict.fromkeys(found) if e not in errors)
    return vpol


def _run_row(result, name, policies, exceptions, resources, values, user, test, base, cluster) -> Row:
    policy_name = result.get("policy", "")
    rule = result.get("rule")
    expected = result.get("result", "")
    doc = _find_resource(resources, name, result.get("kind", ""))
    if doc is None:
        return Row(policy_name, rule or "", name, result.get("kind", ""), expected, "missing", False,
                   "resource not found")
    obj = copy.deepcopy(doc)
    meta = obj.setdefault("metadata", {})
    if not meta.get("namespace") and obj.get("kind") != "Namespace":
        meta["namespace"] = "default"
    vals = values_from_spec(values, meta.get("name", ""), meta.get("namespace", ""))
    op = result.get("operation") or vals["variables"].get("request.operation") or "CREATE"
    request = {"operation": op, "namespace": meta.get("namespace", "")}
    request["oldObject" if op == "DELETE" else "object"] = obj
    if op == "UPDATE":
        request["oldObject"] = copy.deepcopy(obj)
    if user:
        request["userInfo"] = user.get("userInfo") or {}
        vals["roles"] = user.get("roles") or []
        vals["clusterRoles"] = user.get("clusterRoles") or []
    if test.get("clusterResources"):
        vals["apiCallsFromDocuments"] = True
    if test.get("apiCallResponses"):
        vals["apiCallResponses"] = test["apiCallResponses"]
    if test.get("globalContextEntries"):
        vals["globalContext"] = {e["name"]: _global_value(e, base) for e in test["globalContextEntries"]}
    short = policy_name.split("/")[-1]
    wanted = [p for p in policies if (p.get("metadata") or {}).get("name") == short]
    outcome = evaluate(wanted + exceptions, request, documents=cluster, values=vals)
    rules = [r for res in outcome for r in res["rules"]]
    if rule:
        names = {rule, "autogen-" + rule, "autogen-cronjob-" + rule}
        rules = [r for r in rules if r["rule"] in names]
    if not rules:
        return Row(policy_name, rule or "", name, result.get("kind", ""), expected, "excluded", True,
                   "no rule response (kyverno test reports pass (Excluded))")
    ok = all(r["result"] == expected for r in rules)
    actual = ",".join(sorted({r["result"] for r in rules}))
    return Row(policy_name, rule or "", name, result.get("kind", ""), expected, actual, ok,
               "; ".join(r["message"] for r in rules if r["result"] != "pass"))


def run_directory(root: str | Path) -> list[TestReport]:
    """Every kyverno-test.yaml under `root`."""
    root = Path(root)
    files = [root] if root.is_file() else sorted(root.rglob("kyverno-test.yaml"))
    return [run_test_file(f) for f in files]


def format_reports(reports: list[TestReport]) -> str:
    lines = []
    for rep in reports:
        lines.append(f"{'PASS' if rep.passed else 'FAIL'} {rep.path}")
        lines.extend(f"  error: {e}" for e in rep.errors)
        for i, r in enumerate(rep.rows, 1):
            mark = "Ok" if r.ok else f"Want {r.expected}, got {r.actual}"
            lines.append(f"  {i:3d} {r.policy} / {r.rule} / {r.kind}/{r.resource}: {mark}"
                         + (f" -- {r.message[:200]}" if not r.ok and r.message else ""))
    total = sum(len(r.rows) for r in reports)
    ok = sum(1 for rep in reports for r in rep.rows if r.ok)
    lines.append(f"Test Summary: {ok} out of {total} results passed")
    return "\n".join(lines)
