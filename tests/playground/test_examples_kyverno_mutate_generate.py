"""The gallery's Kyverno mutate and generate examples (policies of kyverno/policies, unchanged) show what Kyverno
does with their sample requests: each rule's JSON patch, and each object a generate rule makes. The expected
patches and objects follow the policies' own tests upstream (`.kyverno-test/` patchedResource / generatedResource)
and Kyverno's mutate and generate documentation."""

import pytest

from playground.evaluation import service as evaluation_service
from playground.services import example_service

SPREAD = {
    "maxSkew": 1,
    "topologyKey": "zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"distributed": "required"}},
}
AFFINITY_TERM = "/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"

# (slug, request name) -> [(rule, result, patches)]
MUTATIONS = {
    ("kyverno-mutate-add-labels", "pod without labels"): [
        ("add-labels", "pass", [{"op": "add", "path": "/metadata/labels", "value": {"foo": "bar"}}])
    ],
    ("kyverno-mutate-add-labels", "config map with a label"): [
        ("add-labels", "pass", [{"op": "add", "path": "/metadata/labels/foo", "value": "bar"}])
    ],
    ("kyverno-mutate-add-default-resources", "pod with one request set"): [
        (
            "add-default-requests",
            "pass",
            [
                {"op": "add", "path": "/spec/containers/0/resources/requests/cpu", "value": "100m"},
                {
                    "op": "add",
                    "path": "/spec/containers/1/resources",
                    "value": {"requests": {"memory": "100Mi", "cpu": "100m"}},
                },
            ],
        )
    ],
    ("kyverno-mutate-add-safe-to-evict", "pod with an emptyDir"): [
        (
            "annotate-empty-dir",
            "pass",
            [
                {
                    "op": "add",
                    "path": "/metadata/annotations",
                    "value": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"},
                }
            ],
        ),
        ("annotate-host-path", "skip", []),
    ],
    ("kyverno-mutate-add-safe-to-evict", "pod without volumes"): [
        ("annotate-empty-dir", "skip", []),
        ("annotate-host-path", "skip", []),
    ],
    ("kyverno-mutate-replace-image-registry", "pod with an init container"): [
        (
            "replace-image-registry-pod-containers",
            "pass",
            [
                {
                    "op": "replace",
                    "path": "/spec/containers/0/image",
                    "value": "myregistry.corp.com/library/nginx:1.27",
                },
                {
                    "op": "replace",
                    "path": "/spec/containers/1/image",
                    "value": "myregistry.corp.com/envoyproxy/envoy:v1.30.0",
                },
            ],
        ),
        (
            "replace-image-registry-pod-initcontainers",
            "pass",
            [
                {
                    "op": "replace",
                    "path": "/spec/initContainers/0/image",
                    "value": "myregistry.corp.com/example/migrate:1.0",
                }
            ],
        ),
    ],
    ("kyverno-mutate-replace-image-registry", "pod without init containers"): [
        (
            "replace-image-registry-pod-containers",
            "pass",
            [{"op": "replace", "path": "/spec/containers/0/image", "value": "myregistry.corp.com/nginx:1.27"}],
        ),
        ("replace-image-registry-pod-initcontainers", "skip", []),
    ],
    ("kyverno-mutate-add-imagepullsecrets", "pod pulling from corp.reg.com"): [
        (
            "add-imagepullsecret",
            "pass",
            [{"op": "add", "path": "/spec/imagePullSecrets", "value": [{"name": "my-secret"}]}],
        )
    ],
    ("kyverno-mutate-add-imagepullsecrets", "pod pulling from Docker Hub"): [("add-imagepullsecret", "skip", [])],
    ("kyverno-mutate-add-node-affinity", "deployment with node affinity"): [
        (
            "add-node-affinity-deployment",
            "pass",
            [
                {
                    "op": "add",
                    "path": AFFINITY_TERM + "/nodeSelectorTerms/0/matchExpressions/1",
                    "value": {"key": "zone_weight", "operator": "Lt", "values": ["400"]},
                }
            ],
        )
    ],
    ("kyverno-mutate-add-ndots", "pod"): [
        (
            "add-ndots",
            "pass",
            [{"op": "add", "path": "/spec/dnsConfig", "value": {"options": [{"name": "ndots", "value": "1"}]}}],
        )
    ],
    ("kyverno-mutate-spread-pods", "labelled deployment"): [
        (
            "spread-pods-across-nodes",
            "pass",
            [{"op": "add", "path": "/spec/template/spec/topologySpreadConstraints", "value": [SPREAD]}],
        )
    ],
    ("kyverno-mutate-spread-pods", "unlabelled deployment"): [],  # not matched: the selector wants the label
}

# (slug, request name) -> [(rule, action, role, kind, namespace, name)]
GENERATIONS = {
    ("kyverno-generate-network-policy", "new namespace"): [
        ("default-deny", "create", "downstream", "NetworkPolicy", "team-a", "default-deny")
    ],
    ("kyverno-generate-ns-quota", "new namespace"): [
        ("generate-resourcequota", "create", "downstream", "ResourceQuota", "team-a", "default-resourcequota"),
        ("generate-limitrange", "create", "downstream", "LimitRange", "team-a", "default-limitrange"),
    ],
    ("kyverno-generate-sync-secrets", "new namespace"): [
        ("sync-image-pull-secret", "update", "source", "Secret", "default", "regcred"),
        ("sync-image-pull-secret", "create", "downstream", "Secret", "team-a", "regcred"),
    ],
    ("kyverno-generate-default-pdb", "deployment"): [
        ("create-default-pdb", "create", "downstream", "PodDisruptionBudget", "default", "web-default-pdb")
    ],
    ("kyverno-generate-rolebinding", "namespace created by alice"): [
        ("generate-admin-binding", "create", "downstream", "RoleBinding", "team-a", "alice-admin-binding")
    ],
    # GeneratingPolicies (CEL): the rule is the policy
    ("kyverno-gpol-default-pdb", "a new Deployment gets its PDB"): [
        ("create-default-pdb", "create", "downstream", "PodDisruptionBudget", "shop", "web-default-pdb")
    ],
    ("kyverno-gpol-default-pdb", "a ConfigMap is not a trigger"): [],
    ("kyverno-gpol-namespace-setup", "a team namespace gets a NetworkPolicy and the Secret"): [
        ("namespace-setup", "create", "downstream", "NetworkPolicy", "payments", "default-deny"),
        ("namespace-setup", "create", "downstream", "Secret", "payments", "registry-credentials"),
    ],
    ("kyverno-gpol-namespace-setup", "kube- namespaces are left alone"): [],
}


def results(slug: str) -> dict:
    example = example_service.get_example(slug=slug)
    documents = [{"id": i, **doc} for i, doc in enumerate(example["documents"])]
    requests = [{"id": i, **req} for i, req in enumerate(example["requests"])]
    return {entry["name"]: entry for entry in evaluation_service.evaluate(documents, requests)["requests"]}


def test_there_are_at_least_ten_mutate_and_generate_examples_each_covered_here():
    slugs = {e["slug"] for e in example_service.list_examples() if e["groupSlug"] == "kyverno-mutate-generate"}
    assert len(slugs) >= 10
    assert slugs == {slug for slug, _ in MUTATIONS} | {slug for slug, _ in GENERATIONS}


@pytest.mark.parametrize("slug", sorted({slug for slug, _ in MUTATIONS}))
def test_each_mutate_rule_gives_the_patch_kyverno_gives(slug):
    for name, entry in results(slug).items():
        assert entry["verdict"] == "pass"
        mutation = entry["result"]["kyvernoMutation"]
        got = [(m["rule"], m["result"], m["patches"]) for m in mutation["mutations"]]
        assert got == MUTATIONS[(slug, name)], name
        # the whole patch goes from the object Kyverno received to the final one: the rules' operations, in path order
        by_path = lambda ops: sorted(ops, key=lambda op: op["path"])  # noqa: E731
        assert by_path(mutation["patch"]) == by_path([p for _, _, patches in got for p in patches])
        assert bool(mutation["diff"]) is bool(mutation["patch"])


@pytest.mark.parametrize("slug", sorted({slug for slug, _ in GENERATIONS}))
def test_each_generate_rule_makes_the_objects_kyverno_makes(slug):
    for name, entry in results(slug).items():
        assert entry["verdict"] == "pass"
        made = [
            (
                o["rule"],
                o["action"],
                o["role"],
                o["object"]["kind"],
                o["object"]["metadata"]["namespace"],
                o["object"]["metadata"]["name"],
            )
            for policy in entry["result"]["kyverno"]
            for rule in policy.get("generate") or []
            for o in rule["objects"]
        ]
        assert made == GENERATIONS[(slug, name)], name


def test_generated_objects_carry_the_policys_data_and_the_triggers_values():
    pdb = results("kyverno-generate-default-pdb")["deployment"]["result"]["kyverno"][0]["generate"][0]["objects"][0]
    assert pdb["object"]["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}
    binding = results("kyverno-generate-rolebinding")["namespace created by alice"]["result"]["kyverno"][0]
    [made] = binding["generate"][0]["objects"]
    assert made["object"]["subjects"] == [{"kind": "User", "name": "alice"}]
    assert made["object"]["metadata"]["annotations"] == {"kyverno.io/user": "alice"}
    secret = results("kyverno-generate-sync-secrets")["new namespace"]["result"]["kyverno"][0]["generate"][0]
    assert secret["objects"][1]["object"]["type"] == "kubernetes.io/dockerconfigjson"


def test_a_generating_policy_copies_what_resource_get_read_and_fills_template_placeholders():
    result = results("kyverno-gpol-namespace-setup")["a team namespace gets a NetworkPolicy and the Secret"]["result"]
    [policy] = [p for p in result["kyverno"] if p["kind"] == "GeneratingPolicy"]
    netpol, secret = (o["object"] for o in policy["generate"][0]["objects"])
    assert netpol["metadata"]["labels"]["team"] == "checkout"
    assert netpol["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    assert secret["type"] == "kubernetes.io/dockerconfigjson"
    assert secret["data"] == {".dockerconfigjson": "eyJhdXRocyI6e319"}
    assert secret["metadata"]["labels"]["generate.kyverno.io/trigger-name"] == "payments"
