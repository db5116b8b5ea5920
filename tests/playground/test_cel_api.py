"""POST /api/v1/cel: results, engine errors with locations, and bad input, all in one error shape."""

import pytest

URL = "/api/v1/cel"


def post(client, payload):
    return client.post(URL, payload, content_type="application/json")


def assert_error_shape(body, code):
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "document", "path", "line", "column"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


def test_evaluates_an_expression_over_json_variables(client):
    response = post(
        client,
        {
            "expression": "object.spec.replicas <= params.maxReplicas",
            "variables": {"object": {"spec": {"replicas": 3}}, "params": {"maxReplicas": 5}},
        },
    )
    assert response.status_code == 200
    assert response.json()["result"] is True


def test_evaluates_over_yaml_variables_text(client):
    response = post(
        client,
        {
            "expression": "object.metadata.labels.map(k, k + '=' + object.metadata.labels[k])",
            "variables_text": "object:\n  metadata:\n    labels:\n      app: web\n",
        },
    )
    assert response.status_code == 200
    assert response.json()["result"] == ["app=web"]


def test_json_text_is_accepted_as_variables_text(client):
    response = post(client, {"expression": "size(items) * 2", "variables_text": '{"items": [1, 2, 3]}'})
    assert response.json()["result"] == 6


def test_expression_without_variables(client):
    response = post(client, {"expression": "[1, 2, 3].filter(x, x > 1)"})
    assert response.status_code == 200
    assert response.json()["result"] == [2, 3]


def test_yaml_dates_stay_strings(client):
    response = post(client, {"expression": "day", "variables_text": "day: 2024-01-31"})
    assert response.json()["result"] == "2024-01-31"


def test_compile_error_points_at_its_line_and_column(client):
    expression = "true &&\n  1 +"
    response = post(client, {"expression": expression})
    assert response.status_code == 422
    body = response.json()
    assert_error_shape(body, "compile_error")
    assert body["error"]["line"] == 2
    # cel-go's position: the end of input after "  1 +", column 6 (as in "ERROR: <input>:2:6: Syntax error")
    assert body["error"]["column"] == 6
    assert "<input>:2:6:" in body["error"]["message"]


def test_evaluation_error_is_data_not_a_crash(client):
    response = post(client, {"expression": "1 / zero", "variables": {"zero": 0}})
    assert response.status_code == 422
    assert_error_shape(response.json(), "evaluation_error")
    assert "division by zero" in response.json()["error"]["message"]


def test_malformed_json_body_gives_line_and_column(client):
    response = client.post(URL, '{"expression": "1",\n  oops}', content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid_json")
    assert (body["error"]["line"], body["error"]["column"]) == (2, 3)


def test_body_that_is_not_utf8_is_rejected(client):
    response = client.post(URL, b'{"expression": "\xff"}', content_type="application/json")
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_json")


def test_deeply_nested_json_body_is_rejected_cleanly(client):
    response = client.post(URL, "[" * 100_000 + "]" * 100_000, content_type="application/json")
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_json")


def test_invalid_yaml_variables_give_line_and_column(client):
    response = post(client, {"expression": "x", "variables_text": "x: 1\ny: [1, 2\n"})
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid_variables")
    assert body["error"]["line"] == 3


@pytest.mark.parametrize("text", ["- 1\n- 2\n", "just a string"])
def test_variables_must_be_a_map(client, text):
    response = post(client, {"expression": "1", "variables_text": text})
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_variables")


def test_yaml_aliases_are_refused(client):
    text = "a: &x [1, 2]\nb: *x\n"
    response = post(client, {"expression": "b", "variables_text": text})
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid_variables")
    assert (body["error"]["line"], body["error"]["column"]) == (2, 4)


def test_missing_expression_is_an_invalid_request(client):
    response = post(client, {"variables": {}})
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_request")
    assert "expression" in response.json()["error"]["message"]


def test_variables_and_variables_text_together_are_refused(client):
    response = post(client, {"expression": "1", "variables": {}, "variables_text": "a: 1"})
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_request")


def test_get_is_not_allowed_and_says_so_in_the_error_shape(client):
    response = client.get(URL)
    assert response.status_code == 405
    assert_error_shape(response.json(), "method_not_allowed")


def test_an_unexpected_engine_failure_is_a_500_in_the_error_shape(client, monkeypatch, settings):
    from playground.evaluation import jobs

    def explode(expression, variables):
        raise RuntimeError("secret internals")

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0  # in threads, so the patched job is the one that runs
    monkeypatch.setattr(jobs, "evaluate_cel", explode)
    response = post(client, {"expression": "1"})
    assert response.status_code == 500
    assert_error_shape(response.json(), "internal_error")
    assert "secret" not in response.json()["error"]["message"]


def test_cel_answer_carries_the_type_and_the_cost(client):
    response = client.post(
        "/api/v1/cel",
        {
            "expression": "object.spec.replicas <= params.maxReplicas",
            "variables": {"object": {"spec": {"replicas": 3}}, "params": {"maxReplicas": 5}},
        },
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["result"] is True and body["type"] == "bool"
    assert isinstance(body["cost"], int) and body["cost"] > 0
    longer = client.post("/api/v1/cel", {"expression": "[1, 2, 3].map(x, x * 2)"}, content_type="application/json")
    assert longer.json()["type"] == "list" and longer.json()["cost"] > body["cost"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"expression": 1}, "expression: must be a string, not number"),
        ({"expression": "1", "variables": []}, "variables: must be an object, not array"),
        ({"expression": "1", "variables_text": {}}, "variables_text: must be a string, not object"),
        ({"expression": "1", "colour": 1}, "colour: unknown field (expected expression, variables, variables_text)"),
    ],
)
def test_the_body_is_checked_strictly_naming_the_field(client, body, message):
    response = post(client, body)
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_request")
    assert response.json()["error"]["message"] == message
