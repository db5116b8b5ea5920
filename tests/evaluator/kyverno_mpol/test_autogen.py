"""Pod-controller autogen of MutatingPolicies: expressions rewritten to the pod template as Kyverno's
convertPodToTemplateExpression does (cases after pkg/cel/policies/mpol/autogen/autogen_test.go, compared with
whitespace normalised as there), and which parts of a spec are rewritten."""

from __future__ import annotations

import re

from evaluator.policies.kyverno_mpol.autogen import rewrite, variants


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


CONTAINERS = """Object{
  spec: Object.spec{
    containers: object.spec.containers.map(c, Object.spec.containers{
      name: c.name,
      securityContext: Object.spec.containers.securityContext{allowPrivilegeEscalation: false}
    })
  }
}"""


def test_an_object_literal_is_wrapped_in_the_pod_template():
    assert _squash(rewrite(CONTAINERS, "defaults")) == _squash(
        """Object{spec: Object.spec{template: Object.spec.template{
          spec: Object.spec.template.spec{
            containers: object.spec.template.spec.containers.map(c, Object.spec.template.spec.containers{
              name: c.name,
              securityContext: Object.spec.template.spec.containers.securityContext{allowPrivilegeEscalation: false}
            })
          }
        }}}"""
    )
    assert _squash(rewrite(CONTAINERS, "cronjobs")).startswith(
        _squash(
            """Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{
            template: Object.spec.jobTemplate.spec.template{spec: Object.spec.jobTemplate.spec.template.spec{
            containers: object.spec.jobTemplate.spec.template.spec.containers.map("""
        )
    )
    assert rewrite(CONTAINERS, "cronjobs").endswith("}}}}}")


def test_labels_and_annotations_move_but_other_objects_do_not():
    assert rewrite("'team' in object.metadata.labels", "defaults") == "'team' in object.spec.template.metadata.labels"
    assert rewrite("'x' in oldObject.metadata.annotations", "cronjobs") == (
        "'x' in oldObject.spec.jobTemplate.spec.template.metadata.annotations"
    )
    # namespaceObject is not the pod, and metadata.name stays the controller's
    assert rewrite("'m' in namespaceObject.metadata.labels", "defaults") == "'m' in namespaceObject.metadata.labels"
    assert rewrite("object.metadata.name", "defaults") == "object.metadata.name"


def test_variants_rewrite_conditions_and_apply_configurations_only():
    spec = {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
            ]
        },
        "variables": [{"name": "v", "expression": "object.spec.containers"}],
        "matchConditions": [{"name": "c", "expression": "has(object.spec.containers)"}],
        "mutations": [
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{spec: Object.spec{}}"}},
            {"patchType": "JSONPatch", "jsonPatch": {"expression": "object.spec.containers.map(c, [])"}},
        ],
        "autogen": {"podControllers": {"controllers": ["deployments", "cronjobs"]}},
    }
    found = {v["config"]: v for v in variants(spec)}
    assert set(found) == {"defaults", "cronjobs"}
    generated = found["defaults"]["spec"]
    assert generated["matchConstraints"]["resourceRules"] == [
        {"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"], "operations": ["CREATE"]}
    ]
    assert generated["matchConditions"][0]["expression"] == "has(object.spec.template.spec.containers)"
    assert generated["variables"][0]["expression"] == "object.spec.containers"  # left as written
    assert generated["mutations"][1]["jsonPatch"]["expression"] == "object.spec.containers.map(c, [])"
    assert _squash(generated["mutations"][0]["applyConfiguration"]["expression"]) == _squash(
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{}}}}"
    )
    assert variants({**spec, "autogen": {"podControllers": {"controllers": []}}}) == []
