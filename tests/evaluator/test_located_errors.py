"""Located errors: an expression error is reported at the line and column of the offending character in the
text the user typed, for every YAML scalar style (issue 14). Line numbers below count from the top of
HEADER + the case's text; the expected character is asserted as well as its position."""

from __future__ import annotations

import pytest

from evaluator import simulate

HEADER = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
"""  # 12 lines: the case's first line is line 13
BINDING = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: p
  validationActions: [Deny]
"""
REQUEST = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 3},
}


def errors_at(text: str, path: str) -> list[dict]:
    result = simulate(text, REQUEST)
    return [e for e in result["errors"] if e.get("path") == path and e.get("severity") == "error"]


def char_at(text: str, line: int, column: int) -> str:
    return text.split("\n")[line - 1][column - 1]


# (name, the lines after HEADER, field path, line, column, the character there)
COMPILE_CASES = [
    (
        "plain, syntax",
        ["  validations:", "  - expression: object.spec.replicas <= )"],
        "spec.validations[0].expression",
        14,
        41,
        ")",
    ),
    (
        "single-quoted with '' escapes, type",
        ["  validations:", "  - expression: 'object.metadata.name == ''a'' + 1'"],
        "spec.validations[0].expression",
        14,
        48,
        "+",
    ),
    (
        "double-quoted with escapes, type",
        ["  validations:", '  - expression: "object.metadata.name == \\"x\\" && \\u0021 1"'],
        "spec.validations[0].expression",
        14,
        51,
        "\\",
    ),
    (
        "double-quoted, escaped line break",
        ["  validations:", '  - expression: "object.spec.replicas > 1 &&\\', '      size(1) > 0"'],
        "spec.validations[0].expression",
        15,
        11,
        "(",
    ),
    (
        "plain over three lines with a blank one",
        [
            "  validations:",
            "  - expression: object.spec.replicas > 1 &&",
            "      object.spec.replicas <",
            "",
            "      size(1) > 0 # note",
        ],
        "spec.validations[0].expression",
        17,
        11,
        "(",
    ),
    (
        "literal |",
        [
            "  validations:",
            "  - expression: |",
            "      object.spec.replicas > 1 &&",
            "      object.spec.replicas < 10 &&",
            "      size(1) > 0",
        ],
        "spec.validations[0].expression",
        17,
        11,
        "(",
    ),
    (
        "folded >- with a more-indented line",
        [
            "  validations:",
            "  - expression: >-",
            "      object.spec.replicas > 1 &&",
            "",
            "      object.spec.replicas < 10 &&",
            "        size(1) > 0",
            "    message: hi",
        ],
        "spec.validations[0].expression",
        18,
        13,
        "(",
    ),
    (
        "literal |2+ (indentation and keep indicators)",
        [
            "  validations:",
            "  - expression: |2+",
            "        object.spec.replicas > 1 &&",
            "      size(1) > 0",
            "",
            "    message: hi",
        ],
        "spec.validations[0].expression",
        16,
        11,
        "(",
    ),
    (
        "literal |- with a syntax error on its third line",
        [
            "  validations:",
            "  - expression: |-",
            "      has(object.spec) &&",
            "      object.spec.replicas >= 1 &&",
            "      object.spec.replicas <= 5 5",
        ],
        "spec.validations[0].expression",
        17,
        33,
        "5",
    ),
    (
        "flow mapping, end of input",
        ["  validations:", '  - {expression: "1 +", message: m}'],
        "spec.validations[0].expression",
        14,
        22,
        '"',
    ),
    (
        "flow sequence of flow mappings",
        ["  validations: [{expression: 'true'}, {expression: size(1) == 1}]"],
        "spec.validations[1].expression",
        13,
        56,
        "(",
    ),
    (
        "messageExpression",
        ["  validations:", "  - expression: 'true'", "    messageExpression: \"'n: ' + 1\""],
        "spec.validations[0].messageExpression",
        15,
        31,
        "+",
    ),
    (
        "matchCondition",
        [
            "  matchConditions:",
            "  - name: m",
            "    expression: >",
            "      1 +",
            "      == 2",
            "  validations:",
            "  - expression: 'true'",
        ],
        "spec.matchConditions[0].expression",
        17,
        7,
        "=",
    ),
    (
        "variable",
        [
            "  variables:",
            "  - name: v",
            '    expression: "object.spec.replicas +"',
            "  validations:",
            "  - expression: 'true'",
        ],
        "spec.variables[0].expression",
        15,
        40,
        '"',
    ),
    (
        "auditAnnotation",
        [
            "  validations:",
            "  - expression: 'true'",
            "  auditAnnotations:",
            "  - key: k",
            "    valueExpression: |",
            "      'a' +",
            "      2",
        ],
        "spec.auditAnnotations[0].valueExpression",
        18,
        11,
        "+",
    ),
    (
        "constant regex",
        ["  validations:", "  - expression: \"'x'.matches('[')\""],
        "spec.validations[0].expression",
        14,
        30,
        "'",
    ),
]


@pytest.mark.parametrize(
    "lines, path, line, column, char", [c[1:] for c in COMPILE_CASES], ids=[c[0] for c in COMPILE_CASES]
)
def test_compile_error_is_at_its_character(lines, path, line, column, char):
    text = HEADER + "\n".join(lines) + "\n" + BINDING
    found = errors_at(text, path)
    assert found, f"no error at {path}"
    error = found[0]
    assert (error["line"], error["column"]) == (line, column), error["message"]
    assert char_at(text, line, column) == char
    assert error["endLine"] >= line and error["endColumn"] > column or error["endLine"] > line


def test_the_span_covers_the_offending_token():
    text = HEADER + "  validations:\n  - expression: object.spec.replicas <= foo bar\n" + BINDING
    error = errors_at(text, "spec.validations[0].expression")[0]
    assert (error["line"], error["column"], error["endLine"], error["endColumn"]) == (14, 45, 14, 48)
    assert char_at(text, 14, 45) == "b"


def test_a_later_document_keeps_its_own_line_numbers():
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
        + HEADER
        + "  validations:\n  - expression: object.spec.replicas <= )\n"
        + BINDING
    )
    error = errors_at(text, "spec.validations[0].expression")[0]
    assert (error["line"], error["column"], error["document"]) == (18, 41, 1)


def test_line_17_syntax_error_is_on_line_17():
    """The issue's own report: a syntax error typed on line 17 was marked on line 1."""
    lines = [
        "  validations:",
        "  - expression: object.spec.replicas > 0",
        "    message: a",
        "  - expression: object.spec.replicas < 100",
        "  - expression: object.spec.replicas !! 3",
    ]
    text = HEADER + "\n".join(lines) + "\n" + BINDING
    error = errors_at(text, "spec.validations[2].expression")[0]
    assert (error["line"], error["column"]) == (17, 38)
    assert text.split("\n")[16][37:39] == "!!"


def test_runtime_errors_in_the_trace_are_located_with_a_hint():
    lines = [
        "  variables:",
        "  - name: v",
        "    expression: object.spec.nope",
        "  validations:",
        "  - expression: >-",
        "      object.spec.replicas >",
        "        object.spec.foo",
        "    messageExpression: \"'x' + string(object.spec.zzz)\"",
    ]
    text = HEADER + "\n".join(lines) + "\n" + BINDING.replace("[Deny]", "[Warn]")
    result = simulate(text, REQUEST)
    trace = result["policies"][0]["trace"]
    validation = trace["validations"][0]
    assert validation["error"].endswith("no such key: foo")
    assert {k: validation["location"][k] for k in ("line", "column", "path")} == {
        "line": 18,
        "column": 7,
        "path": "spec.validations[0].expression",
    }
    assert validation["hint"] == "the object has no spec.foo; guard it with has(object.spec.foo)"
    message = trace["messageExpressions"][0]
    assert (message["location"]["line"], message["location"]["column"]) == (20, 25)


def test_map_compile_errors_are_located():
    text = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{replicas: 1 +}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    result = simulate(text, REQUEST, api_validation="report")
    found = [e for e in result["errors"] if e.get("path") == "spec.mutations[0].applyConfiguration.expression"]
    assert found
    assert (found[0]["line"], found[0]["column"]) == (13, 47)
    assert char_at(text, 13, 47) == "}"


def test_objects_have_no_text_so_errors_say_so_and_never_claim_line_1():
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["deployments"],
                    }
                ]
            },
            "validations": [{"expression": "1 +"}],
        },
    }
    result = simulate([policy], REQUEST)
    found = [e for e in result["errors"] if e.get("path") == "spec.validations[0].expression"]
    assert found and found[0]["line"] is None and found[0]["located"] is False
    assert "column" not in found[0] or found[0]["column"] is None


def test_a_binding_of_an_invalid_policy_points_at_the_policy_error():
    text = HEADER + "  validations:\n  - expression: object.spec.replicas <= )\n" + BINDING
    result = simulate(text, REQUEST)
    binding = [e for e in result["errors"] if e.get("kind") == "ValidatingAdmissionPolicyBinding"]
    assert len(binding) == 1
    assert "not found" not in binding[0]["message"]
    assert binding[0]["message"] == (
        'ValidatingAdmissionPolicy "p" is invalid, so the binding has no effect: see its '
        "error at line 14, column 41 (spec.validations[0].expression)"
    )
    assert binding[0]["policyError"] == {
        "document": 0,
        "line": 14,
        "column": 41,
        "path": "spec.validations[0].expression",
    }


KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: replicas
spec:
  validationFailureAction: Enforce
  rules:
  - name: limit
    match:
      any:
      - resources:
          kinds: [Deployment]
    celPreconditions:
    - name: pre
      expression: "object.metadata.name != 1 +"
    validate:
      cel:
        expressions:
        - expression: object.spec.replicas <= 'five'
        - expression: >-
            object.spec.replicas <=
              5 &&)
  - name: labels
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      message: "pod {{ request.object.metadata.[name }} has no team"
      pattern:
        metadata:
          labels:
            team: "?*"
"""


def test_kyverno_cel_and_jmespath_errors_are_located():
    from evaluator.simulation import Simulation

    simulation = Simulation(KYVERNO)
    found = {e["path"]: e for e in simulation.errors if e.get("path")}
    pre = found["spec.rules[0].celPreconditions[0].expression"]
    assert (pre["line"], pre["column"]) == (15, 47)  # just after the dangling "+"
    syntax = found["spec.rules[0].validate.cel.expressions[1].expression"]
    assert (syntax["line"], syntax["column"]) == (22, 19) and char_at(KYVERNO, 22, 19) == ")"
    jmes = found["spec.rules[1].validate.message"]
    assert (jmes["line"], jmes["column"]) == (29, 53)
    assert jmes["message"].startswith("invalid JMESPath in {{ request.object.metadata.[name }}: SyntaxError")
    # The type checker types validate.cel against the matched kind's schema (Deployment: replicas is an int).
    report = simulation.type_checks()["ClusterPolicy/replicas"]
    typed = [
        d for d in report["diagnostics"] if d.get("fieldRef") == "spec.rules[0].validate.cel.expressions[0].expression"
    ]
    assert typed and "'_<=_' applied to '(int, string)'" in typed[0]["message"]
    assert (typed[0]["location"]["line"], typed[0]["location"]["column"]) == (19, 44)
    assert char_at(KYVERNO, 19, 44) == "<"
    assert report["typesChecked"] == [{"group": "apps", "version": "v1", "kind": "Deployment"}]


def test_map_runtime_errors_in_the_trace_are_located():
    text = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  matchConditions:
  - name: c
    expression: object.spec.nope == 1
  reinvocationPolicy: Never
  failurePolicy: Ignore
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{}"}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    result = simulate(text, REQUEST)
    row = result["policies"][0]["trace"]["matchConditions"][0]
    assert row["error"].endswith("no such key: nope")
    assert (row["location"]["line"], row["location"]["column"], row["location"]["path"]) == (
        10,
        17,
        "spec.matchConditions[0].expression",
    )
    assert row["hint"] == "the object has no spec.nope; guard it with has(object.spec.nope)"
