"""The API server decodes a request's object into its Go type before admission: a value of the wrong JSON type
is a 400 BadRequest in its words, no policy runs, and the error points at the value in the request's text."""

import pytest

import evaluator
from tests.evaluator.fast_path_fixtures import DEPLOYMENTS, policy


def checking(expression: str) -> list[dict]:
    """A policy with one validation on Deployments, for every operation, and its binding."""
    every_operation = {"resourceRules": [{**DEPLOYMENTS[0], "operations": ["*"]}]}
    return policy("check", {"matchConstraints": every_operation, "validations": [{"expression": expression}]})


REPLICAS_POLICY = checking("object.spec.replicas <= 5")

REVIEW = """apiVersion: admission.k8s.io/v1
kind: AdmissionReview
request:
  operation: {operation}
  object:
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: default
      labels: {{app: {label}}}
    spec:
      replicas: {replicas}
      selector: {{matchLabels: {{app: web}}}}
{old}"""


def review(replicas="3", label="web", operation="CREATE", old=""):
    return REVIEW.format(replicas=replicas, label=label, operation=operation, old=old)


def test_a_value_of_the_wrong_type_is_the_api_servers_400_and_no_policy_runs():
    result = evaluator.simulate(REPLICAS_POLICY, review(replicas='"3"'))
    message = (
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go '
        "struct field DeploymentSpec.spec.replicas of type int32"
    )
    assert result["allowed"] is False
    assert result["status"] == {"code": 400, "reason": "BadRequest", "message": message}
    assert result["policies"] == []
    [error] = result["requestErrors"]
    assert error["message"] == message and error["path"] == "request.object.spec.replicas"
    assert (error["line"], error["column"]) == (13, 7)  # `replicas:` in the text
    assert result["kubectl"]["text"] == f'Error from server (BadRequest): error when creating "STDIN": {message}'


def test_the_first_wrong_value_in_the_document_is_the_one_reported():
    result = evaluator.simulate(REPLICAS_POLICY, review(replicas='"3"', label="1"))
    assert result["status"]["message"].endswith(
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"
    )
    assert result["requestErrors"][0]["path"] == "request.object.metadata.labels[app]"
    assert result["requestErrors"][0]["line"] == 11


@pytest.mark.parametrize("replicas", ["3", "9"])
def test_a_decodable_object_goes_on_to_admission(replicas):
    result = evaluator.simulate(REPLICAS_POLICY, review(replicas=replicas))
    assert result["allowed"] is (replicas == "3")
    assert [p["policy"] for p in result["policies"]] == ["check"]


def test_an_object_given_alone_is_located_at_the_top_of_its_text():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n"
    pod += "  - name: c\n    image: nginx\n    ports:\n    - containerPort: '80'\n"
    result = evaluator.simulate([], pod)
    assert result["status"]["code"] == 400
    assert result["status"]["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field '
        "ContainerPort.spec.containers.ports.containerPort of type int32"
    )
    error = result["requestErrors"][0]
    assert error["path"] == "request.object.spec.containers[0].ports[0].containerPort"
    assert (error["line"], error["column"]) == (9, 7)


def test_a_timestamp_go_cannot_parse_is_refused_in_gos_words_and_located():
    text = review().replace("      name: web\n", "      name: web\n      creationTimestamp: 2024-01-01\n", 1)
    result = evaluator.simulate(REPLICAS_POLICY, text)
    assert result["status"]["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: parsing time "2024-01-01" as '
        '"2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'
    )
    assert result["policies"] == []
    error = result["requestErrors"][0]
    assert (error["path"], error["line"]) == ("request.object.metadata.creationTimestamp", 10)


@pytest.mark.parametrize(
    "spec",
    [
        # quantities and int-or-strings take a number or a string
        {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": 1.5, "memory": "1Gi"}}}]},
        {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}], "priority": 10},
        {"containers": [{"name": "c", "image": "i"}], "nodeSelector": {"disk": "ssd"}, "hostNetwork": True},
    ],
)
def test_values_of_the_right_type_are_not_refused(spec):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": spec}
    result = evaluator.simulate([], {"operation": "CREATE", "object": pod})
    assert result["allowed"] is True and result["requestErrors"] == []


def test_a_custom_resource_has_no_go_type_to_decode_into():
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "x"}}
    rows = [{"kind": "Widget", "resource": "widgets", "group": "example.com", "version": "v1", "namespaced": False}]
    result = evaluator.simulate([], {"operation": "CREATE", "object": widget}, resource_registry=rows)
    assert result["allowed"] is True and not [e for e in result["requestErrors"] if e["severity"] == "error"]


def test_only_the_body_a_client_sends_is_decoded():
    """A DELETE's old object comes from storage; without defaulting (the Kyverno CLI's way) nothing is
    decoded at all."""
    old = review(replicas='"3"').split("  object:\n", 1)[1]
    delete = review(operation="DELETE").split("  object:\n", 1)[0] + "  oldObject:\n" + old
    for result in (
        evaluator.simulate(REPLICAS_POLICY, delete),
        evaluator.simulate(REPLICAS_POLICY, review(replicas='"3"'), defaulting=False),
    ):
        assert result["status"]["code"] == 422  # the policy ran (and met what it could not compare)
        assert [p["outcome"] for p in result["policies"]] == ["error"]


def _with_typo(field_validation=None):
    options = f"  options: {{fieldValidation: {field_validation}}}\n" if field_validation else ""
    text = review(replicas="3").replace("      replicas: 3\n", "      replicas: 3\n      replica: 9\n")
    return text + options


TYPO_CHECK = checking("!has(object.spec.replica)")


@pytest.mark.parametrize("field_validation", [None, "Warn"])
def test_a_field_the_type_does_not_have_is_dropped_with_a_warning(field_validation):
    result = evaluator.simulate(TYPO_CHECK, _with_typo(field_validation))
    assert result["allowed"] is True  # the policy never sees `replica`
    assert result["warnings"] == ['unknown field "spec.replica"']
    assert result["kubectl"]["text"] == 'Warning: unknown field "spec.replica"\ndeployment.apps/web created'
    assert "replica" not in result["request"]["object"]["spec"]
    [located] = [e for e in result["requestErrors"] if e["path"] == "request.object.spec.replica"]
    assert located["severity"] == "warning" and located["message"] == 'unknown field "spec.replica"'
    assert located["line"] == 14  # for the editor's marker
    assert result["response"]["response"].get("warnings") is None  # not admission's: decoding's


def test_ignore_drops_it_silently_and_strict_refuses_the_request():
    ignored = evaluator.simulate(TYPO_CHECK, _with_typo("Ignore"))
    assert ignored["allowed"] is True and ignored["warnings"] == [] and ignored["requestErrors"] == []
    strict = evaluator.simulate(TYPO_CHECK, _with_typo("Strict"))
    assert strict["status"] == {
        "code": 400,
        "reason": "BadRequest",
        "message": 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'unknown field "spec.replica"',
    }
    assert strict["policies"] == [] and strict["requestErrors"][0]["line"] == 14


def test_a_wrong_type_is_reported_before_an_unknown_field():
    result = evaluator.simulate(TYPO_CHECK, _with_typo("Strict").replace("replicas: 3", 'replicas: "3"'))
    assert "json: cannot unmarshal string" in result["status"]["message"]


def test_an_old_object_is_read_as_stored_without_the_fields_its_type_lacks():
    """The same typo in both objects: the body's is dropped with the API server's Warning, the old object's
    (which storage could never hold) with our own; an immutability check then sees no difference."""
    immutable = checking("object.spec == oldObject.spec")
    head, body = _with_typo().replace("operation: CREATE", "operation: UPDATE").split("  object:\n", 1)
    update = f"{head}  object:\n{body}  oldObject:\n{body}"
    result = evaluator.simulate(immutable, update)
    assert result["allowed"] is True
    assert result["warnings"] == ['unknown field "spec.replica"']
    [note] = [e for e in result["requestErrors"] if e["path"] == "request.oldObject.spec.replica"]
    assert note["severity"] == "warning" and note["message"].startswith(
        'oldObject: unknown field "spec.replica" dropped'
    )
    assert note["line"] == 25  # the old object's `replica:`


def test_an_old_object_value_no_stored_object_holds_is_named_and_kept():
    """A hand-written old object with a date where a timestamp belongs: the API server would never have stored
    it, so it is pointed out, in Go's words; the sample still runs with it as given."""
    old = (
        review(label="old")
        .split("  object:\n", 1)[1]
        .replace("      name: web\n", "      name: web\n      creationTimestamp: 2024-01-01\n", 1)
    )
    result = evaluator.simulate(REPLICAS_POLICY, review(operation="UPDATE", old="  oldObject:\n" + old))
    assert result["allowed"] is True and result["status"] is None
    [note] = result["requestErrors"]
    assert (note["severity"], note["path"]) == ("warning", "request.oldObject.metadata.creationTimestamp")
    assert note["message"] == (
        'oldObject: parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T": '
        "no object in storage holds such a value (kept as given)"
    )


@pytest.mark.parametrize(
    "value", ["!!binary aGVsbG8=", "!!set {a, b}", ".nan", "-.inf", "1e400", "99999999999999999999"]
)
@pytest.mark.parametrize("field", ["image", "resources: {limits: {cpu", "ports: [{containerPort", "securityContext"])
def test_values_json_cannot_hold_get_an_answer_not_an_internal_error(field, value):
    closing = "}" * field.count("{") + "]" * field.count("[")
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n"
        f"  - name: c\n    {field}: {value}{closing}\n"
    )
    result = evaluator.simulate([], pod)
    assert not [e for e in result["errors"] if "traceback" in e]
    assert result["allowed"] or result["status"]["code"] == 400
