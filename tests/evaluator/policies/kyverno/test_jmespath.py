"""JMESPath as Kyverno runs it: missing keys, custom functions, Go number formatting."""

import pytest

from evaluator.policies.kyverno.gofmt import format_g, json_number
from evaluator.policies.kyverno.jmes import JMESPathError, NotFoundError, search

DATA = {
    "request": {
        "object": {
            "metadata": {"name": "web", "labels": {"app": "x"}},
            "spec": {"containers": [{"name": "a", "image": "nginx:1.2"}]},
        }
    }
}


def test_missing_key_is_not_found_on_a_plain_path():
    with pytest.raises(NotFoundError, match='Unknown key "annotations" in path'):
        search("request.object.metadata.annotations.team", DATA)


def test_missing_key_is_swallowed_by_or_pipe_and_functions():
    assert search("request.object.metadata.annotations.team || 'none'", DATA) == "none"
    assert search("request.object.metadata.annotations | length(@ || `{}`)", DATA) == 0
    assert search("to_string(request.object.nothing)", DATA) == "null"


def test_custom_functions():
    assert search("to_upper(request.object.metadata.name)", DATA) == "WEB"
    assert search("split(request.object.spec.containers[0].image, ':')", DATA) == ["nginx", "1.2"]
    assert search("regex_match('^ngin', request.object.spec.containers[0].image)", DATA) is True
    assert search('label_match(`{"app":"x"}`, request.object.metadata.labels)', DATA) is True
    assert search("truncate('abcdef', `3`)", DATA) == "abc"
    assert search("base64_decode(base64_encode('hi'))", DATA) == "hi"
    assert search("semver_compare('1.2.3', '>1.0.0')", DATA) is True
    assert search("add(`1`, `2`)", DATA) == 3
    assert search("add('1Gi', '1Gi')", DATA) == "2Gi"  # Quantity.Add keeps the BinarySI format
    assert search("divide(`6`, `4`)", DATA) == 1.5
    assert search("parse_json('{\"a\": [1]}').a[0]", DATA) == 1
    assert search("items(`{\"b\":1,\"a\":2}`, 'k', 'v')[0].k", DATA) == "a"


def test_function_errors_are_reported():
    with pytest.raises(Exception, match="Zero divisor"):
        search("divide(`1`, `0`)", DATA)
    with pytest.raises(JMESPathError):
        search("request.object.[", DATA)


def test_go_number_formatting():
    assert format_g(3.0) == "3" and format_g(1e6) == "1e+06" and format_g(0.5) == "0.5"
    assert json_number(3.0) == "3" and json_number(1e21) == "1e+21" and json_number(1e-7) == "1e-7"
