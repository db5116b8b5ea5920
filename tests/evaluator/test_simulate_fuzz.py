"""Whatever the input, `simulate` returns a JSON-serialisable result with a boolean decision."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.simulation import simulate

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(max_size=8),
    st.sampled_from(["*", "Deny", "Fail", "Ignore", "v1", "apps/v1", "CREATE", "object.x == 1", "false"]),
)
json_like = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def admission_documents(draw):
    """Mostly well-formed policies and bindings with random holes and random values."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]
            },
            "validations": [
                {
                    "expression": draw(
                        st.sampled_from(
                            ["object.spec.x == 1", "params.a", "variables.v", "1 +", "[1,2].all(x, x > 0)", "true"]
                        )
                    )
                }
            ],
            "variables": [{"name": "v", "expression": draw(st.sampled_from(["object.y", "true", "(("]))}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Deny"]},
    }
    for doc in (policy, binding):
        if draw(st.booleans()):
            doc["spec"][
                draw(
                    st.sampled_from(
                        [
                            "paramKind",
                            "failurePolicy",
                            "matchConditions",
                            "paramRef",
                            "auditAnnotations",
                            "validationActions",
                        ]
                    )
                )
            ] = draw(json_like)
    return [policy, binding, *draw(st.lists(json_like, max_size=2))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents=admission_documents(),
    request=st.one_of(
        json_like, st.just({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}})
    ),
)
def test_simulate_never_raises(documents, request):
    result = simulate(documents, request)
    assert isinstance(result["allowed"], bool)
    assert result["status"] is None or {"code", "reason", "message"} <= set(result["status"])
    assert not any("traceback" in e for e in result["errors"]), [e for e in result["errors"] if "traceback" in e]
    json.dumps(result)
