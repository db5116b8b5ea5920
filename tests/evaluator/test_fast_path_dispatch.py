"""The ValidatingAdmissionPolicy shortcuts (a binding's LeanTuple: `decide` untraced, `traced_record` traced)
answer exactly as the general way (`validate` and the dispatcher's general path), which `shortcuts.off()`
runs alone: every key of every result, byte for byte as JSON."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import shortcuts
from evaluator.policies.validating.lean import LeanTuple
from evaluator.policies.validating.records import TupleForm
from evaluator.simulation import Simulation
from tests.evaluator.fast_path_fixtures import (
    ACTIONS,
    CLUSTER,
    LEAN_SHAPES,
    NOW,
    REQUESTS,
    TRACED_REQUESTS,
    TRACED_SHAPES,
    deployment,
    documents,
    policy,
    traced_documents,
)
from tests.golden.golden_cases import golden_cases, load_case


def _both_ways(docs: list[dict], requests: list[dict], **options) -> tuple[str, str]:
    """The results as JSON with the shortcuts on, and with them off (each on its own Simulation)."""
    fast = Simulation(docs)
    taken = [fast.run(copy.deepcopy(r), now=NOW, **options) for r in requests]
    with shortcuts.off():
        general = Simulation(docs)
        longer = [general.run(copy.deepcopy(r), now=NOW, **options) for r in requests]
    return json.dumps(taken), json.dumps(longer)


def _spy(monkeypatch: pytest.MonkeyPatch, method: str) -> list[tuple[str, bool]]:
    """(policy, whether the shortcut answered: not None nor False) for each call of LeanTuple.`method` from now
    on."""
    calls: list[tuple[str, bool]] = []
    original = getattr(LeanTuple, method)

    def spied(lean: LeanTuple, *args):  # type: ignore[no-untyped-def]
        answer = original(lean, *args)
        calls.append((lean.form.policy_name, answer is not None and answer is not False))
        return answer

    monkeypatch.setattr(LeanTuple, method, spied)
    return calls


def _lean_documents(actions: list[str]) -> list[dict]:
    docs = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        docs += documents(name, copy.deepcopy(spec), actions, param)
    return docs


@pytest.mark.parametrize("actions", [["Deny"], ["Warn", "Audit"], ["Deny", "Audit"]])
def test_untraced_lean_tuples_decide_as_the_general_way(actions: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _spy(monkeypatch, "decide")
    fast, general = _both_ways(_lean_documents(actions), REQUESTS, trace=False, full=False)
    assert fast == general
    outcomes = {record["outcome"] for result in json.loads(fast) for record in result["policies"]}
    assert {"skipped", "admitted"} <= outcomes and outcomes & {"denied", "warned"}
    assert {name for name, _ in calls} == {name for name, _, _ in LEAN_SHAPES}  # every shape took the shortcut
    assert (True in {answered for _, answered in calls}) and (False in {answered for _, answered in calls})


def test_policies_with_variables_are_decided_by_the_lean_tuple_until_a_variable_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each section evaluates the variables it names once, lazily; a variable that fails sends the tuple to the
    general way (which words the error), and only then."""
    docs = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        if name.startswith("variable"):
            docs += documents(name, copy.deepcopy(spec), ["Deny"], param)
    decided: list[tuple[str, int, bool]] = []
    original = LeanTuple.decide

    def watch(lean: LeanTuple, inputs, record, out, collector):  # type: ignore[no-untyped-def]
        answered = original(lean, inputs, record, out, collector)
        decided.append((lean.form.policy_name, inputs.object["spec"]["replicas"], answered))
        return answered

    monkeypatch.setattr(LeanTuple, "decide", watch)
    simulation = Simulation(docs)
    results = [simulation.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    assert ("variable-error", 2, False) in decided and ("variable-error", 5, True) in decided
    assert {answered for name, _, answered in decided if name == "variables"} == {True}
    outcomes = {(r["policy"], r["outcome"]) for result in results for r in result["policies"]}
    assert {("variables", "skipped"), ("variables", "denied"), ("variables", "admitted")} <= outcomes
    assert ("variable-error", "error") in outcomes


def test_traced_records_are_the_general_ways_under_every_set_of_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = traced_documents()
    assert not [e for e in Simulation(docs).errors if e["severity"] == "error"]
    calls = _spy(monkeypatch, "traced_record")
    fast, general = _both_ways(docs, TRACED_REQUESTS)
    assert fast == general
    assert {answered for _, answered in calls} == {True, False}  # shortcut records, and declined ones
    outcomes = {record["outcome"] for result in json.loads(fast) for record in result["policies"]}
    assert {"admitted", "denied", "warned", "audited", "error"} <= outcomes


def test_the_traced_shortcut_writes_the_general_ways_traces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anything unusual (an error, no such key, a budget) is declined; every trace row is the general way's."""
    docs = copy.deepcopy(CLUSTER)
    for name, spec in TRACED_SHAPES:
        docs += documents(name, copy.deepcopy(spec), ["Deny", "Audit"])
    for name, spec, param in LEAN_SHAPES:  # conditions, messageExpressions, auditAnnotations: the general way
        docs += documents(f"other-{name}", copy.deepcopy(spec), ["Warn"], param)
    calls = _spy(monkeypatch, "traced_record")
    fast, general = _both_ways(docs, REQUESTS)
    assert fast == general
    assert {answered for _, answered in calls} == {True, False}
    traces = [
        r["trace"] for result in json.loads(fast) for r in result["policies"] if r["policy"] == "reasons-and-values"
    ]
    assert {row["type"] for trace in traces for row in trace["validations"]} == {"bool"}


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_golden_results_are_the_same_without_shortcuts(path: Path) -> None:
    docs, pairs = load_case(path)
    requests = [request for request, _ in pairs]
    for options in ({}, {"trace": False, "full": False}):
        fast, general = _both_ways(docs, requests, **options)
        assert fast == general


def test_traced_records_share_nothing_with_each_other() -> None:
    """Every list and dict of a record is its own, though made from templates and shared match results."""
    simulation = Simulation(traced_documents())
    seen: set[int] = set()

    def walk(value: object) -> None:
        if isinstance(value, (dict, list)):
            assert id(value) not in seen, value
            seen.add(id(value))
            for item in value.values() if isinstance(value, dict) else value:
                walk(item)

    results = [simulation.run(copy.deepcopy(r), now=NOW) for r in TRACED_REQUESTS]
    for result in results:
        for record in result["policies"]:
            walk(record)


def _strongest_word(actions) -> str:
    """The outcome a failed validation should read, written out here apart from records.py."""
    return next(
        (w for a, w in (("Deny", "denied"), ("Warn", "warned"), ("Audit", "audited")) if a in actions), "admitted"
    )


def test_a_failed_validation_reads_the_strongest_word_of_its_actions() -> None:
    """denied, then warned, then audited; no known action: admitted (whatever the order of the actions)."""
    for size in range(4):
        for actions in itertools.permutations(["Deny", "Audit", "Warn", "Unknown"], size):
            assert TupleForm("p", "p-binding", list(actions), "p", "Fail").failed_outcome == _strongest_word(actions)
    for actions in ACTIONS:
        docs = policy("p", {"validations": [{"expression": "false"}]}, actions=tuple(actions))
        request = {"operation": "CREATE", "object": deployment()}
        fast, general = _both_ways(docs, [request])
        assert fast == general
        assert json.loads(fast)[0]["policies"][0]["outcome"] == _strongest_word(actions)


def test_the_audit_failures_annotation_is_the_standard_encoders_json_with_gos_escapes() -> None:
    standard = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    messages = ["".join(chr(i) for i in range(32, 160)), 'ünïcode \u2028 😀 " \\ / <b>&amp;', "lone \ud800 surrogate"]
    for message in messages:
        docs = policy("p", {"validations": [{"expression": "false", "message": message}]}, actions=("Audit",))
        fast, general = _both_ways(docs, [{"object": deployment()}])
        assert fast == general
        failures = [
            {
                "message": message.strip(),
                "policy": "p",
                "binding": "p-binding",
                "expressionIndex": 0,
                "validationActions": ["Audit"],
            }
        ]
        expected = standard.encode(failures)
        expected = expected.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        annotations = json.loads(fast)[0]["auditAnnotations"]
        assert annotations["validation.policy.admission.k8s.io/validation_failure"] == expected


# -- random policies and objects: the whole result is the same with and without the shortcuts ----------------

_VALIDATIONS = [
    {"expression": "object.spec.replicas <= 4"},
    {"expression": "object.spec.replicas <= 4", "message": "  too many  ", "reason": "Forbidden"},
    {"expression": "object.metadata.name.startsWith('a')"},
    {"expression": "object.spec.missing == 1"},
    {"expression": "object.spec.replicas / (object.spec.replicas - 2) > 0"},
    {"expression": "object.spec.replicas", "message": "not a bool"},
    {"expression": "false", "messageExpression": "'name ' + object.metadata.name"},
    {"expression": "false", "messageExpression": "' '", "message": "static"},
    {"expression": "false", "messageExpression": "string(object.spec.no)"},
    {"expression": "object.spec.replicas <= int(params.data.max)", "messageExpression": "'max ' + params.data.max"},
    {"expression": "variables.n < 3"},
    {"expression": "request.namespace != 'dev'"},
]
_CONDITIONS = [
    {"name": "not-dev", "expression": "object.metadata.namespace != 'dev'"},
    {"name": "broken", "expression": "object.spec.missing == 1"},
    {"name": "not-canary", "expression": "!object.metadata.name.endsWith('canary')"},
]
_ANNOTATIONS = [
    {"key": "many", "valueExpression": "object.spec.replicas > 4 ? ' many ' : ''"},
    {"key": "none", "valueExpression": "null"},
    {"key": "number", "valueExpression": "object.spec.replicas"},
    {"key": "error", "valueExpression": "string(object.spec.no)"},
]


@st.composite
def _policies(draw: st.DrawFn) -> list[dict]:
    docs = copy.deepcopy(CLUSTER)
    for index in range(draw(st.integers(1, 4))):
        validations = draw(st.lists(st.sampled_from(_VALIDATIONS), min_size=1, max_size=3))
        spec: dict = {"failurePolicy": draw(st.sampled_from(["Fail", "Ignore"])), "validations": validations}
        if any("variables." in v["expression"] for v in validations) or draw(st.booleans()):
            spec["variables"] = [{"name": "n", "expression": "object.spec.replicas"}]
        conditions = draw(st.lists(st.sampled_from(_CONDITIONS), max_size=2, unique_by=lambda c: c["name"]))
        if conditions:
            spec["matchConditions"] = conditions
        annotations = draw(st.lists(st.sampled_from(_ANNOTATIONS), max_size=2, unique_by=lambda a: a["key"]))
        if annotations:
            spec["auditAnnotations"] = annotations
        param = any("params." in v["expression"] for v in validations)
        docs += documents(f"p{index}", copy.deepcopy(spec), draw(st.sampled_from(ACTIONS)), param)
    return docs


_OBJECTS = st.builds(
    deployment,
    name=st.sampled_from(["api", "web-canary", "a"]),
    replicas=st.integers(-1, 8),
    namespace=st.sampled_from(["prod", "dev", "elsewhere"]),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=_policies(), objects=st.lists(_OBJECTS, min_size=1, max_size=3), trace=st.booleans())
def test_random_policies_and_objects_give_the_same_result_without_shortcuts(
    docs: list[dict], objects: list[dict], trace: bool
) -> None:
    requests = [{"operation": "CREATE", "object": obj} for obj in objects]
    requests += [{"operation": "UPDATE", "object": objects[0], "oldObject": objects[-1]}]
    options = {} if trace else {"trace": False, "full": False}
    fast, general = _both_ways(docs, requests, **options)
    assert fast == general
