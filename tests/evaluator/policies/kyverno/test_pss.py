"""Pod Security Standards checks, versions and exclusions."""

from evaluator.policies.kyverno.pss import apply_exclusions, evaluate_pss, parse_version, LATEST


def ids(results):
    return sorted(r.id for r in results)


def test_baseline_checks_only_at_baseline():
    spec = {"hostPID": True, "containers": [{"name": "c", "securityContext": {"privileged": True}}]}
    assert ids(evaluate_pss("baseline", LATEST, {}, spec)) == ["hostNamespaces", "privileged"]
    restricted = ids(evaluate_pss("restricted", LATEST, {}, spec))
    assert {"allowPrivilegeEscalation", "capabilities_restricted", "runAsNonRoot", "seccompProfile_restricted"} <= set(
        restricted
    )


def test_versioned_checks():
    spec = {
        "securityContext": {"sysctls": [{"name": "net.ipv4.tcp_keepalive_time", "value": "1"}]},
        "containers": [{"name": "c"}],
    }
    assert ids(evaluate_pss("baseline", parse_version("v1.27"), {}, spec)) == ["sysctls"]
    assert ids(evaluate_pss("baseline", parse_version("v1.29"), {}, spec)) == []
    assert parse_version("latest") == LATEST and parse_version(None) == LATEST


def test_restricted_clean_pod_passes():
    sc = {
        "allowPrivilegeEscalation": False,
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
        "capabilities": {"drop": ["ALL"]},
    }
    assert evaluate_pss("restricted", LATEST, {}, {"containers": [{"name": "c", "securityContext": sc}]}) == []


def test_field_errors_and_messages():
    [result] = evaluate_pss(
        "baseline",
        LATEST,
        {},
        {"containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["SYS_ADMIN", "NET_RAW"]}}}]},
    )
    assert (
        result.result.detail
        == 'container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add'
    )
    assert result.result.errors[0].field == "spec.containers[0].securityContext.capabilities.add"
    assert result.result.errors[0].bad_value == ["NET_RAW", "SYS_ADMIN"]


def test_exclusion_by_image_only_exempts_matching_containers():
    spec = {
        "containers": [
            {"name": "a", "image": "nginx", "securityContext": {"privileged": True}},
            {"name": "b", "image": "busybox", "securityContext": {"privileged": True}},
        ]
    }
    results = evaluate_pss("baseline", LATEST, {}, spec)
    exclude = [
        {
            "controlName": "Privileged Containers",
            "images": ["nginx*"],
            "restrictedField": "spec.containers[*].securityContext.privileged",
            "values": ["true"],
        }
    ]
    [left] = apply_exclusions("baseline", LATEST, exclude, results, {}, spec)
    assert [e.field for e in left.result.errors] == ["spec.containers[1].securityContext.privileged"]
    exclude[0]["images"] = ["*"]
    assert apply_exclusions("baseline", LATEST, exclude, evaluate_pss("baseline", LATEST, {}, spec), {}, spec) == []
