"""The contract others use: `evaluator.typecheck(policy, documents)` and the shape of its result."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.typechecking import typecheck

from .helpers import policy


def test_evaluator_typecheck_stays_callable_after_the_package_is_imported():
    import evaluator.typechecking.policy  # noqa: F401  (binds the package as evaluator.typecheck)

    result = evaluator.typecheck(policy("object.replicas > 1"))
    assert result["status"]["typeChecking"]["expressionWarnings"][0]["fieldRef"] == "spec.validations[0].expression"


def test_result_shape():
    result = typecheck(policy("object.replicas > 1"), [])
    assert set(result) == {"status", "typesChecked", "typesMatched", "diagnostics", "schemaSource"}
    for entry in result["diagnostics"]:
        assert {"fieldRef", "severity", "code", "message", "line", "column", "origin", "types"} <= set(entry)
        assert entry["origin"] in ("server", "playground")


def test_repeated_calls_give_equal_results():
    p = policy(
        {"expression": "object.spec.replicas > 'x'", "messageExpression": "object.nope"},
        variables=[{"name": "v", "expression": "object.spec.replicas"}],
    )
    assert typecheck(p) == typecheck(p)


_PIECES = st.sampled_from(
    [
        "object",
        "oldObject",
        "params",
        "request",
        "variables",
        "authorizer",
        "namespaceObject",
        ".",
        ".?",
        "spec",
        "metadata",
        "replicas",
        "[",
        "]",
        "(",
        ")",
        "0",
        "'a'",
        "+",
        "==",
        "&&",
        "?",
        ":",
        "all(x, ",
        "x",
        "has(",
        "{",
        "}",
        ",",
        " ",
        "null",
        "`a-b`",
        "\t",
        "é",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.booleans())
def test_any_expression_text_gives_data_not_exceptions(expression, with_params):
    extra = {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}} if with_params else {}
    p = policy(
        {"expression": expression, "messageExpression": expression},
        variables=[{"name": "v", "expression": expression}],
        **extra,
    )
    result = typecheck(p)
    for w in result["status"]["typeChecking"].get("expressionWarnings", []):
        assert w["warning"].startswith("apps/v1, Kind=Deployment: ") and w["warning"].endswith("\n")
    for d in result["diagnostics"]:
        assert "internal error" not in d["message"], d
