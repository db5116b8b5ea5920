"""Defaulting and validation remembered per object (admission/remembered_prepare.py): the same answer as
preparing again, for exactly the same object, compile check and release, with a defaulted object of each
caller's own."""

from __future__ import annotations

import copy

import pytest

from evaluator.admission import remembered_prepare as remembered
from evaluator.admission.expressions import compile_check
from evaluator.admission.validation import prepare
from evaluator.cel.versions import simulating
from evaluator.policies import load_kinds

POLICY = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "replicas"},
    "spec": {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
            ]
        },
        "validations": [{"expression": "object.spec.replicas <= 5"}],
    },
}


@pytest.fixture(autouse=True)
def _kinds():
    load_kinds([POLICY])  # the kinds whose create rules validate it


def _same(a, b) -> bool:
    return (a.object, a.errors, a.warnings) == (b.object, b.errors, b.warnings)


def test_a_remembered_preparation_is_the_preparation_and_each_caller_gets_its_own_object():
    remembered.clear()
    first = remembered.remembered_prepare(POLICY, compile_check)
    assert _same(first, prepare(POLICY, compile_check)) and first.valid
    assert first.object["spec"]["failurePolicy"] == "Fail"  # defaulted
    first.object["spec"]["validations"].append({"expression": "changed by a later stage"})
    again = remembered.remembered_prepare(POLICY, compile_check)
    assert _same(again, prepare(POLICY, compile_check)) and again.object is not first.object


def test_the_object_the_compile_check_and_the_release_are_the_key():
    broken = copy.deepcopy(POLICY)
    broken["spec"]["validations"][0]["expression"] = "object.spec.replicas <="
    assert remembered.remembered_prepare(broken, compile_check).errors
    assert remembered.remembered_prepare(broken, None).errors == []  # structure only: the compile is not checked
    semver = copy.deepcopy(POLICY)
    semver["spec"]["validations"][0]["expression"] = "isSemver('1.0.0')"  # the library came with 1.33
    assert remembered.remembered_prepare(semver, compile_check).valid
    with simulating("1.28"):
        old = remembered.remembered_prepare(semver, compile_check)
        assert not old.valid and _same(old, prepare(semver, compile_check))
    assert remembered.remembered_prepare(semver, compile_check).valid


def test_an_object_pickle_refuses_is_prepared_every_time():
    odd = {**POLICY, "metadata": {"name": "replicas", "labels": {"a": (lambda: 1)}}}
    assert _same(remembered.remembered_prepare(odd, compile_check), prepare(odd, compile_check))
