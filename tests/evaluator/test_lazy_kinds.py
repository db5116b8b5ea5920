"""Policy packages are imported only for the documents that concern them (`kinds.json`), and a simulation
decides every request exactly as it does with every kind loaded and run."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import evaluator.simulation as simulation
from evaluator import policies
from evaluator.admission.policy_kind import Absent, registered

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "playground" / "examples").glob("*.yaml"))
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def _results(text: str, requests: list) -> list[dict]:
    loaded = simulation.load(text)
    return [loaded.run(request, now=NOW) for request in requests]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_a_gallery_example_decides_as_with_every_kind_run(path, monkeypatch):
    example = yaml.safe_load(path.read_text())
    text = "\n---\n".join(d["text"] for d in example.get("documents") or [])
    requests = [yaml.safe_load(r["text"]) for r in example.get("requests") or []]
    lazy = _results(text, requests)
    every_kind = policies.load_kinds()
    monkeypatch.setattr(simulation, "load_kinds", lambda documents=None: every_kind)
    eager = _results(text, requests)
    assert json.dumps(lazy, sort_keys=False, default=str) == json.dumps(eager, sort_keys=False, default=str)


def test_every_declaration_says_what_its_class_says():
    policies.load_kinds()
    classes = {kind.name: kind for kind in registered()}
    declared = [kind for package in policies.declared_packages() for kind in package.kinds]
    assert declared, "the policy packages declare their kinds"
    for kind in declared:
        cls = classes[kind["name"]]
        assert (cls.stage, cls.order, dict(cls.result_keys)) == (kind["stage"], kind["order"], kind["result_keys"])
    undeclared = {p.package for p in policies.declared_packages() if p.always}
    assert undeclared == {"evaluator.policies.mutating"}  # MutatingAdmissionPolicy outputs `mutation` always


def test_a_document_concerns_its_package_by_kind_or_group():
    by_name = {p.package.rpartition(".")[2]: p for p in policies.declared_packages()}
    vap = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy"}
    cleanup = {"apiVersion": "kyverno.io/v2", "kind": "ClusterCleanupPolicy"}
    always = {"evaluator.policies.mutating"}
    assert policies.concerned_packages([vap]) == always | {"evaluator.policies.validating"}
    assert by_name["kyverno"].concerns(cleanup) and not by_name["validating"].concerns(cleanup)
    assert policies.concerned_packages([{"kind": "Deployment"}, "not a mapping", None, 3]) == always


def test_a_stand_in_keeps_its_result_keys_and_runs_nothing():
    kinds = policies.chain(set())
    assert all(isinstance(k, Absent) and k.idle and not k.active for k in kinds)
    assert kinds[0].stage == "mutating" and kinds[-1].stage == "validating"
    assert kinds[0].refuse({"kind": "MutatingAdmissionPolicy"}) == []


def test_a_validating_admission_policy_run_imports_no_kyverno_crd_or_webhook_package():
    script = (
        "import sys\n"
        "from evaluator import simulate\n"
        "docs = '''apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicy\n"
        "metadata: {name: p}\n"
        "spec:\n"
        "  matchConstraints: {resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE],"
        " resources: [configmaps]}]}\n"
        "  validations: [{expression: 'false'}]\n"
        "---\n"
        "apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: b}\n"
        "spec: {policyName: p, validationActions: [Deny]}\n"
        "'''\n"
        "result = simulate(docs, {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'c', "
        "'namespace': 'default'}})\n"
        "print(result['allowed'], sorted(m for m in sys.modules if m.startswith('evaluator.policies.')"
        " and m.count('.') == 2), sorted(k for k in ('kyverno', 'crdValidation', 'mutation') if k in result))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[0] == (
        "False ['evaluator.policies.mutating', 'evaluator.policies.validating'] ['crdValidation', 'kyverno', 'mutation']"
    )


def test_the_packages_a_shape_concerns_are_those_each_package_says():
    """`concerned_packages` works out each (kind, apiVersion) once; the answer is each package's `concerns`."""
    declared = policies.declared_packages()
    shapes = [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy"},
        {"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy"},
        {"apiVersion": "policies.kyverno.io/v1alpha1", "kind": "ValidatingPolicy"},
        {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"},
        {"apiVersion": "apps/v1", "kind": "Deployment"},
        {"apiVersion": 3, "kind": ["not", "text"]},
        {"kind": "MutatingAdmissionPolicy"},
        {"apiVersion": "admissionregistration.k8s.io/v1"},
    ]
    for shape in shapes:
        expected = {p.package for p in declared if p.always or p.concerns(shape)}
        assert policies.concerned_packages([shape]) == expected, shape
        assert policies.concerned_packages([dict(shape), shape]) == expected  # the second time: remembered
    everything = {p.package for p in declared if p.always or any(p.concerns(s) for s in shapes)}
    assert policies.concerned_packages(shapes) == everything
