"""Whatever YAML text a user types -- broken, aliased, deeply nested -- simulate answers with plain JSON."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import simulate

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  validations: [{expression: "has(object.data) && size(object.data) < 3"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""

fragments = st.sampled_from(
    [
        "apiVersion: v1\n",
        "kind: ConfigMap\n",
        "metadata: {name: c, namespace: d}\n",
        "data:\n",
        "  a: &a [1, 2]\n",
        "  b: *a\n",
        "  c: &c [*a, *a, *a, *a, *a, *a, *a, *a]\n",
        "  d: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
        "  <<: *a\n",
        "---\n",
        "...\n",
        "  x: {",
        "  y: [",
        "\t",
        "'",
        '"',
        "&loop [*loop]\n",
        "- \n",
        ": :\n",
        "  z: !!binary aGk=\n",
        "  t: 2001-12-14\n",
        "  big: 1" + "0" * 30 + "\n",
        "  e: .nan\n",
        "\x00",
        "\ud800",
        "  deep: " + "[" * 60 + "]" * 60 + "\n",
        "  n: ~\n",
        "%YAML 1.2\n",
    ]
)
texts = st.one_of(st.lists(fragments, max_size=14).map("".join), st.text(max_size=60))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=texts, request=texts)
def test_yaml_text_never_crashes_simulate(document, request):
    result = simulate([POLICY, document], request)
    assert isinstance(result["allowed"], bool)
    json.dumps(result)
