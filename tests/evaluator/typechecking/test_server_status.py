"""status.typeChecking as the API server writes it: what is checked, how types resolve, the text."""

from __future__ import annotations

import pytest

from evaluator.typechecking import typecheck

from .helpers import policy, server_warning, warnings


def test_clean_policy_writes_an_empty_type_checking_status():
    result = typecheck(policy("object.spec.replicas > 1"))
    assert result["status"] == {"typeChecking": {}}
    assert result["typesChecked"] == [{"group": "apps", "version": "v1", "kind": "Deployment"}]


@pytest.mark.parametrize(
    "expression, message, column",
    [
        ("object.replicas > 1", "undefined field 'replicas'", 7),
        ("object.spec.replicas > '1'", "found no matching overload for '_>_' applied to '(int, string)'", 22),
        ("params.x == 1", "undeclared reference to 'params' (in container '')", 1),
        ("object.spec.replicas.x == 1", "type 'int' does not support field selection", 21),
        (
            "object.metadata.creationTimestamp == 'x'",
            "found no matching overload for '_==_' applied to '(timestamp, string)'",
            35,
        ),
        ("object['spec'] != null", "found no matching overload for '_[_]' applied to", 7),
        ("has(object.spec.nope)", "undefined field 'nope'", 4),
        ("object.?spec.?nope.hasValue()", "undefined field 'nope'", 13),
        ("object.spec.template.spec.containers.all(c, c.nam == '')", "undefined field 'nam'", 46),
        ("authorizer.requestResource.check('get').allowed()", "undefined field 'requestResource'", 11),
        ("variables.missing", "undefined field 'missing'", 10),
    ],
)
def test_each_checker_error_is_reported_at_its_position(expression, message, column):
    text = server_warning(expression)
    assert text is not None
    assert text.startswith(f"apps/v1, Kind=Deployment: ERROR: <input>:1:{column}: {message}")
    assert text.endswith("^\n")


@pytest.mark.parametrize(
    "expression",
    [
        "object.spec.replicas > 1 && object.metadata.name.startsWith('a')",
        "object.metadata.__namespace__ == 'a'",  # escaped reserved word
        "request.namespace == 'x' && namespaceObject.metadata.namespace == 'y'",  # hand-built types: not escaped
        "object.spec.strategy.rollingUpdate.maxSurge == 1 || object.spec.strategy.rollingUpdate.maxSurge == '25%'",
        "object.metadata.creationTimestamp < timestamp('2020-01-01T00:00:00Z')",
        "object.metadata.labels.foo == 'a' && object.metadata.labels['x'] == 'b'",
        "object.?spec.?replicas.orValue(0) > 1",
        "object.spec == oldObject.spec",
        "object.spec.template.spec.containers.exists(c, c.ports.exists(p, p.containerPort == 80))",
        "request.userInfo.groups.exists(g, g == 'admins') && request.userInfo.extra['x'][0] == 'y'",
        "authorizer.group('apps').resource('deployments').check('create').allowed()",
        "namespaceObject.metadata.labels['env'] == 'prod' && namespaceObject.status.phase == 'Active'",
    ],
)
def test_well_typed_expressions_give_no_warning(expression):
    assert server_warning(expression) is None


def test_object_metadata_namespace_is_an_undefined_field_on_typed_objects():
    """`namespace` is a CEL reserved word: the schema property is `__namespace__`."""
    assert "undefined field 'namespace'" in server_warning("object.metadata.namespace == 'a'")


def test_quantity_maps_are_not_exposed_as_the_server_converts_them():
    """Quantity has no OpenAPI type (a oneOf), so SchemaDeclType drops `resources.limits`."""
    assert "undefined field 'limits'" in server_warning(
        "object.spec.template.spec.containers.all(c, has(c.resources.limits))"
    )
    assert server_warning("object.spec.template.spec.containers.all(c, has(c.resources))") is None


def test_several_errors_in_one_expression_are_sorted_by_position_in_one_warning():
    text = server_warning("object.spec.nope == 1 || object.spec.replicas > 'x'")
    assert text.count("ERROR:") == 2
    assert text.index("1:12: undefined field 'nope'") < text.index("1:47: found no matching overload")
    assert text.count("apps/v1, Kind=Deployment:") == 1


def test_only_validations_and_message_expressions_are_checked():
    p = policy(
        {"expression": "object.nope1", "messageExpression": "object.nope2"},
        matchConditions=[{"name": "m", "expression": "object.nope3"}],
        variables=[{"name": "v", "expression": "object.nope4"}],
        auditAnnotations=[{"key": "k", "valueExpression": "object.nope5"}],
    )
    refs = [w["fieldRef"] for w in warnings(typecheck(p))]
    assert refs == ["spec.validations[0].expression", "spec.validations[0].messageExpression"]


def test_result_types_are_not_checked_by_the_server():
    p = policy({"expression": "'not a bool'", "messageExpression": "42"})
    assert warnings(typecheck(p)) == []


def test_variables_are_typed_by_their_output():
    spec = {
        "variables": [
            {"name": "name", "expression": "'something'"},
            {"name": "replicas", "expression": "object.spec.replicas"},
            {"name": "spec", "expression": "object.spec"},
            {"name": "early", "expression": "variables.late"},
            {"name": "late", "expression": "1"},
        ]
    }
    assert "'_==_' applied to '(string, int)'" in server_warning("variables.name == 1", **spec)
    assert server_warning("variables.replicas + 1 > 2", **spec) is None
    # object types become dyn on `variables`; a variable that refers to a later one fails and is dyn
    assert server_warning("variables.spec.anything == variables.early.whatever", **spec) is None
    assert "'_+_' applied to '(int, string)'" in server_warning("variables.late + 'x' == ''", **spec)


def test_a_failing_variable_is_dyn_and_its_error_is_not_reported():
    spec = {"variables": [{"name": "bad", "expression": "object.spec.replicas == 'str'"}]}
    assert server_warning("variables.bad == 1 && variables.bad == 'x'", **spec) is None


def test_params_typed_by_the_param_kind_schema():
    config_map = {"apiVersion": "v1", "kind": "ConfigMap"}
    assert server_warning("params.data['max'] == '3'", paramKind=config_map) is None
    assert "undefined field 'nope'" in server_warning("params.nope == 1", paramKind=config_map)


def test_params_is_dyn_for_an_unknown_param_kind_and_undeclared_for_a_bad_api_version():
    assert server_warning("params.anything == 1", paramKind={"apiVersion": "example.com/v1", "kind": "Nope"}) is None
    assert "undeclared reference to 'params'" in server_warning(
        "params.anything == 1", paramKind={"apiVersion": "a/b/c", "kind": "ConfigMap"}
    )


def test_every_failing_kind_has_its_own_block_joined_by_a_blank_line():
    rules = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["replicasets", "deployments"]}]
    text = warnings(typecheck(policy("object.replicas > 1", rules=rules)))[0]["warning"]
    blocks = text.split("\n\n")
    assert [b.split(":", 1)[0] for b in blocks] == ["apps/v1, Kind=Deployment", "apps/v1, Kind=ReplicaSet"]
    assert text.endswith("^\n")


def test_kinds_where_the_expression_is_fine_add_nothing():
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods", "configmaps"]}]
    text = warnings(typecheck(policy("object.spec.containers.size() > 0", rules=rules)))[0]["warning"]
    assert text.startswith("/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'")
    assert "Kind=Pod" not in text


def test_nothing_is_checked_when_no_type_resolves():
    wildcard = [{"apiGroups": ["*"], "apiVersions": ["v1"], "resources": ["deployments"]}]
    result = typecheck(policy("authorizer.allowed()", rules=wildcard))
    assert warnings(result) == [] and result["typesChecked"] == []


def test_crd_kinds_from_the_documents_are_checked_with_their_schema():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "cronSpec": {"type": "string"},
                                        "image": {"type": "string"},
                                        "replicas": {"type": "integer"},
                                    },
                                }
                            },
                        }
                    },
                }
            ],
        },
    }
    rules = [{"apiGroups": ["stable.example.com"], "apiVersions": ["v1"], "resources": ["crontabs"]}]
    clean = typecheck(policy("object.spec.replicas > 1 && object.metadata.labels.size() >= 0", rules=rules), [crd])
    assert clean["typesChecked"] == [{"group": "stable.example.com", "version": "v1", "kind": "CronTab"}]
    assert warnings(clean) == []
    result = typecheck(policy("object.spec.replicas > '1'", "object.spec.maxRetries < 10", rules=rules), [crd])
    found = warnings(result)
    assert [w["fieldRef"] for w in found] == ["spec.validations[0].expression", "spec.validations[1].expression"]
    assert "found no matching overload for '_>_' applied to '(int, string)'" in found[0]["warning"]
    assert "undefined field 'maxRetries'" in found[1]["warning"]
    assert found[0]["warning"].startswith("stable.example.com/v1, Kind=CronTab: ")
    # without the CRD document the kind does not resolve and nothing is checked
    assert typecheck(policy("object.spec.maxRetries < 10", rules=rules))["typesChecked"] == []


def test_bad_input_never_raises():
    for bad in (
        None,
        {},
        {"spec": None},
        {"spec": {"validations": [None, 3, {"expression": 5}]}},
        policy({"expression": "object.spec.("}),
        policy({"expression": "'" * 3}),
    ):
        result = typecheck(bad)
        assert "status" in result and "diagnostics" in result


def test_a_syntax_error_is_a_warning_in_cel_go_form():
    text = server_warning("object.spec.replicas >")
    assert "ERROR: <input>:1:" in text and "Syntax error" in text


# The apiserver unit test's fake resolver: one hand-written schema for every kind (TestTypeCheck).
FAKE = {"type": "object", "properties": {"foo": {"type": "string"}}}
FAKE_INT = {"type": "object", "properties": {"foo": {"type": "integer", "format": "int64"}}}
DEPLOYMENT = "apps/v1, Kind=Deployment"


@pytest.mark.parametrize(
    "schema, spec, expected",
    [
        (None, {"validations": [{"expression": "object.foo == 'bar'"}]}, []),  # unresolved schema: nothing checked
        (FAKE, {"validations": [{"expression": "object.foo == 'bar'"}]}, []),
        (
            FAKE_INT,
            {"validations": [{"expression": "object.foo == 'bar'"}]},
            [("spec.validations[0].expression", "found no matching overload")],
        ),
        (
            FAKE,
            {
                "paramKind": {"apiVersion": "v1", "kind": "DoesNotMatter"},
                "validations": [{"expression": "object.foo == params.bar"}],
            },
            [("spec.validations[0].expression", "undefined field 'bar'")],
        ),
        (
            FAKE,
            {"validations": [{"expression": "object.foo == 'bar'"}, {"expression": "object.bar == 'foo'"}]},
            [("spec.validations[1].expression", "undefined field 'bar'")],
        ),
        (
            FAKE,
            {"validations": [{"expression": "object.foo == 'bar'", "messageExpression": "object.foo + 114514"}]},
            [("spec.validations[0].messageExpression", "found no matching overload")],
        ),
        (
            FAKE_INT,
            {
                "variables": [{"name": "name", "expression": "'something'"}],
                "validations": [{"expression": "variables.name == object.foo"}],
            },
            [("spec.validations[0].expression", "found no matching overload for '_==_' applied to '(string, int)'")],
        ),
        (
            FAKE_INT,
            {
                "variables": [{"name": "name", "expression": "object.foo == 'str'"}],
                "validations": [{"expression": "variables.name == object.foo"}],
            },
            [],
        ),
    ],
)
def test_apiserver_fake_resolver_cases(schema, spec, expected):
    p = policy()
    p["spec"].update(spec)
    kinds = {DEPLOYMENT: schema, "/v1, Kind=DoesNotMatter": schema}
    found = warnings(typecheck(p, schemas_by_kind=kinds))
    assert [w["fieldRef"] for w in found] == [ref for ref, _ in expected]
    for w, (_, text) in zip(found, expected):
        assert text in w["warning"]


@pytest.mark.parametrize(
    "expression, column, shown",
    [
        ("object.spec.all(k, k == 'a')", 7, "Deployment"),
        ("object.spec.replicas.exists(x, true)", 12, "int"),
        ("object.metadata.creationTimestamp.map(x, x)", 16, "timestamp"),
    ],
)
def test_a_comprehension_over_a_struct_or_scalar_is_reported_at_its_range(expression, column, shown):
    text = server_warning(expression)
    assert f"ERROR: <input>:1:{column}: expression of type '{shown}" in text
    assert "cannot be range of a comprehension (must be list, map, or dynamic)" in text
    assert text.count("ERROR:") == 1


def test_comprehension_ranges_that_are_fine():
    assert (
        server_warning(
            "object.metadata.labels.all(k, k != '') && object.spec.template.spec.containers.all(c, c.name != '')"
        )
        is None
    )
    assert server_warning("object.spec.template.spec.containers.map(c, c.name).exists(n, n == 'a')") is None
