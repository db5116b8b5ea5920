"""Kubernetes' authorizer library: builders, checks as AuthzRequests, decisions, errors and selectors."""

from __future__ import annotations

import pytest

from evaluator.cel import CELError
from evaluator.cel.errors import CELEvalError
from evaluator.cel.library import authz as A
from evaluator.cel.library.authz_selectors import Requirement, parse_field_selector, parse_label_selector
from evaluator.cel.registry import REGISTRY
from evaluator.cel.values import type_name
from tests.evaluator.cel.library.helpers import run


class Recorder:
    """A `check` callable that answers from a table and records what it was asked."""

    def __init__(self, decision: str = "allow", reason: str = "ok", error: str | None = None):
        self.requests: list[A.AuthzRequest] = []
        self.answer = A.AuthzDecision(decision, reason, error)

    def __call__(self, request: A.AuthzRequest) -> A.AuthzDecision:
        self.requests.append(request)
        return self.answer


def make(decision: str = "allow", **kw) -> tuple[A.Authorizer, Recorder]:
    rec = Recorder(decision, **kw)
    return A.Authorizer(rec, user="alice", groups=("dev",), extra={"scopes": ("a",)}, uid="u1"), rec


def test_resource_check_request():
    authz, rec = make()
    expr = (
        "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns')"
        ".name('web').check('update')"
    )
    decision = run(expr, authorizer=authz)
    assert type_name(decision) == "kubernetes.authorization.Decision"
    (req,) = rec.requests
    assert (req.user, req.groups, req.uid, dict(req.extra)) == ("alice", ("dev",), "u1", {"scopes": ("a",)})
    assert (req.verb, req.group, req.version, req.resource, req.subresource, req.namespace, req.name) == (
        "update",
        "apps",
        "*",
        "deployments",
        "scale",
        "ns",
        "web",
    )
    assert req.resource_request and req.path == ""


def test_path_check_and_decision_accessors():
    authz, rec = make("deny", reason="no rule", error=None)
    assert run("authorizer.path('/healthz').check('get').allowed()", authorizer=authz) is False
    assert run("authorizer.path('/healthz').check('get').reason()", authorizer=authz) == "no rule"
    assert run("authorizer.path('/healthz').check('get').errored()", authorizer=authz) is False
    assert run("authorizer.path('/healthz').check('get').error()", authorizer=authz) == ""
    req = rec.requests[0]
    assert req.path == "/healthz" and req.verb == "get" and not req.resource_request and req.resource == ""


def test_errored_decision_and_failing_authorizer():
    authz, _ = make("no-opinion", reason="", error="webhook down")
    assert run("authorizer.group('').resource('pods').check('get').error()", authorizer=authz) == "webhook down"

    def broken(_):
        raise RuntimeError("boom")

    decision = A.resource_check(A.group_resource(A.authorizer_group(A.Authorizer(broken), ""), "pods"), "get")
    assert A.decision_errored(decision) and A.decision_error(decision) == "boom" and not A.decision_allowed(decision)


def test_service_account_changes_the_user():
    authz, rec = make()
    run(
        "authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('list')", authorizer=authz
    )
    req = rec.requests[0]
    assert req.user == "system:serviceaccount:kube-system:builder"
    assert req.groups == ("system:serviceaccounts", "system:serviceaccounts:kube-system")
    assert req.uid == "" and dict(req.extra) == {}


@pytest.mark.parametrize(
    "expr, message",
    [
        ("authorizer.serviceAccount('ns', 'Bad_Name')", "Invalid service account name"),
        ("authorizer.serviceAccount('ns', '')", "Invalid service account name"),
        ("authorizer.serviceAccount('not.a.label', 'ok')", "Invalid service account namespace"),
        ("authorizer.path('  ')", "path must not be empty"),
        ("authorizer.group('apps').resource('')", "resource must not be empty"),
    ],
)
def test_errors_as_kubernetes_words_them(expr, message):
    authz, _ = make()
    with pytest.raises(CELError) as info:
        run(expr, authorizer=authz)
    assert str(info.value) == message


def test_request_resource_is_prefilled_from_the_admission_request():
    authz, rec = make()
    request = {
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "subResource": "status",
        "namespace": "prod",
        "name": "web",
    }
    rr = A.request_resource(authz, request)
    assert isinstance(rr, A.ResourceCheck)
    A.resource_check(rr, "patch")
    req = rec.requests[0]
    assert (req.group, req.resource, req.subresource, req.namespace, req.name, req.verb) == (
        "apps",
        "deployments",
        "status",
        "prod",
        "web",
        "patch",
    )
    core = A.request_resource(authz, {"resource": {"group": "", "resource": "pods"}})
    assert (core.group, core.resource, core.subresource, core.namespace, core.name) == ("", "pods", "", "", "")


def test_selectors_reach_the_authorizer_parsed():
    authz, rec = make()
    run(
        "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app in (a, b),!x')"
        ".check('list')",
        authorizer=authz,
    )
    req = rec.requests[0]
    assert req.field_selector == "spec.nodeName=n1" and req.field_selector_error is None
    assert req.field_selector_requirements == (Requirement("spec.nodeName", "=", ("n1",)),)
    assert req.label_selector_requirements == (Requirement("app", "in", ("a", "b")), Requirement("x", "!", ()))
    run("authorizer.group('').resource('pods').fieldSelector('a').check('list')", authorizer=authz)
    assert rec.requests[1].field_selector_error == "invalid selector: 'a'; can't understand 'a'"
    assert rec.requests[1].field_selector_requirements is None


@pytest.mark.parametrize(
    "selector, want",
    [
        ("a=b,c!=d", [Requirement("a", "=", ("b",)), Requirement("c", "!=", ("d",))]),
        ("a==b", [Requirement("a", "=", ("b",))]),
        ("x=a\\,b", [Requirement("x", "=", ("a,b",))]),
        ("", []),
    ],
)
def test_field_selector(selector, want):
    assert parse_field_selector(selector) == (want, None)


@pytest.mark.parametrize(
    "selector, error",
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("a=b\\q", "invalid field selector: invalid escape sequence: \\q"),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_field_selector_errors(selector, error):
    assert parse_field_selector(selector) == (None, error)


@pytest.mark.parametrize(
    "selector",
    [
        "x=a,y=b,z=c",
        "",
        "x!=a,y=b",
        "x=",
        "x= ",
        "x=,z= ",
        "x= ,z= ",
        "!x",
        "x>1",
        "x>1,z<5",
        "x in (a,b)",
        "x notin ()",
        "example.com/app in (a)",
    ],
)
def test_label_selector_good(selector):
    requirements, error = parse_label_selector(selector)
    assert error is None and requirements is not None


@pytest.mark.parametrize(
    "selector, error",
    [
        (
            "x=a||y=b",
            'unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label must be an empty '
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),  # '|' is not a symbol: the value is "a||y"
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        (
            "x<a",
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
            "must be an integer",
        ),
        ("x in a", "unable to parse requirement: found 'a' expected: '('"),
        ("x (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
        (",x", "found ',', expected: !, identifier, or 'end of string'"),
        ("x,", "found '', expected: identifier after ','"),
    ],
)
def test_label_selector_errors(selector, error):
    assert parse_label_selector(selector) == (None, error)


def test_declarations_and_costs():
    names = (
        "path",
        "group",
        "serviceAccount",
        "resource",
        "subresource",
        "namespace",
        "name",
        "check",
        "allowed",
        "reason",
        "errored",
        "error",
        "fieldSelector",
        "labelSelector",
    )
    sigs = {o.signature(): o for n in names for o in REGISTRY.overloads(n)}
    k = "kubernetes.authorization."
    for s in (
        f"{k}Authorizer.path(string) -> {k}PathCheck",
        f"{k}Authorizer.group(string) -> {k}GroupCheck",
        f"{k}Authorizer.serviceAccount(string, string) -> {k}Authorizer",
        f"{k}GroupCheck.resource(string) -> {k}ResourceCheck",
        f"{k}ResourceCheck.check(string) -> {k}Decision",
        f"{k}PathCheck.check(string) -> {k}Decision",
        f"{k}Decision.allowed() -> bool",
        f"{k}ResourceCheck.labelSelector(string) -> {k}ResourceCheck",
    ):
        assert s in sigs, s
    assert sigs[f"{k}ResourceCheck.check(string) -> {k}Decision"].cost == 350_000
    assert sigs[f"{k}Decision.reason() -> string"].cost == 1
    # 10 + ceil(10 * 0.1) + ceil(ceil(10 * 0.5) * 50)
    field_selector = sigs[f"{k}ResourceCheck.fieldSelector(string) -> {k}ResourceCheck"]
    assert field_selector.cost((None, "a" * 10), None) == 261


def test_methods_of_another_type_do_not_apply():
    authz, _ = make()
    with pytest.raises(CELError, match="no such overload"):  # `authorizer` is declared dyn: a runtime error
        run("authorizer.check('get')", authorizer=authz)


def test_direct_builders_are_immutable():
    authz, _ = make()
    base = A.group_resource(A.authorizer_group(authz, "apps"), "deployments")
    named = A.resource_name(base, "web")
    assert base.name == "" and named.name == "web"
    with pytest.raises(CELEvalError):
        A.authorizer_path(authz, "")
