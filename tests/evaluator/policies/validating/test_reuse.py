"""A policy's dispatch reused across document sets (validating/reuse.py) answers exactly as the general way
(`shortcuts.off()`, which evaluates every policy again): every key of every result, as JSON."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from evaluator import shortcuts
from evaluator.admission.loading import NamedText
from evaluator.policies.validating import reuse
from evaluator.simulation import Simulation

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = sorted((ROOT / "playground" / "examples").glob("*.yaml"))
VAP_EXAMPLES = [p for p in EXAMPLES if "kind: ValidatingAdmissionPolicy\n" in p.read_text()]
WORKSHOP = ROOT / "playground" / "examples" / "workshop-reference.yaml"
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def _example(path: Path) -> tuple[list[NamedText], list[NamedText]]:
    example = yaml.safe_load(path.read_text())
    documents = [NamedText(d["text"], d["name"]) for d in example.get("documents") or []]
    requests = [NamedText(r["text"], r["name"]) for r in example.get("requests") or []]
    return documents, requests


def _run(documents: list[NamedText], requests: list[NamedText]) -> str:
    simulation = Simulation(list(documents))
    return json.dumps([simulation.run(r, now=NOW, request_name=r.name) for r in requests], default=str)


def _general(documents: list[NamedText], requests: list[NamedText]) -> str:
    with shortcuts.off():
        return _run(documents, requests)


def _kept() -> int:
    """Dispatches kept (marks of dispatches made once left out)."""
    return sum(1 for key in reuse._ADDED.keys() if (reuse._ADDED.find(key) or (None, reuse._SEEN))[1] != reuse._SEEN)


def _touched(documents: list[NamedText], n: int) -> list[NamedText]:
    """The same documents as new texts (a comment at the end): a new document set of the same content."""
    return [NamedText(f"{text}\n# touched {n}\n", text.name) for text in documents]


def _edited(documents: list[NamedText], name: str, old: str, new: str) -> list[NamedText]:
    return [NamedText(d.replace(old, new), d.name) if d.name == name else d for d in documents]


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry for each replay of a kept dispatch."""
    calls: list[int] = []
    original = reuse.replay

    def counted(kept, out):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(kept, out)

    monkeypatch.setattr(reuse, "replay", counted)
    return calls


def test_the_gallery_has_examples_of_validating_policies():
    assert len(VAP_EXAMPLES) >= 10


@pytest.mark.parametrize("path", VAP_EXAMPLES, ids=[p.stem for p in VAP_EXAMPLES])
def test_a_gallery_example_run_again_answers_as_the_general_way(path, replays):
    documents, requests = _example(path)
    first = _run(documents, requests)
    again = [_run(_touched(documents, n), requests) for n in range(2)]  # marked, then kept: the third run reuses
    reused = _run(_touched(documents, 2), requests)
    assert again == [first, first] and reused == first == _general(documents, requests)
    # not kept: a cluster with CRDs (a REST mapping of its own), a request a mutation changed
    crds = any("kind: CustomResourceDefinition" in d for d in documents)
    mutations = any("kind: Mutating" in d for d in documents)
    if not crds and not mutations and ('"outcome": "admitted"' in first or '"outcome": "denied"' in first):
        assert replays, "a policy evaluated without an error is answered from the kept dispatch"


def test_editing_one_policy_reuses_the_others_only(replays):
    documents, requests = _example(WORKSHOP)
    for n in range(2):
        _run(_edited(documents, "policies", "a team label is required", f"a team label ({n})"), requests)
    assert not replays, "a dispatch is kept the second time it is made, and reused from the third"
    edited = _edited(documents, "policies", "a team label is required", "a team label, please")
    answered = _run(edited, requests)
    assert answered == _general(edited, requests)
    assert "a team label, please" in answered
    # the two policies the edit left alone (replica-limit, allowed-registries), for each of the six requests
    assert len(replays) == 2 * len(requests)


@pytest.mark.parametrize(
    ("name", "old", "new", "changed"),
    [
        ("params", 'maxReplicas: "3"', 'maxReplicas: "1"', "replicas must be at most 1"),
        ("namespaces", "labels: {environment: dev}", "labels: {environment: test}", None),
        ("params", 'registries: "registry.example.com/', 'registries: "other.example.com/', None),
    ],
    ids=["param", "namespace-label", "another-param"],
)
def test_a_changed_cluster_object_is_never_answered_from_an_earlier_dispatch(name, old, new, changed, replays):
    documents, requests = _example(WORKSHOP)
    before = [_run(_touched(documents, n), requests) for n in range(3)][-1]
    assert replays
    replays.clear()
    edited = _edited(documents, name, old, new)
    after = _run(edited, requests)
    assert after != before
    assert after == _general(edited, requests)
    assert not replays, "every policy may read the cluster's objects: none is reused"
    if changed:
        assert changed in after


def test_a_changed_request_is_evaluated_again(replays):
    documents, requests = _example(WORKSHOP)
    for n in range(3):
        _run(_touched(documents, n), requests)
    replays.clear()
    edited = [NamedText(requests[0].replace("replicas: 2", "replicas: 9"), requests[0].name)]
    answered = _run(documents, edited)
    assert not replays
    assert "replicas must be at most 3" in answered and answered == _general(documents, edited)


MUTATION = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'mutated'}}}"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
"""


def test_a_request_a_mutation_changed_is_evaluated_again(replays):
    documents, requests = _example(WORKSHOP)
    documents = [*documents, NamedText(MUTATION, "mutation")]
    runs = [_run(_touched(documents, n), requests) for n in range(3)]
    assert runs[0] == runs[2] == _general(documents, requests)
    assert '"team": "mutated"' in runs[0] and "mutated" in json.dumps(json.loads(runs[0])[0]["auditAnnotations"])
    assert not replays, "the request the validating policies see is not the one that was read"


POLICY_WITH_ERROR = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "int(object.data.n) > 0"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: broken}
spec: {policyName: broken, validationActions: [Deny]}
"""
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {n: not-a-number}\n"


def test_a_dispatch_whose_records_hold_an_error_is_not_kept(replays):
    documents, requests = [NamedText(POLICY_WITH_ERROR, "p")], [NamedText(CONFIG_MAP, "r")]
    first = _run(documents, requests)
    assert '"outcome": "error"' in first
    assert [_run(_touched(documents, n), requests) for n in range(3)] == [first] * 3
    assert _kept() == 0 and not replays


def test_untraced_runs_keep_nothing():
    documents, requests = _example(WORKSHOP)
    for n in range(3):
        simulation = Simulation(_touched(documents, n))
        for request in requests:
            simulation.run(request, now=NOW, trace=False)
    assert _kept() == 0


def test_a_paramkind_of_policies_is_never_reused():
    policies = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy"}
    assert reuse.policy_key({"spec": {"paramKind": policies}}, []) is None
    assert reuse.policy_key({"spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}}, []) is not None
