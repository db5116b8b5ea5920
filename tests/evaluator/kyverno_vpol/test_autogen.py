"""Pod-controller autogen of ValidatingPolicies, as Kyverno generates it."""

from evaluator.policies.kyverno_vpol import autogen

from .helpers import policy


def _spec(**extra):
    return policy(
        [
            {
                "expression": "object.spec.containers.all(c, c.image != '')",
                "message": "object.metadata.name and object.metadata.namespace",
            }
        ],
        **extra,
    )["spec"]


def test_a_pod_policy_gets_a_cronjob_and_a_default_controllers_variant():
    variants = autogen.variants(_spec())
    assert [v["config"] for v in variants] == ["cronjobs", "defaults"]
    defaults = variants[1]
    assert [t["kind"] for t in defaults["targets"]] == ["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "Job"]
    assert defaults["spec"]["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["daemonsets", "deployments", "replicasets", "statefulsets"],
        },
        {"apiGroups": ["batch"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["jobs"]},
    ]


def test_expressions_and_messages_are_rewritten_except_the_namespace():
    defaults, cron = autogen.variants(_spec())[1], autogen.variants(_spec())[0]
    validation = defaults["spec"]["validations"][0]
    assert validation["expression"] == "object.spec.template.spec.containers.all(c, c.image != '')"
    assert validation["message"] == "object.spec.template.metadata.name and object.metadata.namespace"
    assert cron["spec"]["validations"][0]["expression"].startswith("object.spec.jobTemplate.spec.template.spec.")


def test_controllers_narrow_the_variants_and_unknown_names_are_ignored():
    spec = _spec(autogen={"podControllers": {"controllers": ["deployments", "Deployment", "cronjobs"]}})
    variants = autogen.variants(spec)
    assert [(v["config"], [t["resource"] for t in v["targets"]]) for v in variants] == [
        ("cronjobs", ["cronjobs"]),
        ("defaults", ["deployments"]),
    ]
    assert autogen.variants(_spec(autogen={"podControllers": {"controllers": []}})) == []


def test_no_autogen_with_an_object_selector_excludes_names_or_other_resources():
    spec = _spec()
    assert (
        autogen.variants(
            {**spec, "matchConstraints": {**spec["matchConstraints"], "objectSelector": {"matchLabels": {"a": "b"}}}}
        )
        == []
    )
    assert autogen.variants(policy([], resources=("pods", "services"))["spec"]) == []
    rules = [{**spec["matchConstraints"]["resourceRules"][0], "resourceNames": ["x"]}]
    assert autogen.variants({**spec, "matchConstraints": {"resourceRules": rules}}) == []


def test_rewrite_keeps_identifier_boundaries_for_the_protected_namespace():
    assert autogen.rewrite("object.metadata.namespaceFoo", "defaults") == "object.spec.template.metadata.namespaceFoo"
    assert autogen.rewrite("oldObject.spec.x", "defaults") == "oldObject.spec.template.spec.x"
