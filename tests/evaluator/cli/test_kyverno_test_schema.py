"""`kyverno-test` honours the Test schema as `kyverno test` does: `paramResources` are the params of admission
policies, a failure of a policy annotated `policies.kyverno.io/scored: "false"` is a warn, a row whose policy
file does not parse is an error (never a pass (Excluded)), and a row that needs the network is skipped with
the reason (never failed, never passed)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from evaluator.cli import main


def write(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (root / name).write_text(textwrap.dedent(content))
    return root


def run(capsys, path: Path) -> tuple[int, list[dict]]:
    status = main(["kyverno-test", "-o", "json", str(path)])
    report = json.loads(capsys.readouterr().out)
    return status, [row for file in report["files"] for row in file["rows"]]


TEST = """\
apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
"""

DEPLOYMENTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: small}
spec: {replicas: 2}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec: {replicas: 9}
"""


def test_param_resources_are_the_params_of_a_validating_admission_policy(tmp_path, capsys):
    path = write(
        tmp_path,
        **{
            "policy.yaml": """\
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata: {name: replicas}
            spec:
              paramKind: {apiVersion: v1, kind: ConfigMap}
              matchConstraints:
                resourceRules:
                - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
              validations:
              - {expression: "object.spec.replicas <= int(params.data.max)", message: too many}
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicyBinding
            metadata: {name: replicas}
            spec: {policyName: replicas, paramRef: {name: limits}}
            """,
            "params.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits}\ndata: {max: '5'}\n",
            "resources.yaml": DEPLOYMENTS,
            "kyverno-test.yaml": TEST
            + textwrap.dedent(
                """\
            policies: [policy.yaml]
            resources: [resources.yaml]
            paramResources: [params.yaml]
            results:
            - {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [big], result: fail}
            - {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [small], result: pass}
            """
            ),
        },
    )
    status, rows = run(capsys, path)
    assert [(r["resource"], r["actual"], r["status"]) for r in rows] == [("big", "fail", "ok"), ("small", "pass", "ok")]
    assert status == 0


UNSCORED = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: few-replicas
  annotations: {policies.kyverno.io/scored: "false"}
spec:
  rules:
  - name: replicas
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      failureAction: Enforce
      message: too many
      pattern: {spec: {replicas: "<=5"}}
"""


def test_a_failure_of_an_unscored_policy_is_a_warn(tmp_path, capsys):
    results = """\
    results:
    - {policy: few-replicas, rule: replicas, kind: Deployment, resources: [big], result: warn}
    - {policy: few-replicas, rule: replicas, kind: Deployment, resources: [small], result: pass}
    """
    test = TEST + "policies: [policy.yaml]\nresources: [resources.yaml]\n" + textwrap.dedent(results)
    path = write(tmp_path, **{"policy.yaml": UNSCORED, "resources.yaml": DEPLOYMENTS, "kyverno-test.yaml": test})
    status, rows = run(capsys, path)
    assert [(r["resource"], r["actual"], r["status"]) for r in rows] == [("big", "warn", "ok"), ("small", "pass", "ok")]
    assert status == 0
    (path / "policy.yaml").write_text(UNSCORED.replace('"false"', '"true"'))
    status, rows = run(capsys, path)
    assert (rows[0]["actual"], rows[0]["status"], status) == ("fail", "failed", 1)


def test_a_row_whose_policy_file_does_not_parse_is_an_error(tmp_path, capsys):
    broken = UNSCORED.replace("  rules:\n", "  rules:\n   - [\n")
    results = "results:\n- {policy: few-replicas, rule: replicas, kind: Deployment, resources: [big], result: fail}\n"
    test = TEST + "policies: [policy.yaml]\nresources: [resources.yaml]\n" + results
    path = write(tmp_path, **{"policy.yaml": broken, "resources.yaml": DEPLOYMENTS, "kyverno-test.yaml": test})
    status, rows = run(capsys, path)
    [row] = rows
    assert (row["status"], row["actual"]) == ("error", "error"), row
    assert row["message"].startswith(f"policy 'few-replicas' was not loaded: {path / 'policy.yaml'}:")
    assert "invalid YAML" in row["message"]
    assert status == 1


def test_rows_that_need_the_network_are_skipped_with_the_reason(tmp_path, capsys):
    policies = """\
    apiVersion: kyverno.io/v1
    kind: ClusterPolicy
    metadata: {name: registry-data}
    spec:
      rules:
      - name: non-root-image
        match: {any: [{resources: {kinds: [Pod]}}]}
        validate:
          failureAction: Enforce
          foreach:
          - list: request.object.spec.containers
            context:
            - name: imageData
              imageRegistry: {reference: "{{ element.image }}"}
            deny:
              conditions:
                all: [{key: "{{ imageData.configData.config.User || '' }}", operator: Equals, value: ""}]
    ---
    apiVersion: kyverno.io/v1
    kind: ClusterPolicy
    metadata: {name: signed}
    spec:
      rules:
      - name: signed-images
        match: {any: [{resources: {kinds: [Pod]}}]}
        verifyImages:
        - imageReferences: ["*"]
          attestors: [{entries: [{keys: {publicKeys: "-----BEGIN PUBLIC KEY-----"}}]}]
    """
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n"
    results = """\
    results:
    - {policy: registry-data, rule: non-root-image, kind: Pod, resources: [p], result: pass}
    - {policy: signed, rule: signed-images, kind: Pod, resources: [p], result: fail}
    """
    test = TEST + "policies: [policy.yaml]\nresources: [pod.yaml]\n" + textwrap.dedent(results)
    path = write(tmp_path, **{"policy.yaml": policies, "pod.yaml": pod, "kyverno-test.yaml": test})
    status, rows = run(capsys, path)
    assert [r["status"] for r in rows] == ["skipped", "skipped"]
    assert rows[0]["message"] == (
        "rule non-root-image reads image data from a registry (context entry imageData: imageRegistry): "
        "that needs the network, which kyverno-test does not use"
    )
    assert rows[1]["message"].startswith("rule signed-images verifies images in their registry (verifyImages)")
    values = (
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\npolicies:\n- name: registry-data\n  rules:\n"
        "  - name: non-root-image\n    foreachValues: {imageData: [{configData: {config: {User: '1000'}}}]}\n"
    )
    (path / "values.yaml").write_text(values)
    (path / "kyverno-test.yaml").write_text(test + "variables: values.yaml\n")
    status, rows = run(capsys, path)
    assert (rows[0]["status"], rows[0]["actual"]) == ("ok", "pass"), rows[0]  # supplied in values: offline
