"""Name validators and field-error rendering, compared with apimachinery's wording."""

from __future__ import annotations

from evaluator.k8s import fielderrors as fe
from evaluator.k8s.names import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_path_segment_name,
)


def test_qualified_names():
    assert is_qualified_name("app.kubernetes.io/name") == []
    assert is_qualified_name("MyName") == []
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("a/b/c")[0].startswith("a qualified name must consist of")
    assert is_qualified_name("x" * 64) == ["name part must be no more than 63 characters"]
    assert is_qualified_name("Bad_Prefix/x")[0].startswith("prefix part a lowercase RFC 1123 subdomain")


def test_options_measure_and_word_lengths_and_name_the_key():
    wide = "é" * 40  # 40 characters, 80 UTF-8 bytes (and not a valid label either way)
    assert not any("no more than" in e for e in is_valid_label_value(wide))
    by_bytes = is_valid_label_value(
        wide, measure=lambda s: len(s.encode()), too_long=lambda n: f"must be no more than {n} bytes"
    )
    assert by_bytes[0] == "must be no more than 63 bytes" and len(by_bytes) == 2
    assert is_qualified_name("a/b/c", noun="a valid label key")[0].startswith("a valid label key must consist of")
    assert is_qualified_name("p/" + wide, measure=lambda s: len(s.encode()))[0] == (
        "name part must be no more than 63 characters"
    )


def test_dns1123_label_dots_hint():
    assert is_dns1123_label("a.b")[0].startswith("a lowercase RFC 1123 label must consist of")
    assert is_dns1123_label("a.b", dots_hint=True) == ["must not contain dots"]
    assert is_dns1123_label("A.b", dots_hint=True)[0].startswith("a lowercase RFC 1123 label must consist of")


def test_dns_names():
    assert is_dns1123_subdomain("policy.example.com") == []
    assert is_dns1123_subdomain("Policy") == [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]
    assert is_dns1035_label("v1") == []
    assert is_dns1035_label("1v") != []
    assert validate_path_segment_name("a/b") == ["may not contain '/'"]
    assert validate_path_segment_name("..") == ["may not be '..'"]


def test_field_error_rendering():
    assert str(fe.required("spec.failurePolicy")) == "spec.failurePolicy: Required value"
    assert str(fe.invalid("a", "x", "bad")) == 'a: Invalid value: "x": bad'
    assert str(fe.invalid("a", fe.GoValue(["x", "y"]), "bad")) == 'a: Invalid value: []string{"x", "y"}: bad'
    assert str(fe.not_supported("a", "Q", ["Fail", "Ignore"])) == (
        'a: Unsupported value: "Q": supported values: "Fail", "Ignore"'
    )
    assert str(fe.duplicate("a[1]", "Deny")) == 'a[1]: Duplicate value: "Deny"'
    assert str(fe.too_many("m", 65, 64)) == "m: Too many: 65: must have at most 64 items"
    assert fe.required("p", "why").to_dict() == {
        "path": "p",
        "type": "Required value",
        "message": "why",
        "text": "p: Required value: why",
    }
    assert fe.invalid("p", 3, "m").to_dict()["value"] == 3


def test_kubectl_invalid_message():
    one = fe.kubectl_invalid_message("ValidatingAdmissionPolicy", "p", [fe.required("spec.x")])
    assert one == 'The ValidatingAdmissionPolicy "p" is invalid: spec.x: Required value'
    two = fe.kubectl_invalid_message("X", "n", [fe.required("a"), fe.required("b")])
    assert two == 'The X "n" is invalid: \n* a: Required value\n* b: Required value'
    assert fe.aggregate_text([fe.required("a"), fe.required("b")]) == "[a: Required value, b: Required value]"
