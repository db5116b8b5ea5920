"""The compiled form of a JMESPath expression (`jmes.compiled`) answers exactly as the interpreter visits it:
the same value, or the same error, for every node kind, with keys missing where Kyverno swallows them and
where it does not."""

from __future__ import annotations

import pytest

from evaluator.policies.kyverno import jmes
from tests.shared_data import conformance_file, read_jsonl

DOCUMENTS = [
    {
        "request": {
            "operation": "CREATE",
            "object": {
                "metadata": {"name": "web", "labels": {"app": "x", "tier": ""}, "annotations": {}},
                "spec": {
                    "containers": [
                        {"name": "a", "image": "nginx:1", "securityContext": {"capabilities": {"add": ["NET_RAW"]}}},
                        {"name": "b", "image": "redis", "ports": [{"containerPort": 80}, {"containerPort": 0}]},
                        {"name": "c", "securityContext": None},
                    ],
                    "initContainers": [],
                    "volumes": [{"name": "v", "hostPath": {"path": "/"}}, {"name": "w", "emptyDir": {}}],
                    "replicas": 3,
                    "ratio": 0.5,
                    "flags": [True, False, None, 0, "", [], {}],
                    "nested": [[1, [2]], [3], 4, None],
                },
            },
        }
    },
    {"request": {"object": {"spec": {}}}},
    {"a": None, "b": [], "c": {}, "d": "", "e": 0, "f": False},
    [1, 2, {"a": 1}, [3, 4]],
    "text",
    None,
]

EXPRESSIONS = [
    "request.object.metadata.name",
    "request.object.metadata.annotations.team",
    "request.object.metadata.annotations.team || 'none'",
    "request.object.nothing.at.all",
    "request.object.spec.containers[].name",
    "request.object.spec.containers[].securityContext.capabilities.add[]",
    "request.object.spec.[ephemeralContainers, initContainers, containers][].securityContext.capabilities.add[]",
    "request.object.spec.containers[?name == 'a'].image",
    "request.object.spec.containers[?securityContext.capabilities.add].name",
    "request.object.spec.containers[?!image].name",
    "request.object.spec.containers[0].ports[1].containerPort",
    "request.object.spec.containers[5]",
    "request.object.spec.containers[-1].name",
    "request.object.spec.containers[*].ports[*].containerPort",
    "request.object.spec.containers[].ports[].containerPort | [0]",
    "request.object.spec.containers[1:].name",
    "request.object.spec.volumes[].keys(@)[]",
    "request.object.spec.volumes[].keys(@)[] || ''",
    "request.object.spec.volumes[?hostPath].hostPath.path",
    "request.object.metadata.labels.*",
    "request.object.metadata.labels.* | length(@)",
    "request.object.spec.nested[]",
    "request.object.spec.nested[][]",
    "request.object.spec.flags[?@]",
    "request.object.spec.flags[?!@]",
    "request.object.spec.replicas > `2`",
    "request.object.spec.replicas < 'a'",
    "request.object.spec.replicas == `3`",
    "request.object.spec.ratio != `0.5`",
    "request.object.spec.missing == null",
    "request.object.spec.missing > `1`",
    "request.object.spec.replicas && request.object.spec.missing",
    "request.object.spec.replicas && request.object.metadata.name",
    "request.object.spec.initContainers && request.object.spec.missing",
    "!request.object.spec.missing",
    "!request.object.spec.replicas",
    "!request.object.spec.flags[3]",
    "{name: request.object.metadata.name, team: request.object.metadata.labels.team}",
    "[request.object.metadata.name, request.object.missing.key]",
    "request.object.missing.{a: b}",
    "request.object.missing.[a, b]",
    "request.operation || 'BACKGROUND'",
    "request.object.metadata | name",
    "request.object.missing | @",
    "`[1, 2]` | [1]",
    "'literal'",
    "@",
    "*",
    "[*]",
    "[]",
    "a || b || c || d || e || f",
    "a && b",
    "length(request.object.spec.containers)",
    "length(request.object.missing)",
    "to_string(request.object.missing)",
    "sort_by(request.object.spec.containers, &name)[].name",
    "sort_by(request.object.spec.containers, &image)[].name",
    "max_by(request.object.spec.containers[].ports[], &containerPort).containerPort",
    "contains(request.object.spec.containers[].name, 'b')",
    "join(',', request.object.spec.containers[].name)",
    "to_upper(request.object.metadata.name)",
    "add(request.object.spec.replicas, `1`)",
    "not_a_function(`1`)",
    "length(`1`)",
    "[0]",
    "a.b.c",
    "e.f",
]


def _outcome(run, data):
    try:
        return "value", repr(run(data))
    except Exception as exc:  # the same error, of the same kind and words
        return "error", type(exc).__name__, str(exc)


def _conformance_cases():
    for case in read_jsonl(conformance_file("kyverno-jmespath", "cases.jsonl")):
        if "time_now" not in case["expression"]:  # the clock: two evaluations differ
            yield case["expression"], case.get("data", {})


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_compiled_expression_answers_as_the_interpreter(expression: str) -> None:
    parsed = jmes._compile(expression).parsed
    program = jmes.compiled(parsed)
    for data in DOCUMENTS:
        assert _outcome(program, data) == _outcome(lambda value: jmes._INTERPRETER.visit(parsed, value), data)


def test_kyvernos_own_expressions_compiled_answer_as_interpreted() -> None:
    compared = 0
    for expression, data in _conformance_cases():
        try:
            parsed = jmes._compile(expression).parsed
        except Exception:  # a syntax error: nothing to compile
            continue
        interpreted = _outcome(lambda value: jmes._INTERPRETER.visit(parsed, value), data)
        assert _outcome(jmes.compiled(parsed), data) == interpreted, expression
        compared += 1
    assert compared > 200
