"""ImageValidatingPolicy offline: Kyverno's evaluation order, image extraction and matching, the digest and
`required` checks, and registry-bound checks reported as not evaluated."""

from __future__ import annotations

import pytest

from evaluator import simulate
from evaluator.policies.kyverno_ivpol.globs import GlobError, compile_glob

from tests.evaluator.kyverno_vpol.helpers import create, deployment, pod


def ivpol(validations, *, name="iv", resources=("pods",), group="", **spec):
    rule = {"apiGroups": [group], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": list(resources)}
    body = {
        "validationConfigurations": {"verifyDigest": False, "required": False, "mutateDigest": False},
        "matchConstraints": {"resourceRules": [rule]},
        "matchImageReferences": [{"glob": "ghcr.io/*"}],
        "validations": validations,
        **spec,
    }
    return {
        "apiVersion": "policies.kyverno.io/v1beta1",
        "kind": "ImageValidatingPolicy",
        "metadata": {"name": name},
        "spec": body,
    }


def _rule(result, name="iv"):
    [entry] = [r for r in result["kyverno"] if r["policy"] == name]
    return entry, (entry["rules"][0] if entry["rules"] else None)


def test_images_are_extracted_and_filtered_by_match_image_references():
    p = ivpol([{"expression": "size(images.containers) == 1", "message": "one ghcr image"}])
    obj = pod(image="ghcr.io/team/app:1")
    obj["spec"]["containers"].append({"name": "side", "image": "docker.io/library/nginx:1"})
    entry, rule = _rule(simulate([p], create(obj)))
    assert rule["result"] == "pass" and entry["images"] == ["ghcr.io/team/app:1"]


def test_a_failing_validation_denies_through_the_ivpol_webhook():
    p = ivpol([{"expression": "images.containers.all(i, image(i).tag() != 'latest')", "message": "no latest"}])
    result = simulate([p], create(pod(image="ghcr.io/team/app:latest")))
    assert result["status"]["message"] == (
        'admission webhook "ivpol.validate.kyverno.svc-fail" denied the request: Policy iv failed: no latest'
    )


def test_pod_controllers_use_their_template_images():
    p = ivpol(
        [{"expression": "images.containers.all(i, i.startsWith('ghcr.io/'))", "message": "m"}],
        resources=("deployments",),
        group="apps",
        matchImageReferences=[{"expression": "ref.startsWith('ghcr.io/')"}],
    )
    d = deployment()
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/team/app:1"
    entry, rule = _rule(simulate([p], create(d)))
    assert rule["result"] == "pass" and entry["images"] == ["ghcr.io/team/app:1"]


def test_custom_image_extractors_add_categories():
    p = ivpol(
        [{"expression": "images.fromAnnotation == ['ghcr.io/x/y:1']", "message": "m"}],
        images=[{"name": "fromAnnotation", "expression": "[object.metadata.annotations['img']]"}],
    )
    obj = pod()
    obj["metadata"]["annotations"] = {"img": "ghcr.io/x/y:1"}
    assert _rule(simulate([p], create(obj)))[1]["result"] == "pass"


def test_verify_digest_fails_images_without_a_digest():
    p = ivpol([{"expression": "true"}], validationConfigurations={"required": False, "mutateDigest": False})
    _, rule = _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))
    assert (rule["result"], rule["message"]) == ("fail", "image ghcr.io/team/app:1 does not have a digest")


def test_mutate_digest_at_admission_needs_the_registry():
    """On a cluster Kyverno's ivpol mutating webhook pins each matched tag to its digest first."""
    p = ivpol([{"expression": "true"}], validationConfigurations={"required": False})
    _, rule = _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))
    assert rule["result"] == "not evaluated"
    assert "mutateDigest: Kyverno's ivpol mutating webhook would resolve ghcr.io/team/app:1" in rule["message"]
    digested = pod(image="ghcr.io/team/app@sha256:" + "a" * 64)
    assert _rule(simulate([p], create(digested)))[1]["result"] == "pass"


def test_required_fails_a_passing_policy_that_verified_nothing():
    p = ivpol([{"expression": "true"}], validationConfigurations={"verifyDigest": False, "mutateDigest": False})
    _, rule = _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))
    assert rule["message"] == (
        "image ghcr.io/team/app:1 is not verified: no policy performed a signature or attestation check on it"
    )


def test_signature_checks_are_not_evaluated_offline_and_do_not_deny():
    p = ivpol(
        [{"expression": "images.containers.map(i, verifyImageSignatures(i, [attestors.notary])).all(e, e > 0)"}],
        attestors=[{"name": "notary", "notary": {"certs": {"value": "-----BEGIN CERTIFICATE-----"}}}],
    )
    result = simulate([p], create(pod(image="ghcr.io/team/app:1")))
    entry, rule = _rule(result)
    assert result["allowed"] and rule["result"] == "not evaluated"
    assert rule["message"].startswith(
        "not evaluated: verifyImageSignatures(ghcr.io/team/app:1) needs the image registry"
    )
    assert "no pass or fail is claimed" in entry["note"]


def test_a_false_check_before_the_registry_one_still_decides():
    p = ivpol(
        [
            {"expression": "object.metadata.name == 'other'", "message": "wrong name"},
            {"expression": "verifyImageSignatures(images.containers[0], []) > 0"},
        ]
    )
    assert _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))[1]["message"] == "wrong name"


def test_image_data_comes_from_a_context_document():
    context = {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Context",
        "metadata": {"name": "c"},
        "spec": {"images": [{"image": "ghcr.io/team/app:1", "config": {"config": {"User": "1000"}}}]},
    }
    p = ivpol([{"expression": "getImageData(images.containers[0]).config.config.User == '1000'", "message": "root"}])
    assert _rule(simulate([p, context], create(pod(image="ghcr.io/team/app:1"))))[1]["result"] == "pass"
    _, missing = _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))
    assert missing["result"] == "not evaluated"


def test_exceptions_skip_and_match_conditions_filter():
    exc = {
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "PolicyException",
        "metadata": {"name": "allow-web"},
        "spec": {
            "policyRefs": [{"name": "iv", "kind": "ImageValidatingPolicy"}],
            "matchConditions": [{"name": "web", "expression": "object.metadata.name == 'web'"}],
        },
    }
    p = ivpol([{"expression": "false", "message": "never"}])
    _, rule = _rule(simulate([p, exc], create(pod(image="ghcr.io/a/b:1"))))
    assert (rule["result"], rule["message"]) == ("skip", "rule is skipped due to policy exception: allow-web")
    p["spec"]["matchConditions"] = [
        {"name": "prod", "expression": "object.metadata.?labels.prod.orValue('') == 'true'"}
    ]
    entry, rule = _rule(simulate([p], create(pod(image="ghcr.io/a/b:1"))))
    assert rule is None and entry["notApplicable"] == ["iv"]


def test_bad_input_is_located_and_other_policies_still_run():
    bad_glob = ivpol([{"expression": "true"}], name="bad-glob", matchImageReferences=[{"glob": "ghcr.io/[a"}])
    bad_cel = ivpol([{"expression": "images.containers.all(i,"}], name="bad-cel")
    unknown = ivpol([{"expression": "true"}], name="v9")
    unknown["apiVersion"] = "policies.kyverno.io/v9"
    good = ivpol([{"expression": "false", "message": "denied"}], name="good")
    result = simulate([bad_glob, bad_cel, unknown, good], create(pod(image="ghcr.io/a/b:1")))
    errors = {(e.get("name"), e.get("path")) for e in result["errors"]}
    assert ("bad-glob", "spec.matchImageReferences[0].glob") in errors
    assert ("bad-cel", "spec.validations[0].expression") in errors
    assert ("v9", "apiVersion") in errors
    assert "Policy good failed: denied" in result["status"]["message"]
    _, rule = _rule(result, "bad-glob")
    assert rule["result"] == "error" and rule["message"].startswith(
        "failed to compile policy: spec.matchImageReferences"
    )


def test_an_unparsable_image_reference_is_an_evaluation_error():
    p = ivpol([{"expression": "true"}], validationConfigurations={"required": False, "mutateDigest": False})
    _, rule = _rule(simulate([p], create(pod(image="ghcr.io/UPPER CASE:1"))))
    assert rule["result"] == "error"
    assert rule["message"].startswith("failed to evaluate policy: failed to parse image reference ghcr.io/UPPER CASE:1")


@pytest.mark.parametrize(
    ("pattern", "value", "matched"),
    [
        ("ghcr.io/*", "ghcr.io/a/b:1", True),
        ("ghcr.io/*", "docker.io/ghcr.io/x", False),
        ("*.io/team/?pp:{1,2}", "ghcr.io/team/app:2", True),
        ("registry-[0-9].example/*", "registry-7.example/x", True),
        ("registry-[!0-9].example/*", "registry-7.example/x", False),
    ],
)
def test_globs_follow_gobwas_without_separators(pattern, value, matched):
    assert (compile_glob(pattern).fullmatch(value) is not None) is matched


def test_a_glob_that_does_not_parse_is_refused():
    with pytest.raises(GlobError):
        compile_glob("ghcr.io/{a,b")


def test_image_get_metadata_without_supplied_data_needs_the_registry():
    p = ivpol([{"expression": "image.GetMetadata(images.containers[0]).config.config.User != '0'", "message": "root"}])
    _, rule = _rule(simulate([p], create(pod(image="ghcr.io/team/app:1"))))
    assert rule["result"] == "not evaluated"
    assert "image.GetMetadata(ghcr.io/team/app:1) needs the image registry" in rule["message"]


def test_a_pod_policy_applies_to_pod_controllers_through_autogen():
    p = ivpol([{"expression": "images.containers.all(i, !i.endsWith(':latest'))", "message": "no latest"}])
    d = deployment()
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/team/app:latest"
    entry, rule = _rule(simulate([p], create(d)))
    assert (rule["result"], rule["message"], entry["images"]) == ("fail", "no latest", ["ghcr.io/team/app:latest"])
    p["spec"]["autogen"] = {"podControllers": {"controllers": []}}
    entry, rule = _rule(simulate([p], create(d)))
    assert rule is None
