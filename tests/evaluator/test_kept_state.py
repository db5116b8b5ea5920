"""What the engine keeps between requests (compiled plans, match answers by request key, params per
namespace, a Dispatcher per thread, activations and request values built once, idle kinds left out) changes no
answer: each test compares with a way that keeps nothing, and checks that the kept value is built only when
needed."""

from __future__ import annotations

import copy
import gc
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from evaluator.admission.matching import CompiledCriteria
from evaluator.policies.validating import dispatcher as vap_dispatcher
from evaluator.policies.validating.kind import ValidatingAdmissionPolicies
import evaluator.simulation as simulation_module
from evaluator.policies import load_kinds
from evaluator.simulation import Simulation
from tests.evaluator.fast_path_fixtures import (
    CLUSTER,
    DEPLOYMENT_RULE,
    NOW,
    REQUESTS,
    TRACED_REQUESTS,
    deployment,
    documents,
    policy,
    same_decisions,
    traced_documents,
)
from tests.golden.golden_cases import golden_cases, load_case

DEPLOYMENTS = DEPLOYMENT_RULE


def _mapping(value: Any) -> Any:
    """A kind or resource of the request as the matcher reads it (anything else: empty)."""
    return value if isinstance(value, dict) else {}


def _results(docs: list[dict], **options: Any) -> list[dict]:
    simulation = Simulation(docs)
    return [simulation.run(copy.deepcopy(request), now=NOW, **options) for request in TRACED_REQUESTS]


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
    docs = copy.deepcopy(CLUSTER) + documents(
        "limited", {"matchConstraints": constraints, "validations": [{"expression": "false"}]}, ["Deny"]
    )
    shared = Simulation(docs)
    requests = REQUESTS + [dict(REQUESTS[0], operation="UPDATE", oldObject=REQUESTS[0]["object"])]
    answers = set()
    for request in requests:
        kept = shared.run(copy.deepcopy(request), trace=False, full=False)
        fresh = Simulation(docs).run(copy.deepcopy(request), trace=False, full=False)
        assert kept["policies"] == fresh["policies"]
        answers.add(kept["policies"][0]["outcome"])
    cluster_scoped = constraints["resourceRules"][0].get("scope") == "Cluster"
    # (a namespaceSelector also reads the namespace: one that is not among the docs is an error)
    assert (
        answers == {"skipped"} if cluster_scoped else {"denied", "skipped"} <= answers <= {"denied", "skipped", "error"}
    )


def test_params_are_collected_per_request_namespace() -> None:
    docs = copy.deepcopy(CLUSTER) + documents(
        "param",
        {"validations": [{"expression": "object.spec.replicas <= int(params.data.max)"}]},
        ["Deny"],
        param=True,
    )
    simulation = Simulation(docs)
    outcomes = [
        (r["object"]["metadata"]["namespace"], r["object"]["spec"]["replicas"], result["policies"][0]["outcome"])
        for r in REQUESTS[:12]
        for result in [simulation.run(copy.deepcopy(r), trace=False, full=False)]
    ]
    assert (
        ("prod", 5, "denied") in outcomes and ("dev", 5, "admitted") in outcomes and ("dev", 8, "admitted") in outcomes
    )
    assert ("elsewhere", 8, "skipped") in outcomes  # no params there, parameterNotFoundAction Allow


def test_the_cel_request_value_is_built_only_when_a_policy_names_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluator.admission import activation

    built = []
    original = activation.cel_request
    monkeypatch.setattr(activation, "cel_request", lambda *args: built.append(1) or original(*args))
    plain = documents("plain", {"validations": [{"expression": "object.spec.replicas <= 4"}]}, ["Deny"])
    reads = documents(
        "reads",
        {"validations": [{"expression": "request.namespace != 'dev'", "message": "not in dev"}]},
        ["Deny"],
    )
    request = REQUESTS[6]  # api in dev, 5 replicas
    assert [r["outcome"] for r in Simulation(CLUSTER + plain).run(copy.deepcopy(request))["policies"]] == ["denied"]
    assert built == []
    outcomes = [r["outcome"] for r in Simulation(CLUSTER + plain + reads).run(copy.deepcopy(request))["policies"]]
    assert outcomes == ["denied", "denied"] and built == [1]  # once per request, shared by the policies


@pytest.mark.parametrize(
    "criteria",
    [
        {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"], "resources": ["*"]}]},
        {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "resourceNames": ["a"]}]},
        {
            "resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}],
            "excludeResourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "resourceNames": ["b"]}
            ],
        },
        {},
    ],
)
def test_request_key_with_the_kept_names_flag_is_the_longer_ways(criteria: dict) -> None:
    compiled = CompiledCriteria.of(criteria)
    assert compiled.reads_names == (
        any(rule.names for rule in compiled.rules) or any(rule.names for rule in compiled.exclude)
    )
    for request in [
        {
            "name": "a",
            "namespace": "ns",
            "operation": "CREATE",
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
        },
        {"name": "b", "operation": "DELETE", "resource": None, "kind": "not a mapping", "subResource": "status"},
        {},
    ]:
        resource, kind = _mapping(request.get("resource")), _mapping(request.get("kind"))
        longer = (
            str(resource.get("group") or ""),
            str(resource.get("version") or ""),
            str(resource.get("resource") or ""),
            str(kind.get("group") or ""),
            str(kind.get("version") or ""),
            str(kind.get("kind") or ""),
            request.get("subResource") or "",
            bool(request.get("namespace")),
            (request.get("name") or "") if compiled.reads_names else "",
            request.get("operation") or "",
        )
        assert compiled.request_key(request) == longer


def test_a_kept_dispatcher_answers_as_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kind keeps one Dispatcher per thread and trace setting (its per-request state emptied after each request, the
    authorizer factory dropped); a Dispatcher made for every request gives the same results."""
    docs = traced_documents()
    runs = [dict(trace=True), dict(trace=False, full=False), dict(trace=False), dict(trace=True, full=False)]
    simulation = Simulation(docs)
    kept = [simulation.run(copy.deepcopy(r), now=NOW, **o) for o in runs for r in TRACED_REQUESTS]
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    kept_here = kind._dispatchers.__dict__  # this thread's
    assert set(kept_here) == {True, False}
    for dispatcher in kept_here.values():
        assert dispatcher.authorizer_factory is None and dispatcher._views is None
        assert dispatcher._inputs == {} and dispatcher._match_memo == {} and dispatcher._last_inputs is None
    monkeypatch.setattr(
        ValidatingAdmissionPolicies,
        "_dispatcher",
        lambda self, trace: vap_dispatcher.Dispatcher(self.cache.tuples.cluster, None, self.cache, trace=trace),
    )
    fresh = Simulation(docs)
    longer = [fresh.run(copy.deepcopy(r), now=NOW, **o) for o in runs for r in TRACED_REQUESTS]
    assert json.dumps(kept) == json.dumps(longer)


def test_threads_sharing_a_simulation_each_get_their_own_dispatcher() -> None:
    """A kept Dispatcher holds a request's state while it runs: two threads running requests on one Simulation
    at once each use their own, and every answer is the one a lone run gives."""
    simulation = Simulation(traced_documents())
    alone = [json.dumps(simulation.run(copy.deepcopy(r), now=NOW)) for r in TRACED_REQUESTS]
    start = threading.Barrier(2)
    answers: dict[int, list[str]] = {}
    used: dict[int, int] = {}

    def run(index: int) -> None:
        start.wait()
        answers[index] = [json.dumps(simulation.run(copy.deepcopy(r), now=NOW)) for r in TRACED_REQUESTS * 20]
        kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
        used[index] = id(kind._dispatchers.__dict__[True])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers[0] == answers[1] == alone * 20
    assert used[0] != used[1]


def test_a_request_through_a_kept_dispatcher_leaves_no_cyclic_garbage() -> None:
    simulation = Simulation(policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]}))
    requests = [{"operation": "CREATE", "object": deployment(replicas=replicas)} for replicas in (1, 9)]
    simulation.run(requests[0])
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        results = [simulation.run(request, trace=trace) for request in requests for trace in (True, False)]
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
    assert [r["allowed"] for r in results] == [True, True, False, False]


def test_inputs_of_the_last_match_are_the_kept_inputs() -> None:
    """`_inputs_for` answers a repeated (kind, resource) from its last answer: the same Inputs as its dict."""
    simulation = Simulation(traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    dispatcher = vap_dispatcher.Dispatcher(kind.cache.tuples.cluster, None, kind.cache)
    request = {"kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "object": deployment()}
    dispatcher._views = None
    one, two = {"group": "apps"}, {"resource": "deployments"}
    first = dispatcher._inputs_for(request, one, two)
    other = dispatcher._inputs_for(request, two, one)
    assert dispatcher._inputs_for(request, one, two) is first is dispatcher._inputs[(id(one), id(two))]
    assert dispatcher._inputs_for(request, one, two) is first  # now from the last answer
    assert dispatcher._inputs_for(request, two, one) is other is not first


def test_static_match_is_resolve_statics_longer_condition() -> None:
    docs = traced_documents() + documents("params", {"validations": [{"expression": "true"}]}, ["Deny"], True)
    docs += [  # no matchConstraints: the general path words the error
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "unconstrained"},
            "spec": {"validations": [{"expression": "true"}]},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "unconstrained-binding"},
            "spec": {"policyName": "unconstrained", "validationActions": ["Deny"]},
        },
    ]
    simulation = Simulation(docs)
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    flags = set()
    for hook, bindings in kind.cache.tuples.hooks():
        plan = kind.cache.tuples._plan(hook, bindings)
        longer = not (plan.static is None or plan.constraints is None or plan.skipped is not None or plan.config_error)
        assert plan.static_match == longer
        flags.add(longer)
    assert flags == {True, False}


def test_the_plain_activation_is_shared_activations() -> None:
    """Traced lean tuples without params or authorizer share one activation per request's inputs: the one
    `shared_activation` builds, with the same values (identical objects)."""
    from evaluator.policies.validating.validator import shared_activation

    simulation = Simulation(traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    dispatcher = vap_dispatcher.Dispatcher(kind.cache.tuples.cluster, None, kind.cache)
    request = {"kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "object": deployment()}
    dispatcher._views = None
    inputs = dispatcher._inputs_for(request, request["kind"], {"group": "apps", "resource": "deployments"})
    leans = [kind.cache.binding_meta(p, b[0]).lean for p, b in kind.cache.tuples.hooks()]
    plain = [lean for lean in leans if lean is not None and lean.traceable and lean.plain]
    assert len(plain) > 1
    activation = plain[0]._plain_activation(inputs)
    assert all(lean._plain_activation(inputs) is activation for lean in plain)
    longer = shared_activation(plain[0].compiled, inputs, False, inputs.request, inputs.namespace_object)
    assert activation.keys() == longer.keys()
    assert all(activation[key] is longer[key] for key in longer)


def test_request_views_are_made_only_for_a_policy_that_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CEL `request` values (RequestViews) are made on first use: not at all when no policy names `request`
    nor has matchConditions; the results are those of views made for every request."""
    from evaluator.admission import activation

    made: list[object] = []
    original = activation.RequestViews

    def counted(request):
        made.append(request)
        return original(request)

    monkeypatch.setattr(activation, "RequestViews", counted)
    plain = policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]})
    reading = policy(
        "names",
        {
            "matchConditions": [{"name": "creates", "expression": "request.operation == 'CREATE'"}],
            "validations": [{"expression": "request.name == '' || object.spec.replicas < 9"}],
        },
    )
    results = {}
    for name, docs in (("plain", plain), ("reading", plain + reading)):
        made.clear()
        results[name] = _results(docs)
        assert bool(made) == (name == "reading")
    monkeypatch.setattr(
        vap_dispatcher.Dispatcher, "_request_views", lambda self, request: original(request)
    )  # the longer way: fresh views whenever asked
    assert json.dumps(_results(plain + reading)) == json.dumps(results["reading"])


def test_kept_hooks_are_the_clusters() -> None:
    simulation = Simulation(traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    tuples = kind.cache.tuples
    assert tuples.hooks() is tuples.hooks() is tuples.cluster.hooks(tuples.policy_kind, tuples.binding_kind)
    assert [name for name in (p["metadata"]["name"] for p, _ in tuples.hooks())] == [
        d["metadata"]["name"] for d in traced_documents() if d["kind"] == "ValidatingAdmissionPolicy"
    ]


def test_static_bindings_are_shared_read_only_and_decide_per_request() -> None:
    docs = policy("small", {"validations": [{"expression": "object.spec.replicas <= 2"}]})
    simulation = Simulation(docs)
    results = [
        simulation.run({"uid": str(n), "object": deployment(f"d{n}", n)}, trace=False, full=False) for n in (1, 5, 2)
    ]
    assert [r["allowed"] for r in results] == [True, False, True]
    for result in results:
        result["policies"][0]["validationActions"].append("Changed")
    again = simulation.run({"uid": "x", "object": deployment("d5", 5)}, trace=False, full=False)
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
    request = {"operation": "CREATE", "object": deployment()}
    same_decisions(simulation, request)
    lean = simulation.run(copy.deepcopy(request), trace=False, full=False)
    return [(r["policy"], r["outcome"]) for r in lean["policies"]], len(built)


def test_authorizer_values_are_built_only_when_a_policy_names_authorizer(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = policy("plain", {"validations": [{"expression": "object.spec.replicas <= 5"}]})
    records, built = _authorizer_run(plain, monkeypatch)
    assert records == [("plain", "admitted")] and built == 0

    reads = policy(
        "reads",
        {
            "variables": [{"name": "may", "expression": "authorizer.requestResource.check('delete').allowed()"}],
            "validations": [{"expression": "!variables.may", "message": "may delete"}],
        },
    )
    records, built = _authorizer_run(plain + reads, monkeypatch)
    assert records == [("plain", "admitted"), ("reads", "denied")] and built == 3  # full, lean, lean: once per request


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_skipping_idle_kinds_changes_no_result(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kinds with nothing to evaluate (no webhooks, CRDs, Kyverno policies) are left out of the chain; every
    result is the same as when every kind sees the request. (Every kind is loaded here: by default the kinds
    whose documents are absent are not even imported, tests/evaluator/test_lazy_kinds.py.)"""
    every_kind = load_kinds()
    monkeypatch.setattr(simulation_module, "load_kinds", lambda documents=None: every_kind)
    docs, pairs = load_case(path)
    simulation = Simulation(docs)
    assert len(simulation.chain) < len(simulation.kinds)
    for request, _ in pairs:
        skipped = simulation.run(copy.deepcopy(request), now=NOW)
        simulation.chain = simulation.kinds
        try:
            every = simulation.run(copy.deepcopy(request), now=NOW)
        finally:
            simulation.chain = [k for k in simulation.kinds if not getattr(k, "idle", False)]
        assert json.dumps(skipped, sort_keys=False) == json.dumps(every, sort_keys=False)


def test_a_request_leaves_no_cyclic_garbage():
    simulation = Simulation(policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]}))
    requests = [{"operation": "CREATE", "object": deployment(replicas=replicas)} for replicas in (1, 9)]
    simulation.run(requests[0])  # warm: compiled programs, match answers
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        results = [simulation.run(request) for request in requests * 3]
        assert gc.collect() == 0  # everything a request made and dropped was freed by reference counting
    finally:
        if enabled:
            gc.enable()
    assert [r["allowed"] for r in results] == [True, False] * 3
