"""`evaluator.load(documents) -> Simulation`: loading and `run` never raise, and every error says which of
the given documents it belongs to (`document`), with the request's own errors apart (`requestErrors`)."""

from __future__ import annotations

import json

import evaluator
from evaluator.admission.loading import NamedText
from evaluator.policies.validating import dispatcher

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: small}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}]
  validations: [{expression: "object.data.size() < 2"}]
"""
BINDING = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: small}
spec: {policyName: small, validationActions: [Deny]}
"""
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "c", "namespace": "default"},
    "data": {"a": "1", "b": "2"},
}


def test_load_is_exported_and_runs_many_requests():
    simulation = evaluator.load([POLICY, BINDING])
    assert isinstance(simulation, evaluator.Simulation)
    assert simulation.errors == []
    assert simulation.run(CONFIGMAP)["allowed"] is False
    assert simulation.run({**CONFIGMAP, "data": {}})["allowed"] is True


def test_document_errors_name_the_document_they_belong_to():
    broken = "kind: [unclosed\n"
    second = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\nnot: typed\n"
    simulation = evaluator.load([POLICY, broken, {"kind": "NoApiVersion"}, second, BINDING])
    by_document = {e["document"] for e in simulation.errors if e["severity"] == "error"}
    assert by_document == {1, 2, 3}
    yaml_part = next(e for e in simulation.errors if e["document"] == 3)
    assert yaml_part["yamlDocument"] == 1 and yaml_part["line"] == 5


def test_one_text_keeps_yaml_document_indexes():
    errors = evaluator.load(POLICY + "---\nkind: [x\n").errors
    assert [e["document"] for e in errors if e["severity"] == "error"] == [1]


def test_request_errors_are_apart_from_document_errors():
    result = evaluator.load([POLICY, "kind: [x", BINDING]).run({"kind": {"kind": "Nope"}, "operation": "EXPLODE"})
    assert result["documentErrors"] and all(e["document"] == 1 for e in result["documentErrors"])
    assert result["requestErrors"] and all(e["document"] is None for e in result["requestErrors"])
    assert result["errors"] == result["documentErrors"] + result["requestErrors"]


def test_run_never_raises_an_internal_error(monkeypatch):
    simulation = evaluator.load([POLICY, BINDING])

    def explode(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(dispatcher.Dispatcher, "dispatch", explode)
    result = simulation.run(CONFIGMAP)
    assert result["allowed"] is False and result["status"]["code"] == 500
    assert result["requestErrors"][0]["message"] == "internal error: RuntimeError: boom"
    assert result["requestErrors"][0]["document"] is None
    json.dumps(result)


def test_loading_never_raises_an_internal_error(monkeypatch):
    from evaluator.admission import loading

    def explode(*args, **kwargs):
        raise RuntimeError("bad day")

    monkeypatch.setattr(loading, "deduplicate", explode)
    simulation = evaluator.load([POLICY, BINDING])
    assert simulation.errors[-1]["message"] == "internal error: RuntimeError: bad day"
    result = simulation.run(CONFIGMAP)
    assert result["status"]["code"] == 500 and result["allowed"] is False


def test_request_errors_name_the_request_by_its_name():
    """A request's errors call it by its name (a `NamedText`'s, or `request_name`), never `<request>`; a
    nameless request is `request`. The 400's message carries the YAML error too."""
    simulation = evaluator.load([POLICY, BINDING])
    named = simulation.run(NamedText("kind: [x", "my-request.yaml"))
    assert {e["source"] for e in named["requestErrors"]} == {"my-request.yaml"}
    assert "invalid YAML" in named["status"]["message"]
    given = simulation.run({"kind": {"kind": "Nope"}, "operation": "EXPLODE"}, request_name="deploy-bad")
    assert given["requestErrors"] and {e["source"] for e in given["requestErrors"]} == {"deploy-bad"}
    nameless = simulation.run("kind: [x")
    assert {e["source"] for e in nameless["requestErrors"]} == {"request"}
    unknown = evaluator.simulate([POLICY, BINDING], CONFIGMAP, request_name="cm.yaml", kubernetes_version="0.9")
    assert [e["source"] for e in unknown["requestErrors"]] == ["cm.yaml"]
    assert "<request>" not in json.dumps([named, given, nameless, unknown], default=str)
