"""The compiled form of a JMESPath expression (`jmes.compiled`, where Kyverno's rules live) answers as the
interpreter it replaced did: the same value, or the same error, for every node kind, with keys missing where
Kyverno swallows them and where it does not.

`jmespath_outcomes.json` holds, per expression, the outcome over each of DOCUMENTS as that interpreter gave
it (a jmespath `TreeInterpreter` with Kyverno's visit rules, in `jmes.py` up to `16ca2eb`), each checked
against the compiled form while both existed. A changed outcome is a changed rule: check it against Kyverno's
go-jmespath before recording it again. Kyverno's own expressions and values are `test_kyverno_jmespath.py`'s."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.policies.kyverno import jmes

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


OUTCOMES = json.loads((Path(__file__).parent / "jmespath_outcomes.json").read_text())


def _outcome(run, data) -> list:
    try:
        return ["value", repr(run(data))]
    except Exception as exc:  # the same error, of the same kind and words
        return ["error", type(exc).__name__, str(exc)]


def test_every_expression_has_its_recorded_outcomes() -> None:
    assert sorted(OUTCOMES) == sorted(EXPRESSIONS)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_compiled_expression_answers_as_recorded(expression: str) -> None:
    program = jmes.compiled(jmes._compile(expression).parsed)
    assert [_outcome(program, data) for data in DOCUMENTS] == OUTCOMES[expression]


def test_an_expression_reference_is_evaluated_by_the_compiled_form() -> None:
    """`sort_by`'s key expression comes back through the interpreter's `visit`: Kyverno's missing key there too."""
    data = DOCUMENTS[0]
    assert jmes.search("sort_by(request.object.spec.containers, &name)[].name", data) == ["a", "b", "c"]
    with pytest.raises(jmes.NotFoundError, match='Unknown key "image"'):
        jmes._INTERPRETER.visit(jmes._compile("image").parsed, {"name": "c"})
