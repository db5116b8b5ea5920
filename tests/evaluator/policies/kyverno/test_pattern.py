"""validate.pattern semantics: anchors, wildcards, operators and the pass/fail/skip/error split."""

from evaluator.policies.kyverno.pattern_value import validate
from evaluator.policies.kyverno.validate_pattern import match_pattern

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"app": "web", "tier": "fe"}},
    "spec": {
        "containers": [
            {"name": "a", "image": "nginx:latest", "resources": {"limits": {"memory": "256Mi"}}},
            {"name": "b", "image": "redis:7"},
        ]
    },
}


def test_plain_match_and_mismatch_path():
    assert match_pattern(POD, {"metadata": {"labels": {"app": "web"}}}) is None
    err = match_pattern(POD, {"metadata": {"labels": {"app": "db"}}})
    assert not err.skip and err.path == "/metadata/labels/app/"
    assert str(err) == "resource value 'web' does not match 'db' at path /metadata/labels/app/"


def test_missing_field_fails_at_its_path():
    err = match_pattern(POD, {"spec": {"hostNetwork": False}})
    assert err.path == "/spec/hostNetwork/"


def test_wildcards_and_negation_operator():
    assert match_pattern(POD, {"spec": {"containers": [{"image": "*:*"}]}}) is None
    err = match_pattern(POD, {"spec": {"containers": [{"image": "!*:latest"}]}})
    assert err.path == "/spec/containers/0/image/"


def test_conditional_anchor_skips_when_no_element_applies():
    err = match_pattern(POD, {"spec": {"containers": [{"(image)": "busybox*", "name": "x"}]}})
    assert err.skip
    assert "conditional anchor mismatch" in str(err)


def test_conditional_anchor_applies_then_checks_siblings():
    err = match_pattern(POD, {"spec": {"containers": [{"(image)": "redis*", "name": "x"}]}})
    assert not err.skip and err.path == "/spec/containers/1/name/"


def test_equality_anchor_only_checks_present_keys():
    assert match_pattern(POD, {"spec": {"=(hostPID)": False}}) is None
    assert match_pattern({"spec": {"hostPID": True}}, {"spec": {"=(hostPID)": False}}).path == "/spec/hostPID/"


def test_negation_anchor():
    err = match_pattern({"spec": {"hostPath": {}}}, {"spec": {"X(hostPath)": "null"}})
    assert err.path == "/spec/hostPath/" and "negation anchor matched in resource" in str(err)
    assert match_pattern(POD, {"spec": {"X(hostPath)": "null"}}) is None


def test_existence_anchor_requires_one_matching_element():
    assert match_pattern(POD, {"spec": {"^(containers)": [{"image": "redis*"}]}}) is None
    err = match_pattern(POD, {"spec": {"^(containers)": [{"image": "mysql*"}]}})
    assert "existence anchor validation failed at path /spec/containers/" in str(err)


def test_global_anchor_skips_whole_resource_or_applies_siblings():
    pattern = {"spec": {"containers": [{"<(image)": "busybox*"}], "imagePullSecrets": [{"name": "regcred"}]}}
    err = match_pattern(POD, pattern)
    assert err.skip and "global anchor mismatch" in str(err)
    pattern["spec"]["containers"][0]["<(image)"] = "nginx*"
    assert match_pattern(POD, pattern).path == "/spec/imagePullSecrets/"


def test_a_pattern_walked_before_reads_what_was_replaced_in_it_since():
    """A pattern's compiled form is kept with it (by identity); an element replaced in place is read anew."""
    pattern = {"spec": {"containers": [{"image": "*:*"}]}}
    assert match_pattern(POD, pattern) is None
    pattern["spec"]["containers"][0] = {"image": "mysql*"}
    assert match_pattern(POD, pattern).path == "/spec/containers/0/image/"
    pattern["spec"]["containers"] = [{"name": "?"}]
    assert match_pattern(POD, pattern) is None
    pattern["spec"]["containers"].append({"name": "a"})  # a list of maps applies its first map to each element
    assert match_pattern(POD, pattern) is None


def test_scalar_operators():
    assert validate(5, ">3") and not validate(2, ">3")
    assert validate(5, "1-10") and not validate(11, "1-10")
    assert validate(11, "1!-10") and not validate(5, "1!-10")
    assert validate("256Mi", "<=1Gi") and not validate("2Gi", "<=1Gi")
    assert validate("90m", ">1h") and not validate("30m", ">1h")
    assert validate("b", "a | b") and not validate("c", "a | b")
    assert validate(5, ">1 & <10")


def test_nil_pattern_and_type_rules():
    assert validate(None, None) and validate("", None) and validate(0, None) and not validate("x", None)
    assert validate(3, 3.0) and validate("3", 3) and not validate(3.5, 3)
    assert not validate("true", True) and validate(True, True)


def test_metadata_label_key_wildcards():
    assert match_pattern(POD, {"metadata": {"labels": {"ti*": "fe"}}}) is None
    assert match_pattern(POD, {"metadata": {"labels": {"ti*": "be"}}}).path == "/metadata/labels/tier/"


def test_star_requires_presence():
    err = match_pattern(POD, {"metadata": {"annotations": "*"}})
    assert err is not None and "not found" in str(err)
