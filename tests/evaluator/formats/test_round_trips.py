"""Import → project → export → import gives the same documents, requests and expected outcomes, for every
format, on real folders (tests/data/formats: kyverno/kyverno test/cli folders, pfnet/kaptest examples)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from evaluator.project_tests import run_project
from evaluator.formats import admission_review, kaptest, kyverno_test, manifests, project_files
from evaluator.formats.archives import read_archive, write_zip
from evaluator.formats.bounded_yaml import FormatError, load_all

DATA = Path(__file__).resolve().parents[2] / "data" / "formats"
KYVERNO = sorted(p.name for p in (DATA / "kyverno-test").iterdir())
KAPTEST = sorted(p.name for p in (DATA / "kaptest").iterdir())


def folder(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def same(a: dict, b: dict) -> None:
    """Same documents, requests and expected outcomes (compared as data, so formatting does not matter)."""
    assert [(d["name"], load_all(d["text"])) for d in a["documents"]] == [
        (d["name"], load_all(d["text"])) for d in b["documents"]
    ]
    assert [(r["name"], load_all(r["text"]), r.get("expected")) for r in a["requests"]] == [
        (r["name"], load_all(r["text"]), r.get("expected")) for r in b["requests"]
    ]


def through_project_file(project: dict) -> dict:
    return project_files.read_project(project_files.write_project(project))


@pytest.mark.parametrize("name", KYVERNO)
def test_kyverno_test_folder_round_trip(name):
    first = kyverno_test.import_folder(folder(DATA / "kyverno-test" / name))
    assert first["documents"] and first["requests"]
    assert any(r["expected"] for r in first["requests"])
    files, warnings = kyverno_test.export_folder(through_project_file(first))
    assert warnings == []
    second = kyverno_test.import_folder(read_archive(write_zip(files, name)))
    same(first, second)


@pytest.mark.parametrize("name", KYVERNO)
def test_an_imported_kyverno_test_passes_as_a_project(name, tmp_path):
    project = kyverno_test.import_folder(folder(DATA / "kyverno-test" / name))
    report = run_project(project, tmp_path / "p.yaml")
    assert report.passed, (report.problems, report.cases)


def test_kyverno_rows_become_expectations():
    project = kyverno_test.import_folder(folder(DATA / "kyverno-test" / "disallow-service"))
    expected = {r["name"]: r["expected"] for r in project["requests"]}
    assert expected["CREATE Service ns3/svc2"] == {"allowed": False}  # fail row of an Enforce policy
    assert expected["CREATE Service ns1/svc1"] == {"allowed": True}  # skip row


@pytest.mark.parametrize("name", KAPTEST)
def test_kaptest_suite_round_trip(name):
    first = kaptest.import_suite(folder(DATA / "kaptest" / name))
    assert first["requests"] and all(r["expected"] for r in first["requests"])
    files, warnings = kaptest.export_suite(through_project_file(first))
    assert warnings == []
    second = kaptest.import_suite(files)
    same(first, second)


def test_what_an_import_cannot_keep_is_a_warning():
    simple = kaptest.import_suite(folder(DATA / "kaptest" / "simple"))
    assert simple["warnings"] == [
        "error-policy: Deployment good-deployment: expect error imported as denied",
        "simple-policy: Deployment good-deployment: the object is also tested with error-policy, whose binding "
        "applies to it in the project too (kaptest tests each policy alone)",
        "error-policy: Deployment good-deployment: the object is also tested with simple-policy, whose binding "
        "applies to it in the project too (kaptest tests each policy alone)",
        *[
            f"{case}: kaptest ignores matchConstraints and evaluates the policy, but in the project its "
            'matchConstraints do not match this request (no resourceRules matched: apiGroup "apps" not in [""]): '
            "the policy does not apply and the request is allowed, not denied"
            for case in ("simple-policy: Deployment bad-deployment", "error-policy: Deployment good-deployment")
        ],
    ]
    files = folder(DATA / "kyverno-test" / "disallow-service")
    files["kyverno-test.yaml"] += "variables: values.yaml\n"
    files["values.yaml"] = "policies: []\n"
    assert kyverno_test.import_folder(files)["warnings"] == [
        "kyverno-test.yaml: variables is not imported (a project has no place for it)"
    ]


def test_kaptest_expectations_and_bindings():
    project = kaptest.import_suite(folder(DATA / "kaptest" / "complicated"))
    names = {r["name"]: r["expected"] for r in project["requests"]}
    assert names["policy-with-params: Deployment bad-deployment (param config)"] == {"allowed": False}
    assert names["policy-with-namespace: Deployment foo/good-deployment-with-namespace"] == {"allowed": True}
    bindings = {
        d["name"]: load_all(d["text"])[0]["spec"] for d in project["documents"] if "binding: kaptest-" in d["name"]
    }
    # each policy is bound to the objects its suite tests, and to nothing else
    assert bindings["validatingadmissionpolicybinding: kaptest-policy-with-params-config"] == {
        "policyName": "policy-with-params",
        "validationActions": ["Deny"],
        "matchResources": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["*"],
                    "operations": ["*"],
                    "resources": ["deployments"],
                    "resourceNames": ["bad-deployment", "good-deployment"],
                }
            ]
        },
        "paramRef": {"name": "config", "parameterNotFoundAction": "Deny"},
    }
    rules = bindings["validatingadmissionpolicybinding: kaptest-policy-with-namespace"]["matchResources"]
    assert rules["resourceRules"][0]["resourceNames"] == [
        "bad-deployment-with-namespace",
        "good-deployment-with-namespace",
    ]
    assert not [w for w in project["warnings"] if "also tested with" in w]  # no object is tested under two policies


# Two policies that both match Deployments; each suite tests its own objects. Bound to every request, the
# label policy would deny `small` (no team label) and the replicas policy `labelled` (10 replicas).
SCOPED_SUITE = {
    "suite/kaptest.yaml": """\
version: v1alpha1
policies: [policies.yaml]
resources: [resources.yaml]
vapTestSuites:
- policy: max-replicas
  tests:
  - {object: {kind: Deployment, name: small}, expect: admit}
  - {object: {kind: Deployment, name: big}, expect: deny, deniedMessage: at most 5 replicas}
- policy: team-label
  tests:
  - {object: {kind: Deployment, name: labelled}, expect: admit}
  - {object: {kind: Deployment, name: unlabelled, namespace: skipped}, expect: skip}
mapTestSuites: []
""",
    "suite/policies.yaml": """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - {expression: "object.spec.replicas <= 5", message: at most 5 replicas}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  matchConditions:
  - {name: not-skipped, expression: "object.metadata.?namespace.orValue('') != 'skipped'"}
  validations:
  - {expression: "'team' in object.metadata.?labels.orValue({})", message: a team label is required}
""",
    "suite/resources.yaml": "\n---\n".join(
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}{namespace}{labels}}}\n"
        f"spec: {{replicas: {replicas}, selector: {{matchLabels: {{a: b}}}}, template: {{metadata: {{labels: {{a: b}}}},"
        " spec: {containers: [{name: c, image: nginx}]}}}\n"
        for name, namespace, labels, replicas in (
            ("small", "", "", 1),
            ("big", "", "", 9),
            ("labelled", "", ", labels: {team: a}", 10),
            ("unlabelled", ", namespace: skipped", "", 1),
        )
    ),
}


def test_kaptest_binds_each_policy_to_its_own_cases_so_the_project_passes(tmp_path):
    project = kaptest.import_suite(SCOPED_SUITE)
    expected = {r["name"]: r["expected"] for r in project["requests"]}
    assert expected == {
        "max-replicas: Deployment small": {"allowed": True},
        "max-replicas: Deployment big": {"allowed": False, "messageContains": "at most 5 replicas"},
        "team-label: Deployment labelled": {"allowed": True},
        "team-label: Deployment skipped/unlabelled": {"allowed": True},
    }
    assert project["warnings"] == ["team-label: Deployment skipped/unlabelled: expect skip imported as allowed"]
    report = run_project(project, tmp_path / "p.yaml")
    assert report.passed and [c.verdict for c in report.cases] == ["pass"] * 4, report.cases


def test_kaptest_scoped_suite_round_trip_in_the_current_format():
    first = kaptest.import_suite(SCOPED_SUITE)
    files, warnings = kaptest.export_suite(through_project_file(first))
    assert warnings == []
    suite = load_all(files["kaptest.yaml"])[0]
    assert suite["version"] == "v1alpha1" and [s["policy"] for s in suite["vapTestSuites"]] == [
        "max-replicas",
        "team-label",
    ]
    assert suite["vapTestSuites"][0]["tests"][1] == {
        "object": {"kind": "Deployment", "name": "big"},
        "expect": "deny",
        "deniedMessage": "at most 5 replicas",
    }
    second = kaptest.import_suite(files)
    same(first, second)


BUNDLE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default}
  spec: {containers: [{name: c, image: nginx}]}
- apiVersion: v1
  kind: Namespace
  metadata: {name: default}
---
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"},
 "spec": {"validations": [{"expression": "true"}]}}
"""


def test_manifest_bundle_round_trip_with_lists():
    first = manifests.import_bundle(BUNDLE)
    assert [d["name"] for d in first["documents"]] == ["namespace: default", "validatingadmissionpolicy: p"]
    assert [r["name"] for r in first["requests"]] == ["CREATE Pod default/a"]
    text, warnings = manifests.export_bundle(first)
    assert warnings == []
    same(first, manifests.import_bundle(text))


def test_manifests_export_names_what_is_not_a_manifest_and_keeps_it_as_a_comment():
    review = "kind: AdmissionReview\nrequest: {}\n"
    project = {
        "title": "t",
        "description": "",
        "documents": [{"name": "broken", "text": "a: [\n"}],
        "requests": [{"name": "r", "text": review, "expected": {"allowed": False}}],
    }
    bundle, warnings = manifests.export_bundle(project)
    assert warnings == [
        f"{what} {name!r} is not a Kubernetes object (an AdmissionReview, or not valid YAML): it is written "
        "commented out, which kubectl ignores and the playground's import restores"
        for what, name in (("document", "broken"), ("request", "r"))
    ]
    assert load_all(bundle) == []  # kubectl sees no object in it
    back = manifests.import_bundle(bundle)
    assert back["documents"] == project["documents"] and back["requests"] == project["requests"]


REVIEW = {
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "request": {
        "uid": "1",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "operation": "CREATE",
        "name": "a",
        "namespace": "default",
        "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"}},
    },
    "response": {"uid": "1", "allowed": False},
}


def test_admission_review_round_trip_and_expected_from_response(tmp_path):
    first = admission_review.import_review(json.dumps(REVIEW))
    assert first["requests"][0]["name"] == "CREATE Pod default/a"
    assert first["requests"][0]["expected"] == {"allowed": False}
    same(first, through_project_file(first))
    # the engine reads the imported review: with no policy the pod is admitted, so the logged denial fails
    report = run_project(first, tmp_path / "p.yaml")
    assert [c.verdict for c in report.cases] == ["fail"]


def test_gallery_example_round_trips_through_every_file_format():
    example = project_files.read_project(
        (Path(__file__).resolve().parents[3] / "playground" / "examples" / "seed-vap-basic-deny.yaml").read_text()
    )
    same(example, through_project_file(example))
    bundle, _ = manifests.export_bundle(example)
    # a bundle without the marks (kubectl's own) is split by kind and named by its objects
    unmarked = "".join(line for line in bundle.splitlines(keepends=True) if not line.startswith(manifests.MARK))
    assert [d["name"] for d in manifests.import_bundle(unmarked)["documents"]] == [
        "validatingadmissionpolicy: demo-policy.example.com",
        "validatingadmissionpolicybinding: demo-binding-test.example.com",
        "namespace: default",
    ]


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_archives_refuse_path_traversal_links_and_bombs():
    with pytest.raises(FormatError, match="outside"):
        read_archive(_zip({"../evil.yaml": b"a: 1"}))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("link.yaml")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    with pytest.raises(FormatError, match="link"):
        read_archive(buffer.getvalue())
    with pytest.raises(FormatError, match="more than"):
        read_archive(_zip({f"f{i}.yaml": b"a: 1" for i in range(201)}))
    with pytest.raises(FormatError, match="not a zip or tar"):
        read_archive(b"plain bytes")


def test_yaml_alias_bombs_are_refused():
    bomb = "a: &a [x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefghijklmnopqrstuvwxy", "bcdefghijklmnopqrstuvwxyz")
    )
    with pytest.raises(FormatError, match="aliases"):
        manifests.import_bundle(bomb)


def _gallery(name: str) -> dict:
    root = Path(__file__).resolve().parents[3] / "playground" / "examples"
    return project_files.read_project((root / f"{name}.yaml").read_text())


@pytest.mark.parametrize("name", ["seed-vap-basic-deny", "map-default-team-label", "kyverno-disallow-latest-tag"])
def test_admission_review_export_is_the_webhook_exchange_and_round_trips(name, tmp_path):
    import evaluator

    example = _gallery(name)
    text, warnings = admission_review.export_reviews(example)
    assert warnings == []
    exported = json.loads(text)
    reviews = exported if isinstance(exported, list) else [exported]
    assert len(reviews) == len(example["requests"])
    texts = [d["text"] for d in example["documents"]]
    for review, request in zip(reviews, example["requests"]):
        assert (review["apiVersion"], review["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
        assert set(review) == {"apiVersion", "kind", "request", "response"}
        assert review["request"]["uid"] == review["response"]["uid"] and review["request"]["operation"]
        result = evaluator.simulate(texts, request["text"])
        assert review["response"]["allowed"] is result["allowed"]
        if not result["allowed"]:
            assert review["response"]["status"]["message"] == result["status"]["message"]
    # import: each review a request expecting its logged decision; with the documents they pass as tests
    imported = admission_review.import_review(text)
    assert [r["expected"] for r in imported["requests"]] == [{"allowed": r["response"]["allowed"]} for r in reviews]
    project = {**imported, "documents": example["documents"]}
    report = run_project(project, tmp_path / "p.yaml")
    assert report.passed and {c.verdict for c in report.cases} == {"pass"}, report.cases
    # and export → import is a fixed point: the same requests and expected outcomes
    again, _ = admission_review.export_reviews(through_project_file(project))
    same(imported, admission_review.import_review(again))


def test_admission_review_export_leaves_out_what_is_not_a_request():
    example = _gallery("seed-vap-basic-deny")
    broken = {**example, "requests": [*example["requests"], {"name": "junk", "text": "just: text\n"}]}
    text, warnings = admission_review.export_reviews(broken)
    assert len(warnings) == 1 and warnings[0].startswith("request 'junk' is not an admission request (")
    assert isinstance(json.loads(text), dict)  # the one usable request, as one review
    with pytest.raises(FormatError, match="no request of the project gives an AdmissionReview"):
        admission_review.export_reviews({**example, "requests": broken["requests"][-1:]})


def test_admission_review_export_uses_the_projects_kubernetes_version():
    example = {**_gallery("seed-vap-basic-deny"), "kubernetesVersion": "1.30"}
    first = json.loads(admission_review.export_reviews(example)[0])
    assert first["response"]["allowed"] is False
    with pytest.raises(FormatError, match="unsupported Kubernetes version"):
        admission_review.export_reviews({**example, "kubernetesVersion": "1.2"})


OPERATIONS_SUITE = {
    "kaptest.yaml": """\
version: v1alpha1
policies: [policies.yaml]
resources: [resources.yaml]
vapTestSuites:
- policy: protect
  tests:
  - {object: {kind: ConfigMap, name: plain}, expect: admit}
  - {oldObject: {kind: ConfigMap, name: keep}, expect: deny, deniedMessage: protected}
  - {oldObject: {kind: ConfigMap, name: plain}, expect: admit}
  - {object: {kind: ConfigMap, name: keep-v2}, oldObject: {kind: ConfigMap, name: keep}, expect: deny}
""",
    "policies.yaml": """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: protect}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}]
  validations:
  - {expression: "oldObject == null || oldObject.metadata.name != 'keep'", message: protected}
""",
    "resources.yaml": "\n---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: b}}\n"
        for name in ("plain", "keep", "keep-v2")
    ),
}


def test_kaptest_delete_and_update_cases_import_as_their_operations_and_round_trip(tmp_path):
    """A case naming only an `oldObject` is a DELETE, both an UPDATE (the import refused the whole suite:
    `test object None is not among the resources`)."""
    project = kaptest.import_suite(OPERATIONS_SUITE)
    requests = {r["name"]: r for r in project["requests"]}
    assert list(requests) == [
        "protect: ConfigMap plain",
        "protect: ConfigMap keep (DELETE)",
        "protect: ConfigMap plain (DELETE)",
        "protect: ConfigMap keep-v2 (UPDATE)",
    ]
    deleted = load_all(project["requests"][1]["text"])[0]
    assert deleted["kind"] == "AdmissionReview" and deleted["request"]["operation"] == "DELETE"
    assert deleted["request"]["oldObject"]["metadata"]["name"] == "keep" and "object" not in deleted["request"]
    updated = load_all(project["requests"][3]["text"])[0]["request"]
    assert (updated["operation"], updated["object"]["metadata"]["name"]) == ("UPDATE", "keep-v2")
    assert project["warnings"] == []
    report = run_project(project, tmp_path / "p.yaml")
    assert report.passed and [c.verdict for c in report.cases] == ["pass"] * 4, report.cases
    files, warnings = kaptest.export_suite(through_project_file(project))
    assert warnings == []
    tests = load_all(files["kaptest.yaml"])[0]["vapTestSuites"][0]["tests"]
    assert tests[1] == {
        "oldObject": {"kind": "ConfigMap", "name": "keep"},
        "expect": "deny",
        "deniedMessage": "protected",
    }
    assert tests[3] == {
        "object": {"kind": "ConfigMap", "name": "keep-v2"},
        "oldObject": {"kind": "ConfigMap", "name": "keep"},
        "expect": "deny",
    }
    same(project, kaptest.import_suite(files))


def test_a_kyverno_policies_folder_is_titled_by_its_policy_not_by_its_hidden_test_folder():
    """kyverno/policies keeps each test in `<policy>/.kyverno-test/`: every folder imported as
    `kyverno test: .kyverno-test`."""
    files = folder(DATA / "kyverno-test" / "disallow-jenkins-pipeline-strategy")
    assert ".kyverno-test/kyverno-test.yaml" in files
    test = load_all(files[".kyverno-test/kyverno-test.yaml"])[0]
    assert kyverno_test.import_folder(files)["title"] == f"kyverno test: {test['metadata']['name']}"
    nested = {f"disallow-jenkins-pipeline-strategy/{k}": v for k, v in files.items()}
    assert kyverno_test.import_folder(nested)["title"] == "kyverno test: disallow-jenkins-pipeline-strategy"


@pytest.mark.parametrize("name", KAPTEST)
def test_every_kaptest_expectation_the_project_does_not_reproduce_is_warned_about(name, tmp_path):
    """kaptest ignores matchConstraints: each expected denial whose request the policy's matchConstraints do
    not match is allowed in the project, and the import says so for exactly those cases."""
    project = kaptest.import_suite(folder(DATA / "kaptest" / name))
    report = run_project(project, tmp_path / "p.yaml")
    failing = {case.request for case in report.cases if case.verdict != "pass"}
    warned = {w.split(": kaptest ignores matchConstraints")[0] for w in project["warnings"] if "matchConstraints" in w}
    assert failing and warned == failing


def test_kaptest_import_warns_about_what_kaptest_gives_otherwise():
    """kaptest's request has no resource, is a dry run, and its authorizer allows everything: a policy that
    reads those is named; one whose matchConstraints match every case gets no warning."""
    files = folder(DATA / "kaptest" / "simple")
    policies = files["simple-policy.yaml"].replace('apiGroups: [""]', 'apiGroups: ["apps"]')
    policies = policies.replace(
        "object.spec.replicas <= 5",
        "object.spec.replicas <= 5 || request.dryRun || authorizer.group('').resource('pods').check('get').allowed()",
    )
    files["simple-policy.yaml"] = policies
    warnings = kaptest.import_suite(files)["warnings"]
    assert "simple-policy.test/kaptest.yaml: policy simple-policy: request.dryRun is true in kaptest" in warnings
    assert "simple-policy.test/kaptest.yaml: policy simple-policy: kaptest's authorizer allows every check" in warnings
    assert not [w for w in warnings if "matchConstraints" in w or "error-policy: request" in w]


def test_a_kyverno_test_export_writes_what_kyverno_test_computes_not_the_defaulted_decision():
    """kyverno/policies' imagepullpolicy-always: the API server defaults `imagePullPolicy: Always` for a
    `latest` image, so the playground passes the objects `kyverno test` fails (it applies no defaulting): the
    export wrote `pass` rows `kyverno test` disagrees with. They are written as `kyverno test` computes them,
    as the folder's own rows say, each with a warning naming the request."""
    from evaluator.cli.kyverno_test.export import export_folder

    root = DATA / "kyverno-test" / "imagepullpolicy-always"
    files = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.yaml")}
    project = kyverno_test.import_folder(files)
    playground_rows, _ = kyverno_test.export_folder(project)
    assert {r["result"] for r in load_all(playground_rows["kyverno-test.yaml"])[0]["results"]} == {"pass"}
    exported, warnings = export_folder(project)
    rows = {
        (row["rule"], resource): row["result"]
        for row in load_all(exported["kyverno-test.yaml"])[0]["results"]
        for resource in row["resources"]
    }
    assert rows == {
        ("autogen-imagepullpolicy-always", "mydeploy1"): "fail",
        ("autogen-imagepullpolicy-always", "mydeploy2"): "pass",
        ("imagepullpolicy-always", "myapp-pod-2"): "fail",
        ("imagepullpolicy-always", "myapp-pod-1"): "pass",
    }
    assert [w.split(": kyverno test gives")[0] for w in warnings] == [
        "request 'CREATE Deployment mydeploy1': policy imagepullpolicy-always, rule autogen-imagepullpolicy-always",
        "request 'CREATE Pod myapp-pod-2': policy imagepullpolicy-always, rule imagepullpolicy-always",
    ]
    assert all(w.endswith("where the playground gives pass: the row says fail") for w in warnings)


def test_same_named_requests_are_exported_as_test_documents_of_their_own(tmp_path):
    """kyverno test evaluates only the first of two resources alike in kind, namespace and name: the gallery's
    `web` with a latest and with a pinned image would both be checked against the first's result."""
    from evaluator.cli.kyverno_test import run_file
    from evaluator.cli.kyverno_test.export import export_folder

    project = _gallery("kyverno-disallow-latest-tag")
    names = [load_all(r["text"])[0]["metadata"]["name"] for r in project["requests"]]
    assert len(names) > len(set(names))
    files, warnings = export_folder(project)
    tests = load_all(files["kyverno-test.yaml"])
    assert len(tests) == max(names.count(n) for n in names)
    # only what rows cannot hold: `outcome: allowed` (no warning either) comes back as `allowed: true`
    assert [w.split(": its expected")[0] for w in warnings] == [f"request {r['name']!r}" for r in project["requests"]]
    assert all("comes back from the folder as {'allowed': " in w for w in warnings)
    for i, test in enumerate(tests):
        layer = [load_all(t) for t in [files[test["resources"][0]]]][0]
        assert len({o["metadata"]["name"] for o in layer}) == len(layer), i
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    report = run_file(tmp_path / "kyverno-test.yaml")
    assert report.passed and len(report.rows) >= 4, report.rows
    back = kyverno_test.import_folder(files)["requests"]  # every test document's resources come back, as typed
    assert sorted((r["name"], r["text"]) for r in back) == sorted((r["name"], r["text"]) for r in project["requests"])


def test_a_broken_mark_in_a_bundle_is_located():
    bundle = '# admission-playground: {"project": {"title": "t"}}\n---\n# admission-playground: {"document": x}\n'
    with pytest.raises(FormatError, match=r"^manifests.yaml:3: the admission-playground mark is not JSON$"):
        manifests.import_bundle(bundle)
    with pytest.raises(FormatError, match=r"^manifests.yaml:1: the admission-playground mark names no document"):
        manifests.import_bundle('# admission-playground: {"other": 1}\n')
