"""The kyverno-test.yaml runner and go-yaml-compatible loading."""

import textwrap

from evaluator.policies.kyverno.cli_test import format_reports, run_directory
from evaluator.policies.kyverno.yaml_io import load_all


def test_yaml_keeps_timestamps_and_sexagesimal_as_strings():
    [doc] = load_all("a: 2023-01-01\nb: 1:20\nc: 12\nd: 1.5\ne: yes\n")
    assert doc == {"a": "2023-01-01", "b": "1:20", "c": 12, "d": 1.5, "e": True}


def write(tmp_path, name, text):
    (tmp_path / name).write_text(textwrap.dedent(text))


def test_runner_applies_values_and_compares(tmp_path):
    write(tmp_path, "policy.yaml", """
        apiVersion: kyverno.io/v1
        kind: ClusterPolicy
        metadata: {name: require-team}
        spec:
          rules:
          - name: team
            match: {any: [{resources: {kinds: [Pod]}}]}
            context:
            - name: allowed
              apiCall: {urlPath: "/api/v1/namespaces/{{request.namespace}}", jmesPath: "metadata.labels.team"}
            validate:
              message: "team {{ request.object.metadata.labels.team }} is not {{ allowed }}"
              deny:
                conditions:
                  all: [{key: "{{ request.object.metadata.labels.team }}", operator: NotEquals, value: "{{ allowed }}"}]
        """)
    write(tmp_path, "resources.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: good, labels: {team: a}}
        spec: {containers: [{name: c, image: nginx}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: bad, labels: {team: b}}
        spec: {containers: [{name: c, image: nginx}]}
        """)
    write(tmp_path, "values.yaml", """
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Values
        policies:
        - name: require-team
          rules:
          - name: team
            values: {allowed: a}
        """)
    write(tmp_path, "kyverno-test.yaml", """
        apiVersion: cli.kyverno.io/v1alpha1
        kind: Test
        metadata: {name: t}
        policies: [policy.yaml]
        resources: [resources.yaml]
        variables: values.yaml
        results:
        - {policy: require-team, rule: team, kind: Pod, resources: [good], result: pass}
        - {policy: require-team, rule: team, kind: Pod, resources: [default/bad], result: fail}
        - {policy: require-team, rule: team, kind: Pod, resources: [bad], result: pass}
        """)
    [report] = run_directory(tmp_path)
    assert [r.ok for r in report.rows] == [True, True, False]
    assert report.rows[2].message == "team b is not a"
    text = format_reports([report])
    assert text.endswith("Test Summary: 2 out of 3 results passed")
