"""What the batch hot path keeps between requests must not change any answer: lean tuples (evaluated straight
into their record), match answers kept by request key for criteria that read no labels, and params collected
once per (binding, namespace). Each test compares against a path that keeps nothing."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest

import evaluator.policies.validating.dispatcher as vap_dispatcher
from evaluator.policies.validating.lean import LeanTuple
from evaluator.simulation import Simulation
from tests.evaluator.test_hot_path import _deployment
from tests.golden.golden_cases import golden_cases, load_case

DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"]}


def _documents(name: str, spec: dict, actions: list[str], param: bool = False) -> list[dict]:
    constraints = spec.pop("matchConstraints", {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}]})
    binding: dict = {"policyName": name, "validationActions": actions}
    if param:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
        binding["paramRef"] = {"name": "limits", "parameterNotFoundAction": "Allow"}
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"matchConstraints": constraints, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": binding,
        },
    ]


CLUSTER = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod", "labels": {"env": "prod"}}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"env": "dev"}}},
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "limits", "namespace": "prod"},
        "data": {"max": "3"},
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "dev"}, "data": {"max": "9"}},
]

LEAN_SHAPES = [
    ("static", {"validations": [{"expression": "object.spec.replicas <= 4", "message": "too many"}]}, False),
    (
        "two-validations",
        {
            "validations": [
                {"expression": "object.spec.replicas <= 6", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('a')"},
            ]
        },
        False,
    ),
    (
        "conditions",
        {
            "matchConditions": [
                {"name": "not-dev", "expression": "object.metadata.namespace != 'dev'"},
                {"name": "not-canary", "expression": "!object.metadata.name.endsWith('canary')"},
            ],
            "validations": [{"expression": "object.spec.replicas <= 2"}],
        },
        False,
    ),
    (
        "message-expression",
        {
            "validations": [
                {
                    "expression": "object.spec.replicas <= int(params.data.max)",
                    "messageExpression": "'at most ' + params.data.max + ' replicas'",
                },
                {"expression": "object.spec.replicas > 0", "messageExpression": "'  '", "message": "static"},
            ]
        },
        True,
    ),
    (
        "audit-annotations",
        {
            "validations": [{"expression": "object.spec.replicas < 7"}],
            "auditAnnotations": [
                {"key": "many", "valueExpression": "object.spec.replicas > 4 ? ' many replicas ' : ''"},
                {"key": "blank", "valueExpression": "'  '"},
                {"key": "name", "valueExpression": "string(object.metadata.name)"},
            ],
        },
        False,
    ),
    (
        "variables",
        {
            "variables": [
                {"name": "max", "expression": "object.metadata.namespace == 'prod' ? 3 : 6"},
                {"name": "name", "expression": "object.metadata.name"},
            ],
            "matchConditions": [{"name": "not-canary", "expression": "!variables.name.endsWith('canary')"}],
            "validations": [
                {
                    "expression": "object.spec.replicas <= variables.max",
                    "messageExpression": "'at most ' + string(variables.max) + ' for ' + variables.name",
                }
            ],
            "auditAnnotations": [{"key": "max", "valueExpression": "string(variables.max)"}],
        },
        False,
    ),
    (
        "variable-error",  # replicas 2: a division by zero, which the general path words
        {
            "variables": [{"name": "ratio", "expression": "10 / (object.spec.replicas - 2)"}],
            "validations": [{"expression": "variables.ratio < 4", "message": "too few"}],
        },
        False,
    ),
]


REQUESTS = [
    {
        "uid": f"{name}-{namespace}-{replicas}",
        "operation": "CREATE",
        "object": _deployment(name, replicas, namespace=namespace),
    }
    for name in ("api", "web-canary")
    for namespace in ("prod", "dev", "elsewhere")
    for replicas in (0, 2, 5, 8)
]


def _lean_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vap_dispatcher, "lean_tuple", lambda *args: None)


@pytest.mark.parametrize("actions", [["Deny"], ["Warn", "Audit"], ["Deny", "Audit"]])
def test_lean_tuples_give_the_general_paths_results(actions: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    documents = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        documents += _documents(name, copy.deepcopy(spec), actions, param)
    lean = Simulation(documents)
    lean_results = [lean.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    _lean_off(monkeypatch)
    general = Simulation(documents)
    general_results = [general.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    assert json.dumps(lean_results) == json.dumps(general_results)
    outcomes = {record["outcome"] for result in lean_results for record in result["policies"]}
    assert {"skipped", "admitted"} <= outcomes and outcomes & {"denied", "warned"}


def test_every_lean_shape_is_taken_by_the_lean_path() -> None:
    documents = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        documents += _documents(name, copy.deepcopy(spec), ["Deny"], param)
    simulation = Simulation(documents)
    simulation.run(copy.deepcopy(REQUESTS[0]), trace=False, full=False)
    kind = simulation.chain[-1]
    assert len(kind.cache._bindings) == len(LEAN_SHAPES)
    assert all(meta.lean is not None for meta in kind.cache._bindings.values())


@pytest.mark.parametrize(
    "constraints",
    [
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "resourceNames": ["api"]}]},
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "scope": "Cluster"}]},
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "operations": ["UPDATE"]}]},
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["*"]}],
            "excludeResourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "resourceNames": ["web-canary"]}],
        },
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}],
            "namespaceSelector": {"matchLabels": {"env": "prod"}},
        },
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}],
            "objectSelector": {"matchLabels": {"app": "api"}},
        },
    ],
)
def test_kept_match_answers_are_those_of_a_fresh_match(constraints: dict) -> None:
    """One simulation for every request (answers kept by request key) against a new one per request."""
    documents = copy.deepcopy(CLUSTER) + _documents(
        "limited", {"matchConstraints": constraints, "validations": [{"expression": "false"}]}, ["Deny"]
    )
    shared = Simulation(documents)
    requests = REQUESTS + [dict(REQUESTS[0], operation="UPDATE", oldObject=REQUESTS[0]["object"])]
    answers = set()
    for request in requests:
        kept = shared.run(copy.deepcopy(request), trace=False, full=False)
        fresh = Simulation(documents).run(copy.deepcopy(request), trace=False, full=False)
        assert kept["policies"] == fresh["policies"]
        answers.add(kept["policies"][0]["outcome"])
    cluster_scoped = constraints["resourceRules"][0].get("scope") == "Cluster"
    # (a namespaceSelector also reads the namespace: one that is not among the documents is an error)
    assert (
        answers == {"skipped"} if cluster_scoped else {"denied", "skipped"} <= answers <= {"denied", "skipped", "error"}
    )


def test_params_are_collected_per_request_namespace() -> None:
    documents = copy.deepcopy(CLUSTER) + _documents(
        "param",
        {"validations": [{"expression": "object.spec.replicas <= int(params.data.max)"}]},
        ["Deny"],
        param=True,
    )
    simulation = Simulation(documents)
    outcomes = [
        (r["object"]["metadata"]["namespace"], r["object"]["spec"]["replicas"], result["policies"][0]["outcome"])
        for r in REQUESTS[:12]
        for result in [simulation.run(copy.deepcopy(r), trace=False, full=False)]
    ]
    assert (
        ("prod", 5, "denied") in outcomes and ("dev", 5, "admitted") in outcomes and ("dev", 8, "admitted") in outcomes
    )
    assert ("elsewhere", 8, "skipped") in outcomes  # no params there, parameterNotFoundAction Allow


# -- round 5: the traced shortcut and the remembered request inference -----------------------------------

TRACED_SHAPES = [
    ("static", {"validations": [{"expression": "object.spec.replicas <= 4", "message": "  too many  "}]}),
    (
        "reasons-and-values",
        {
            "validations": [
                {"expression": "object.spec.replicas <= 6", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('a')"},
                {"expression": "object.spec.?paused.orValue(false) == false"},
            ]
        },
    ),
    ("erroring", {"validations": [{"expression": "object.spec.replicas / 0 == 1"}]}),
    ("missing-field", {"validations": [{"expression": "object.spec.missing == 1"}]}),
    ("over-budget", {"validations": [{"expression": "[1, 2, 3].all(x, [1, 2].all(y, x * y < 100))"}]}),
]


def spy_traced_records(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each `LeanTuple.traced_record` call from now on, whether the shortcut answered (it did not decline)."""
    taken: list[bool] = []
    original = LeanTuple.traced_record

    def traced_record(*args):
        record = original(*args)
        taken.append(record is not None)
        return record

    monkeypatch.setattr(LeanTuple, "traced_record", traced_record)
    return taken


def _traced_shortcut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LeanTuple, "traced_record", lambda *args: None)


def test_the_traced_shortcut_writes_the_general_paths_traces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Policies of validations with static messages are traced by their LeanTuple, straight from the plain
    evaluation; anything else (an error, no such key, a value that is not a bool) falls back, as other shapes
    do. Every key of every result is the general path's."""
    documents = copy.deepcopy(CLUSTER)
    for name, spec in TRACED_SHAPES:
        documents += _documents(name, copy.deepcopy(spec), ["Deny", "Audit"])
    for name, spec, param in LEAN_SHAPES:  # conditions, messageExpressions, auditAnnotations: the general path
        documents += _documents(f"other-{name}", copy.deepcopy(spec), ["Warn"], param)
    taken = spy_traced_records(monkeypatch)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    shortcut = [Simulation(documents).run(copy.deepcopy(r), now=now) for r in REQUESTS]
    _traced_shortcut_off(monkeypatch)
    general = [Simulation(documents).run(copy.deepcopy(r), now=now) for r in REQUESTS]
    assert json.dumps(shortcut) == json.dumps(general)
    assert True in taken and False in taken  # both ways were taken
    traces = [r["trace"] for result in shortcut for r in result["policies"] if r["policy"] == "reasons-and-values"]
    assert {row["type"] for trace in traces for row in trace["validations"]} == {"bool"}


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_the_traced_shortcut_changes_no_golden_result(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    documents, pairs = load_case(path)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    shortcut = [Simulation(documents).run(copy.deepcopy(request), now=now) for request, _ in pairs]
    _traced_shortcut_off(monkeypatch)
    general = [Simulation(documents).run(copy.deepcopy(request), now=now) for request, _ in pairs]
    assert json.dumps(shortcut) == json.dumps(general)


@pytest.mark.parametrize(
    "request_",
    [
        {"operation": "CREATE", "object": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}},
        {"object": {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}},  # unknown kind
        {"object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, "subResource": "nope"},
        {"object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}},
        {"object": {"apiVersion": "not/a/version", "kind": "Pod", "metadata": {"name": "p"}}},  # an error: not kept
        {"object": {"apiVersion": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"}},
    ],
)
def test_remembered_request_inference_answers_as_a_fresh_one(request_: dict) -> None:
    """The second request of a kind takes the mapping's remembered answer: the same request, inferred names,
    warnings and errors as a mapping that has seen nothing."""
    from evaluator.admission.request import normalize_request
    from evaluator.k8s.restmapping import RESTMapper, builtin_mapper

    def fresh() -> RESTMapper:
        return RESTMapper(list(builtin_mapper().entries))

    shared = fresh()
    first = normalize_request(copy.deepcopy(request_), shared)
    second = normalize_request(copy.deepcopy(request_), shared)
    alone = normalize_request(copy.deepcopy(request_), fresh())
    for out in (first, second):
        assert (out.request, out.inferred, out.warnings, [e.to_dict() for e in out.errors]) == (
            alone.request,
            alone.inferred,
            alone.warnings,
            [e.to_dict() for e in alone.errors],
        )
    kept = [key for key in shared.memo if key[0] == "request-kind"]
    assert bool(kept) == (not alone.errors and "resource" not in request_)


def test_the_cel_request_value_is_built_only_when_a_policy_names_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluator.admission import activation

    built = []
    original = activation.cel_request
    monkeypatch.setattr(activation, "cel_request", lambda *args: built.append(1) or original(*args))
    plain = _documents("plain", {"validations": [{"expression": "object.spec.replicas <= 4"}]}, ["Deny"])
    reads = _documents(
        "reads",
        {"validations": [{"expression": "request.namespace != 'dev'", "message": "not in dev"}]},
        ["Deny"],
    )
    request = REQUESTS[6]  # api in dev, 5 replicas
    assert [r["outcome"] for r in Simulation(CLUSTER + plain).run(copy.deepcopy(request))["policies"]] == ["denied"]
    assert built == []
    outcomes = [r["outcome"] for r in Simulation(CLUSTER + plain + reads).run(copy.deepcopy(request))["policies"]]
    assert outcomes == ["denied", "denied"] and built == [1]  # once per request, shared by the policies


def test_policies_with_variables_are_decided_by_the_lean_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each section evaluates the variables it names once, lazily; a variable that fails sends the tuple to the
    general path (which words the error), and only then."""
    documents = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        if name.startswith("variable"):
            documents += _documents(name, copy.deepcopy(spec), ["Deny"], param)
    decided: list[tuple[str, int, bool]] = []
    original = LeanTuple.decide

    def watch(lean: LeanTuple, inputs, record, out, denial):  # type: ignore[no-untyped-def]
        published = original(lean, inputs, record, out, denial)
        decided.append((lean.policy_name, inputs.object["spec"]["replicas"], published is not None))
        return published

    monkeypatch.setattr(LeanTuple, "decide", watch)
    simulation = Simulation(documents)
    results = [simulation.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    assert ("variable-error", 2, False) in decided and ("variable-error", 5, True) in decided
    assert {lean for name, replicas, lean in decided if name == "variables"} == {True}
    outcomes = {(r["policy"], r["outcome"]) for result in results for r in result["policies"]}
    assert {("variables", "skipped"), ("variables", "denied"), ("variables", "admitted")} <= outcomes
    assert ("variable-error", "error") in outcomes
