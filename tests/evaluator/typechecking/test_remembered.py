"""Type checks remembered per policy (typechecking/remembered.py): the same answer as checking again, for
exactly the same policy, CRDs and release, and a copy each time (the caller locates its diagnostics in it)."""

from __future__ import annotations

from evaluator.cel.versions import simulating
from evaluator.typechecking import typecheck
from evaluator.typechecking.remembered import remembered_typecheck

from .helpers import policy, warnings
from .test_diagnostics import _replica_limit_crd

EXPRESSION = "object.spec.replicas <= params.maxReplicas"


def test_a_remembered_check_is_the_check_and_each_caller_gets_its_own_copy():
    vap = policy("object.spec.replicas > 'x'", {"expression": "object.nope == 1", "messageExpression": "1"})
    first = remembered_typecheck(vap, [vap])
    assert first == typecheck(vap, [vap]) and warnings(first)
    first["diagnostics"][0]["location"] = {"line": 9}  # as the loader locates it
    again = remembered_typecheck(vap, [vap])
    assert again == typecheck(vap, [vap]) and again is not first


def test_the_crds_among_the_documents_are_part_of_what_is_remembered():
    vap = policy(EXPRESSION, paramKind={"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"})
    preserving = _replica_limit_crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    declared = _replica_limit_crd({"type": "object", "properties": {"maxReplicas": {"type": "integer"}}})
    assert warnings(remembered_typecheck(vap, [vap])) == []  # params untyped: nothing to warn of
    assert warnings(remembered_typecheck(vap, [vap, preserving]))  # maxReplicas undeclared
    assert warnings(remembered_typecheck(vap, [vap, declared])) == []
    for documents in ([vap], [vap, preserving], [vap, declared]):
        assert remembered_typecheck(vap, documents) == typecheck(vap, documents)


def test_each_release_is_its_own_check():
    vap = policy("isSemver('1.0.0')")  # the semver library came with Kubernetes 1.33
    assert warnings(remembered_typecheck(vap)) == []
    with simulating("1.28"):
        assert warnings(remembered_typecheck(vap)) and remembered_typecheck(vap) == typecheck(vap)
    assert warnings(remembered_typecheck(vap)) == []


def _gallery_policies() -> list[dict]:
    """Every ValidatingAdmissionPolicy of the example gallery."""
    from pathlib import Path

    import yaml

    found = []
    for path in sorted(Path(__file__).resolve().parents[3].joinpath("playground/examples").glob("*.yaml")):
        for document in yaml.safe_load(path.read_text()).get("documents") or []:
            for obj in yaml.safe_load_all(document.get("text") or ""):
                if isinstance(obj, dict) and obj.get("kind") == "ValidatingAdmissionPolicy":
                    found.append(obj)
    return found


def test_what_no_check_reads_is_not_part_of_the_key_and_changes_no_check():
    """A validation's static message and reason, and the metadata, are never compiled: a policy that differs
    only there is checked exactly as the original, so the remembered check is shared."""
    policies = _gallery_policies()
    assert len(policies) > 40
    for original in policies:
        renamed = {**original, "metadata": {"name": "another"}}
        spec = renamed.get("spec") or {}
        renamed["spec"] = {
            **spec,
            "validations": [
                {**v, "message": f"typed {i}", "reason": "Forbidden"} if isinstance(v, dict) else v
                for i, v in enumerate(spec.get("validations") or [])
            ],
        }
        assert typecheck(renamed, [renamed]) == typecheck(original, [original])
        assert remembered_typecheck(renamed, [renamed]) == typecheck(original, [original])


def test_an_expression_or_message_expression_edit_is_checked_again():
    quiet = policy({"expression": "object.spec.replicas > 1", "message": "m"})
    loud = policy({"expression": "object.spec.replicas > 'x'", "message": "m"})
    loud_message = policy({"expression": "object.spec.replicas > 1", "messageExpression": "object.nope"})
    assert warnings(remembered_typecheck(quiet)) == []
    assert warnings(remembered_typecheck(loud)) and warnings(remembered_typecheck(loud_message))


def test_a_message_edit_reuses_the_remembered_check(monkeypatch):
    from evaluator.typechecking import remembered

    first = policy({"expression": "object.spec.replicas > 'x'", "message": "one"})
    remembered_typecheck(first)
    checks = []
    monkeypatch.setattr(remembered, "typecheck", lambda *args: checks.append(args) or typecheck(*args))
    typed = policy({"expression": "object.spec.replicas > 'x'", "message": "one, and more"})
    assert remembered_typecheck(typed) == typecheck(first) and checks == []
    remembered_typecheck(policy({"expression": "object.spec.replicas > 'y'", "message": "one"}))
    assert len(checks) == 1
