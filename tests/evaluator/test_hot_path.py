"""The batch hot path: `Simulation.run(request, trace=False, full=False)` must decide exactly as a full run does,
and no result may share data with the caller's input or with another result.

Untraced runs evaluate validations directly and fall back to the general path on anything unusual (an error,
a budget, an unsupported value), so these tests compare both paths on the golden cases, the Kubernetes VAP
scenarios and policies written to hit each fallback.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest

from evaluator.simulation import Simulation, simulate_many
from tests.conformance.k8s_scenarios import api_validation_mode, defaulting_mode, load_scenarios
from tests.golden.golden_cases import golden_cases, load_case

DEPLOYMENTS = [
    {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}
]


NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _decisions(result: dict) -> dict:
    """What a batch reads of a result: everything but traces (and the hints found in them)."""
    records = [{k: v for k, v in r.items() if k not in ("trace", "hint")} for r in result["policies"]]
    keys = ("allowed", "status", "warnings", "auditAnnotations", "denials", "ferricel", "summary", "errors")
    return {"policies": records, **{k: result.get(k) for k in keys}}


def _same_decisions(simulation: Simulation, request: dict) -> None:
    full = simulation.run(copy.deepcopy(request))
    lean = simulation.run(copy.deepcopy(request), trace=False, full=False)
    assert _decisions(lean) == _decisions(full)
    assert all(r["trace"] is None for r in lean["policies"] if "trace" in r)


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_lean_run_decides_as_a_full_run_on_the_golden_cases(path: Path) -> None:
    documents, pairs = load_case(path)
    simulation = Simulation(documents)
    for request, _ in pairs:
        _same_decisions(simulation, request)


@pytest.mark.parametrize("scenario", load_scenarios(mutating=False), ids=lambda s: s["id"])
def test_lean_run_decides_as_a_full_run_on_the_kubernetes_scenarios(scenario: dict) -> None:
    simulation = Simulation(
        scenario["documents"],
        resource_registry=(scenario.get("context") or {}).get("resource_registry"),
        api_validation=api_validation_mode(scenario),
        defaulting=defaulting_mode(scenario),
    )
    _same_decisions(simulation, scenario["request"])


def _policy(name: str, spec: dict, *, actions: tuple[str, ...] = ("Deny",), failure: str = "Fail") -> list[dict]:
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"failurePolicy": failure, "matchConstraints": {"resourceRules": DEPLOYMENTS}, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": {"policyName": name, "validationActions": list(actions)},
        },
    ]


def _deployment(name: str = "web", replicas: int = 3, labels: dict | None = None, namespace: str = "default") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            },
        },
    }


# Each policy takes the general path for one reason (an error, a budget, a value), in both failure policies.
FALLBACKS = [
    ("runtime-error", {"validations": [{"expression": "object.spec.missing > 1"}]}),
    ("error-absorbed", {"validations": [{"expression": "object.spec.missing > 1 || true"}]}),
    ("compile-error", {"validations": [{"expression": "object.spec.replicas <"}]}),
    (
        "variable-error",
        {
            "variables": [{"name": "bad", "expression": "object.spec.missing"}],
            "validations": [{"expression": "variables.bad == 1"}],
        },
    ),
    (
        "variable-ok",
        {
            "variables": [{"name": "n", "expression": "object.spec.replicas"}],
            "validations": [
                {"expression": "variables.n < 2", "messageExpression": "'replicas: ' + string(variables.n)"}
            ],
        },
    ),
    (
        "message-error",
        {
            "validations": [
                {"expression": "false", "message": "fallback text", "messageExpression": "string(object.spec.no)"}
            ]
        },
    ),
    ("message-empty", {"validations": [{"expression": "false", "messageExpression": "' '"}]}),
    (
        "match-condition-error",
        {
            "matchConditions": [{"name": "broken", "expression": "object.spec.missing == 1"}],
            "validations": [{"expression": "true"}],
        },
    ),
    (
        "match-condition-false",
        {
            "matchConditions": [
                {"name": "first", "expression": "true"},
                {"name": "second", "expression": "object.metadata.name == 'other'"},
                {"name": "third", "expression": "false"},
            ],
            "validations": [{"expression": "false"}],
        },
    ),
    (
        "audit-values",
        {
            "validations": [{"expression": "true"}],
            "auditAnnotations": [
                {"key": "text", "valueExpression": "'  spaced  '"},
                {"key": "blank", "valueExpression": "'   '"},
                {"key": "none", "valueExpression": "null"},
                {"key": "number", "valueExpression": "object.spec.replicas > 100 ? 'many' : ''"},
            ],
        },
    ),
    (
        "audit-error",
        {
            "validations": [{"expression": "true"}],
            "auditAnnotations": [{"key": "k", "valueExpression": "string(object.spec.no)"}],
        },
    ),
    (
        "budget",
        {
            "validations": [
                {
                    "expression": "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
                    "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, a+b+c+d > 0))))"
                }
            ]
        },
    ),
]


@pytest.mark.parametrize("failure", ["Fail", "Ignore"])
@pytest.mark.parametrize("name,spec", FALLBACKS, ids=[name for name, _ in FALLBACKS])
def test_lean_run_falls_back_to_the_general_path_with_the_same_decision(name: str, spec: dict, failure: str) -> None:
    simulation = Simulation(_policy(name, spec, actions=("Deny", "Audit"), failure=failure))
    assert not [e for e in simulation.errors if e.get("severity") == "error" and name != "compile-error"]
    for replicas in (1, 3):
        _same_decisions(simulation, {"operation": "CREATE", "object": _deployment(replicas=replicas)})


def test_policies_sharing_match_constraints_are_matched_apart_where_they_differ() -> None:
    """Equal criteria are matched once per request; different ones (an objectSelector) each on their own."""
    documents = _policy("plain", {"validations": [{"expression": "false"}]}) + _policy(
        "selected",
        {
            "matchConstraints": {
                "resourceRules": DEPLOYMENTS,
                "objectSelector": {"matchLabels": {"tier": "db"}},
            },
            "validations": [{"expression": "false"}],
        },
    )
    simulation = Simulation(documents)
    web, db = _deployment("web"), _deployment("db", labels={"tier": "db"})
    outcomes = {
        n: [
            r["outcome"]
            for r in simulation.run({"operation": "CREATE", "object": o}, trace=False, full=False)["policies"]
        ]
        for n, o in (("web", web), ("db", db))
    }
    assert outcomes == {"web": ["denied", "skipped"], "db": ["denied", "denied"]}


def test_results_share_nothing_with_the_input_nor_with_each_other() -> None:
    documents = _policy("a", {"validations": [{"expression": "object.spec.replicas < 2"}]}) + _policy(
        "b", {"validations": [{"expression": "object.spec.replicas < 5"}]}
    )
    given = _deployment(replicas=3)
    pristine = copy.deepcopy(given)
    first, second = simulate_many(documents, [{"operation": "CREATE", "object": given}] * 2)
    json.dumps(first), json.dumps(second)  # JSON-serialisable as they are

    first["request"]["object"]["spec"]["replicas"] = 99
    first["request"]["object"]["metadata"]["labels"]["app"] = "changed"
    first["patchedObject"]["metadata"]["name"] = "changed"
    first["policies"][0]["matchedKind"]["kind"] = "Changed"
    first["policies"][0]["validationActions"].append("Warn")

    assert given == pristine
    assert second["request"]["object"]["spec"]["replicas"] == 3
    assert second["patchedObject"]["metadata"]["name"] == "web"
    assert second["request"]["object"]["metadata"]["labels"] == {"app": "web"}
    assert second["policies"][0]["matchedKind"]["kind"] == "Deployment"
    assert first["policies"][1]["matchedKind"]["kind"] == "Deployment"  # records of one result do not share
    assert second["policies"][0]["validationActions"] == ["Deny"]


def test_lean_results_share_nothing_with_the_input() -> None:
    simulation = Simulation(_policy("a", {"validations": [{"expression": "true"}]}))
    given = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}, "data": {}}
    pristine = copy.deepcopy(given)  # a ConfigMap has no defaults: no defaulting copy to rely on
    results = [simulation.run({"operation": "CREATE", "object": given}, trace=False, full=False) for _ in range(2)]
    results[0]["patchedObject"]["data"]["k"] = "v"
    assert given == pristine
    assert results[1]["patchedObject"] == pristine


def test_a_bound_mutating_policy_that_does_not_apply_leaves_no_patch() -> None:
    documents = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "label"},
            "spec": {
                "matchConstraints": {"resourceRules": DEPLOYMENTS},
                "matchConditions": [{"name": "never", "expression": "false"}],
                "reinvocationPolicy": "Never",
                "mutations": [
                    {
                        "patchType": "JSONPatch",
                        "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"},
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "label-binding"},
            "spec": {"policyName": "label"},
        },
    ]
    given = _deployment()
    pristine = copy.deepcopy(given)
    result = simulate_many(documents, [{"operation": "CREATE", "object": given}])[0]
    assert [r["outcome"] for r in result["policies"]] == ["skipped"]
    assert result["mutation"]["patch"] == [] and result["response"]["response"].get("patch") is None
    result["patchedObject"]["spec"]["replicas"] = 7
    assert given == pristine


# -- round 2: the cheaper pieces must answer exactly as the ones they replace -----------------------------


def test_the_request_uid_is_uuid5_of_the_sorted_json_request() -> None:
    """orjson's sorted compact JSON (keys that are not text written as text); what orjson refuses (a 100-bit
    integer, a lone surrogate) the standard encoder's sorted JSON, unsorted where keys of several types cannot
    be sorted. Equal requests, equal uids; different ones, different."""
    import datetime as dt
    import uuid

    import orjson

    from evaluator.admission.request import _UID_NAMESPACE, normalize_request

    uids = set()
    for obj in (
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ünïcode"}, "data": {"when": "</b>&"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"z": "1", "a": "2"}}},
    ):
        for extra, fallback in (
            ({}, False),
            ({"stamp": dt.date(2024, 2, 29), "n": 1.5}, False),
            ({"big": 10**30}, "sorted"),
            ({"keys": {1: "one", "b": "two"}}, False),
            ({"lone": "\ud800"}, "sorted"),
            ({"big": 10**30, "keys": {1: "one", "b": "two"}}, "unsorted"),
        ):
            request = normalize_request({"object": {**obj, **extra}}).request
            given = dict(request, uid="")  # as it was encoded: uid not yet set, in its place
            if fallback:
                text = json.dumps(given, sort_keys=fallback == "sorted", default=str)
            else:
                text = orjson.dumps(given, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
            assert request["uid"] == str(uuid.uuid5(_UID_NAMESPACE, text))
            assert normalize_request({"object": {**obj, **extra}}).request["uid"] == request["uid"]
            uids.add(request["uid"])
    assert len(uids) == 18


def test_the_audit_failures_json_is_the_standard_encoders_with_gos_escapes() -> None:
    from evaluator.policies.validating.dispatcher import _go_json

    standard = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    messages = ["".join(chr(i) for i in range(0, 160)), 'ünïcode \u2028 😀 " \\ / <b>&amp;', "lone \ud800 surrogate"]
    for message in messages:
        failures = [
            {"message": message, "policy": "p", "binding": "b", "expressionIndex": 3, "validationActions": ["Audit"]}
        ]
        expected = standard.encode(failures).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        assert _go_json(failures) == expected
    assert "\\u003cb\\u003e\\u0026amp;" in _go_json([messages[1]])


def test_an_object_with_keys_of_several_types_gets_an_answer_not_an_internal_error() -> None:
    """A Python caller may pass `{1: "a", "b": "c"}` (JSON and our YAML never do): its uid could not be sorted."""
    from evaluator import simulate

    data = {1: "a", "b": "c"}
    for big in (1, 10**30):  # orjson, then the standard encoder
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data, "n": big}
        result = simulate([], {"object": obj})
        assert (result["allowed"], result["status"], result["requestErrors"]) == (True, None, [])
        assert result["response"]["response"]["uid"] == simulate([], {"object": obj})["response"]["response"]["uid"]


def test_a_cyclic_request_is_refused_as_before() -> None:
    from evaluator.admission.request import normalize_request

    cyclic: dict = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "loop"}}
    cyclic["data"] = cyclic
    with pytest.raises(ValueError, match="Circular reference"):
        normalize_request({"object": cyclic})


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
        ("object.?spec.name.orValue('none')", {"object": {}}, ("value", "none", 4)),
        ("object.?spec.template.spec.orValue(0)", NESTED, ("value", {"replicas": 3}, 5)),
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


def test_static_bindings_are_shared_read_only_and_decide_per_request() -> None:
    docs = _policy("small", {"validations": [{"expression": "object.spec.replicas <= 2"}]})
    simulation = Simulation(docs)
    results = [
        simulation.run({"uid": str(n), "object": _deployment(f"d{n}", n)}, trace=False, full=False) for n in (1, 5, 2)
    ]
    assert [r["allowed"] for r in results] == [True, False, True]
    for result in results:
        result["policies"][0]["validationActions"].append("Changed")
    again = simulation.run({"uid": "x", "object": _deployment("d5", 5)}, trace=False, full=False)
    assert again["policies"][0]["validationActions"] == ["Deny"]


def _authorizer_run(policies: list[dict], monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict], int]:
    """(each policy record's status, lean and full) and how many times the authorizer values were built."""
    built = []
    original = Simulation._authorizers

    def counting(self, request):
        built.append(request)
        return original(self, request)

    monkeypatch.setattr(Simulation, "_authorizers", counting)
    simulation = Simulation(policies)
    request = {"operation": "CREATE", "object": _deployment()}
    _same_decisions(simulation, request)
    lean = simulation.run(copy.deepcopy(request), trace=False, full=False)
    return [(r["policy"], r["outcome"]) for r in lean["policies"]], len(built)


def test_authorizer_values_are_built_only_when_a_policy_names_authorizer(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _policy("plain", {"validations": [{"expression": "object.spec.replicas <= 5"}]})
    records, built = _authorizer_run(plain, monkeypatch)
    assert records == [("plain", "admitted")] and built == 0

    reads = _policy(
        "reads",
        {
            "variables": [{"name": "may", "expression": "authorizer.requestResource.check('delete').allowed()"}],
            "validations": [{"expression": "!variables.may", "message": "may delete"}],
        },
    )
    records, built = _authorizer_run(plain + reads, monkeypatch)
    assert records == [("plain", "admitted"), ("reads", "denied")] and built == 3  # full, lean, lean: once per request


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_skipping_idle_kinds_changes_no_result(path: Path) -> None:
    """Kinds with nothing to evaluate (no webhooks, CRDs, Kyverno policies) are left out of the chain; every
    result is the same as when every kind sees the request."""
    documents, pairs = load_case(path)
    simulation = Simulation(documents)
    assert len(simulation.chain) < len(simulation.kinds)
    for request, _ in pairs:
        skipped = simulation.run(copy.deepcopy(request), now=NOW)
        simulation.chain = simulation.kinds
        try:
            every = simulation.run(copy.deepcopy(request), now=NOW)
        finally:
            simulation.chain = [k for k in simulation.kinds if not getattr(k, "idle", False)]
        assert json.dumps(skipped, sort_keys=False) == json.dumps(every, sort_keys=False)
