"""Round 7 of the full-result hot path, the ValidatingAdmissionPolicy kind: each shortcut gives what the longer
way gives (compared with it here)."""

from __future__ import annotations

import copy
import datetime as dt
import gc
import itertools
import json
import threading

import pytest

from evaluator.admission.matching import CompiledCriteria, _fields
from evaluator.policies.validating import dispatcher as vap_dispatcher
from evaluator.policies.validating.dispatcher import CompileCache, _outcome
from evaluator.policies.validating.kind import ValidatingAdmissionPolicies
from evaluator.policies.validating.lean import LeanTuple, _worst
from evaluator.simulation import Simulation
from tests.evaluator.test_hot_path import _deployment, _policy
from tests.evaluator.test_hot_path_plans import CLUSTER, LEAN_SHAPES, TRACED_SHAPES, _documents, spy_traced_records

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
ACTIONS = [["Deny"], ["Warn"], ["Audit"], ["Deny", "Audit"], ["Warn", "Audit"]]  # what the API server accepts


def _traced_documents() -> list[dict]:
    """Traceable policies under every set of actions (and one policy of two bindings), plus other shapes."""
    documents = copy.deepcopy(CLUSTER)
    for (name, spec), actions in itertools.product(TRACED_SHAPES, ACTIONS):
        documents += _documents(f"{name}-{'-'.join(actions).lower() or 'none'}", copy.deepcopy(spec), actions)
    two = _documents("two-bindings", {"validations": [{"expression": "object.spec.replicas < 4"}]}, ["Warn"])
    second = copy.deepcopy(two[1])
    second["metadata"]["name"], second["spec"]["validationActions"] = "two-bindings-deny", ["Deny"]
    documents += two + [second]
    for name, spec, param in LEAN_SHAPES:
        documents += _documents(f"other-{name}", copy.deepcopy(spec), ["Warn"], param)
    return documents


REQUESTS = [
    {"operation": "CREATE", "object": _deployment(name, replicas, namespace=namespace)}
    for name in ("api", "web-canary")
    for namespace in ("prod", "elsewhere")
    for replicas in (0, 5, 8)
] + [
    {"operation": "UPDATE", "object": _deployment("api", 2), "oldObject": _deployment("api", 9)},
    {"operation": "DELETE", "oldObject": _deployment("api", 9)},
]


def _results(documents: list[dict], **options) -> list[dict]:
    simulation = Simulation(documents)
    return [simulation.run(copy.deepcopy(request), now=NOW, **options) for request in REQUESTS]


def test_traced_records_are_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """A policy's traceable static bindings are written by `_dispatch_traced` from each LeanTuple's record
    template; with both shortcuts off every tuple takes `_dispatch_binding` and `validate`."""
    documents = _traced_documents()
    assert not [e for e in Simulation(documents).errors if e["severity"] == "error"]
    taken = spy_traced_records(monkeypatch)
    shortcut = _results(documents)
    monkeypatch.setattr(CompileCache, "traced_leans", lambda *args: None)
    monkeypatch.setattr(LeanTuple, "traced_record", lambda *args: None)
    general = _results(documents)
    assert json.dumps(shortcut) == json.dumps(general)
    assert True in taken and False in taken  # lean records, and fallbacks to the general path
    outcomes = {record["outcome"] for result in shortcut for record in result["policies"]}
    assert {"admitted", "denied", "warned", "audited", "error"} <= outcomes


def test_traced_records_share_nothing_with_each_other() -> None:
    """Every list and dict of a record is its own, though made from templates and shared match results."""
    results = _results(_traced_documents())
    seen: dict[int, object] = {}

    def walk(value: object) -> None:
        if isinstance(value, (dict, list)):
            assert id(value) not in seen, value
            seen[id(value)] = value
            for item in value.values() if isinstance(value, dict) else value:
                walk(item)

    for result in results:
        for record in result["policies"]:
            walk(record)


def test_the_failed_outcome_is_the_dispatchers_word_for_the_actions() -> None:
    words = {"Deny": "denied", "Audit": "audited", "Warn": "warned"}
    documents = _policy("p", {"validations": [{"expression": "false"}]})
    compiled = Simulation(documents)  # any compiled policy will do: the outcome depends on the actions only
    cache = next(k for k in compiled.kinds if isinstance(k, ValidatingAdmissionPolicies)).cache
    policy, bindings = cache.tuples.hooks()[0]
    for size in range(4):
        for actions in itertools.permutations(["Deny", "Audit", "Warn", "Unknown"], size):
            lean = LeanTuple(cache.get(policy), "p", "p-binding", list(actions), "p")
            expected = _outcome({words[a] for a in actions if a in words})
            assert lean.failed_outcome == expected == _worst({words[a] for a in actions if a in words})


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
        resource, kind = _fields(request.get("resource")), _fields(request.get("kind"))
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
    documents = _traced_documents()
    runs = [dict(trace=True), dict(trace=False, full=False), dict(trace=False), dict(trace=True, full=False)]
    simulation = Simulation(documents)
    kept = [simulation.run(copy.deepcopy(r), now=NOW, **o) for o in runs for r in REQUESTS]
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
    fresh = Simulation(documents)
    longer = [fresh.run(copy.deepcopy(r), now=NOW, **o) for o in runs for r in REQUESTS]
    assert json.dumps(kept) == json.dumps(longer)


def test_threads_sharing_a_simulation_each_get_their_own_dispatcher() -> None:
    """A kept Dispatcher holds a request's state while it runs: two threads running requests on one Simulation
    at once each use their own, and every answer is the one a lone run gives."""
    simulation = Simulation(_traced_documents())
    alone = [json.dumps(simulation.run(copy.deepcopy(r), now=NOW)) for r in REQUESTS]
    start = threading.Barrier(2)
    answers: dict[int, list[str]] = {}
    used: dict[int, int] = {}

    def run(index: int) -> None:
        start.wait()
        answers[index] = [json.dumps(simulation.run(copy.deepcopy(r), now=NOW)) for r in REQUESTS * 20]
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
    simulation = Simulation(_policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]}))
    requests = [{"operation": "CREATE", "object": _deployment(replicas=replicas)} for replicas in (1, 9)]
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
    simulation = Simulation(_traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    dispatcher = vap_dispatcher.Dispatcher(kind.cache.tuples.cluster, None, kind.cache)
    request = {"kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "object": _deployment()}
    dispatcher._views = None
    one, two = {"group": "apps"}, {"resource": "deployments"}
    first = dispatcher._inputs_for(request, one, two)
    other = dispatcher._inputs_for(request, two, one)
    assert dispatcher._inputs_for(request, one, two) is first is dispatcher._inputs[(id(one), id(two))]
    assert dispatcher._inputs_for(request, one, two) is first  # now from the last answer
    assert dispatcher._inputs_for(request, two, one) is other is not first


def test_static_match_is_resolve_statics_longer_condition() -> None:
    documents = _traced_documents() + _documents("params", {"validations": [{"expression": "true"}]}, ["Deny"], True)
    documents += [  # no matchConstraints: the general path words the error
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
    simulation = Simulation(documents)
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    flags = set()
    for policy, bindings in kind.cache.tuples.hooks():
        plan = kind.cache.tuples._plan(policy, bindings)
        longer = not (plan.static is None or plan.constraints is None or plan.skipped is not None or plan.config_error)
        assert plan.static_match == longer
        flags.add(longer)
    assert flags == {True, False}


def test_the_plain_activation_is_shared_activations() -> None:
    """Traced lean tuples without params or authorizer share one activation per request's inputs: the one
    `shared_activation` builds, with the same values (identical objects)."""
    from evaluator.policies.validating.validator import shared_activation

    simulation = Simulation(_traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    dispatcher = vap_dispatcher.Dispatcher(kind.cache.tuples.cluster, None, kind.cache)
    request = {"kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "object": _deployment()}
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


def test_programs_without_slots_share_no_mutable_slots() -> None:
    from evaluator.cel.program import compile_program

    assert compile_program("1 + 1 == 2").evaluate_plain({}) == (True, compile_program("1 + 1 == 2").evaluate({}).cost)
    comprehension = compile_program("[1, 2].all(x, [3].exists(y, x < y))")
    assert comprehension.evaluate_plain({})[0] is True
    assert comprehension.evaluate_plain({}) == (True, comprehension.evaluate({}).cost)


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
    plain = _policy("replicas", {"validations": [{"expression": "object.spec.replicas <= 5"}]})
    reading = _policy(
        "names",
        {
            "matchConditions": [{"name": "creates", "expression": "request.operation == 'CREATE'"}],
            "validations": [{"expression": "request.name == '' || object.spec.replicas < 9"}],
        },
    )
    results = {}
    for name, documents in (("plain", plain), ("reading", plain + reading)):
        made.clear()
        results[name] = _results(documents)
        assert bool(made) == (name == "reading")
    monkeypatch.setattr(
        vap_dispatcher.Dispatcher, "_request_views", lambda self, request: original(request)
    )  # the longer way: fresh views whenever asked
    assert json.dumps(_results(plain + reading)) == json.dumps(results["reading"])


def test_kept_hooks_are_the_clusters() -> None:
    simulation = Simulation(_traced_documents())
    kind = next(k for k in simulation.kinds if isinstance(k, ValidatingAdmissionPolicies))
    tuples = kind.cache.tuples
    assert tuples.hooks() is tuples.hooks() is tuples.cluster.hooks(tuples.policy_kind, tuples.binding_kind)
    assert [name for name in (p["metadata"]["name"] for p, _ in tuples.hooks())] == [
        d["metadata"]["name"] for d in _traced_documents() if d["kind"] == "ValidatingAdmissionPolicy"
    ]
