"""Pieces the request path computes a cheaper way answer exactly as the standard way they replace: the
unchanged mutation output, the audit timestamp, JSON copies, the results' first denial and last patch, and
CEL's plain evaluation (select chains, programs without slots)."""

from __future__ import annotations

import copy
import datetime as dt
import json
import random

import pytest

from evaluator.admission import result
from evaluator.admission.audit import audit_event
from evaluator.admission.policy_kind import Denial, KindOutcome
from evaluator.k8s.defaulting.fields import clone
from evaluator.policies.mutating.admission import mutation_output, unchanged_output
from evaluator.policies.mutating.dispatcher import MutationResult


def test_the_audit_timestamp_is_isoformats_text() -> None:
    """metav1.MicroTime (`%Y-%m-%dT%H:%M:%S.%fZ`), whether the text up to the second was kept or not."""
    rng = random.Random(6)
    zones = [None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=-7, minutes=-30))]
    request = {"operation": "CREATE", "resource": {"resource": "pods", "version": "v1"}}
    for i in range(3000):
        moment = dt.datetime(
            rng.randint(1, 9999),
            rng.randint(1, 12),
            rng.randint(1, 28),
            rng.randint(0, 23),
            rng.randint(0, 59),
            rng.randint(0, 59),
            rng.choice([0, 1, 999_999, rng.randint(0, 999_999)]),
            tzinfo=zones[i % 3],
        )
        for value in (moment, moment.replace(microsecond=(moment.microsecond + 1) % 1_000_000)):
            expected = (
                value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                if value.year < 1000
                else value.isoformat(timespec="microseconds")[:26] + "Z"
            )
            event = audit_event(request, None, {}, value)
            assert event["requestReceivedTimestamp"] == event["stageTimestamp"] == expected


def _status(code: int) -> dict:
    return {"code": code, "reason": "Forbidden", "message": f"denied {code}"}


def test_the_result_reads_the_first_denial_in_chain_order_and_carries_the_patch_only_when_allowed() -> None:
    records = [{"outcome": o} for o in ("denied", "admitted", "denied", "mutated", "skipped")]
    expected = dict.fromkeys(result.OUTCOMES, 0)
    for record in records:
        expected[record["outcome"]] = expected.get(record["outcome"], 0) + 1
    assert list(result.summary(records).items()) == list(expected.items())
    assert result.summary([]) == dict.fromkeys(result.OUTCOMES, 0) and result.summary([]) is not result.summary([])
    first, second = Denial(_status(403)), Denial(_status(422))
    request = {"operation": "CREATE", "uid": "u", "resource": {"resource": "pods", "version": "v1"}}
    outcomes = [KindOutcome(), KindOutcome(denial=first), KindOutcome(denial=second)]
    for chosen in (outcomes, outcomes[:1], [], outcomes[::-1], [KindOutcome(), KindOutcome()]):
        for patch in ("p1", None):
            answer = result.admission_result(request, chosen, [], [], None, None, patch=patch)
            denial = next((o.denial for o in chosen if o.denial is not None), None)
            assert answer["statusObject"] is (None if denial is None else denial.status)
            response = answer["response"]["response"]
            assert response.get("patch") == (patch if denial is None else None)
            assert answer["mutationPhases"] == []


def test_unchanged_mutation_output_is_mutation_outputs():
    for original in (None, {"kind": "Deployment", "spec": {"replicas": 1}}):
        shortcut = unchanged_output(original)
        longer = mutation_output(MutationResult(original=original, object=original))
        assert list(shortcut) == list(longer)
        assert json.dumps(shortcut) == json.dumps(longer)
        assert shortcut["patchedObject"] is original
        assert unchanged_output(original)["patch"] is not shortcut["patch"]  # fresh lists per result


def test_clone_is_a_deep_copy_in_the_same_order():
    value = {
        "b": [1, {"y": [], "x": {"q": "r"}}, ["s", {"t": None}]],
        "a": {"c": {"d": [2.5, True]}},
        "e": "f",
    }
    copied = clone(value)
    assert copied == value == copy.deepcopy(value)
    assert json.dumps(copied) == json.dumps(value)

    def containers(node, found):
        if isinstance(node, (dict, list)):
            found.append(node)
            for child in node.values() if isinstance(node, dict) else node:
                containers(child, found)
        return found

    originals = {id(c) for c in containers(value, [])}
    assert not originals & {id(c) for c in containers(copied, [])}  # no container shared with the input


def test_clone_copies_json_data_as_the_recursive_copy_did() -> None:
    from evaluator.k8s.defaulting.fields import clone

    class Tagged(dict):
        pass

    shared = {"k": [1, {"deep": True}]}
    data = {"a": shared, "b": shared, "c": Tagged(x=Tagged(y=[Tagged(z=1)])), "d": ("t", {"u": 1}), "e": None}
    copied = clone(data)
    assert copied == data
    assert copied["a"] is not shared and copied["a"] is not copied["b"]  # shared parts are copied apart
    assert copied["a"]["k"][1] is not shared["k"][1]
    assert type(copied["c"]) is dict and type(copied["c"]["x"]) is dict and type(copied["c"]["x"]["y"][0]) is dict
    assert copied["d"] is data["d"]  # tuples (and other non-JSON values) are kept as they are
    copied["a"]["k"][1]["deep"] = False
    assert shared["k"][1]["deep"] is True


NESTED = {"object": {"spec": {"template": {"spec": {"replicas": 3}}}, "n": 1}}


@pytest.mark.parametrize(
    ("expression", "activation", "expected"),
    [
        # cel-go: the variable costs 1 and each select 1, also the select that fails
        ("object.spec.template.spec.replicas", NESTED, ("value", 3, 5)),
        ("object.spec.template.spec", NESTED, ("value", {"replicas": 3}, 4)),
        ("object.spec.missing.name", NESTED, ("error", "no such key: missing", 3)),
        ("object.spec.template.spec.replicas.name", NESTED, ("error", "no such key: name", 6)),
        ("object.spec.name", {"object": {"spec": None}}, ("error", "no such key: name", 3)),
        (
            "object.spec.items.name",
            {"object": {"spec": {"items": [1]}}},
            ("error", "unsupported index type 'string' in list", 4),
        ),
        ("object.spec.__namespace__", {"object": {"spec": {"namespace": "n"}}}, ("value", "n", 3)),
        # an optional step that finds nothing, and the steps after it, cost nothing; orValue is no call
        # (Kubernetes' celcoststability_test.go: `self.obj.?absentField == optional.none()` costs 4)
        ("object.?spec.name.orValue('none')", {"object": {}}, ("value", "none", 1)),
        ("object.?spec.template.spec.orValue(0)", NESTED, ("value", {"replicas": 3}, 4)),
        ("{'a': {'b': 2}}.a.b + object.n", NESTED, ("value", 3, 6)),  # a relative attribute: +1,
    ],
)
def test_select_chains_evaluate_and_cost_as_cel_go_counts(expression: str, activation: dict, expected: tuple) -> None:
    """A chain of selects runs as one closure over plain dicts, falling back to single steps at the first
    step that is not a present key of a plain dict: values, errors and costs as cel-go's, both entries."""
    from evaluator.cel import EvaluationError, compile_program

    program = compile_program(expression, declared=tuple(activation))
    try:
        evaluation = program.evaluate(activation)
        outcome: tuple = ("value", evaluation.value, evaluation.cost)
    except EvaluationError as exc:
        outcome = ("error", exc.message, exc.cost)
    assert outcome == expected
    plain = program.evaluate_plain(activation)
    assert plain == (None if expected[0] == "error" else expected[1:])


def test_programs_without_slots_share_no_mutable_slots() -> None:
    from evaluator.cel.program import compile_program

    assert compile_program("1 + 1 == 2").evaluate_plain({}) == (True, compile_program("1 + 1 == 2").evaluate({}).cost)
    comprehension = compile_program("[1, 2].all(x, [3].exists(y, x < y))")
    assert comprehension.evaluate_plain({})[0] is True
    assert comprehension.evaluate_plain({}) == (True, comprehension.evaluate({}).cost)
