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
