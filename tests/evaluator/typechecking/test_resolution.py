"""typesToCheck: wildcard and sub-resource skips, sorting, and the 10-type counter (per rule, counting repeats)."""

from __future__ import annotations

from evaluator.k8s.restmapping import GVK, GVR, RESTMapper, ResourceInfo
from evaluator.typechecking.resolution import params_gvk, parse_group_version, types_to_check


def _policy(*rules):
    return {"spec": {"matchConstraints": {"resourceRules": list(rules)}}}


def _rule(groups, versions, resources):
    return {"apiGroups": groups, "apiVersions": versions, "resources": resources}


def _mapper(n: int, group: str = "example.com") -> RESTMapper:
    """A mapper serving resources r00..r{n-1} of kinds K00.. in `group`/v1."""
    entries = [ResourceInfo(GVR(group, "v1", f"r{i:02d}"), "", GVK(group, "v1", f"K{i:02d}"), True) for i in range(n)]
    return RESTMapper(entries)


def test_no_match_constraints_means_nothing():
    assert types_to_check({"spec": {}}) == []
    assert types_to_check(_policy()) == []


def test_wildcards_skip_the_whole_rule_and_sub_resources_are_dropped():
    assert types_to_check(_policy(_rule(["*"], ["v1"], ["deployments"]))) == []
    assert types_to_check(_policy(_rule(["apps"], ["v*"], ["deployments"]))) == []
    assert types_to_check(_policy(_rule(["apps"], ["v1"], ["deployments/status", "*"]))) == []
    assert types_to_check(_policy(_rule(["apps"], ["v1"], ["deployments/scale", "deployments"]))) == [
        GVK("apps", "v1", "Deployment")
    ]
    assert types_to_check(_policy(_rule([], ["v1"], ["deployments"]))) == []


def test_result_is_sorted_by_group_version_kind():
    rule = _rule(["apps", ""], ["v1"], ["statefulsets", "pods", "deployments", "configmaps"])
    assert types_to_check(_policy(rule)) == [
        GVK("", "v1", "ConfigMap"),
        GVK("", "v1", "Pod"),
        GVK("apps", "v1", "Deployment"),
        GVK("apps", "v1", "StatefulSet"),
    ]


def test_unknown_resources_are_skipped_and_do_not_count():
    mapper = _mapper(12)
    rule = _rule(["example.com"], ["v1"], ["nope1", "nope2"] + [f"r{i:02d}" for i in range(9)])
    assert len(types_to_check(_policy(rule), mapper)) == 9


def test_the_tenth_kind_of_a_rule_stops_everything_in_sorted_resource_order():
    mapper = _mapper(12)
    rule = _rule(["example.com"], ["v1"], [f"r{i:02d}" for i in reversed(range(12))])
    later = _rule(["example.com"], ["v1"], ["r11"])
    found = types_to_check(_policy(rule, later), mapper)
    assert [g.kind for g in found] == [f"K{i:02d}" for i in range(10)]


def test_the_counter_is_per_rule_so_several_rules_can_give_more_than_ten():
    mapper = _mapper(12)
    first = _rule(["example.com"], ["v1"], [f"r{i:02d}" for i in range(6)])
    second = _rule(["example.com"], ["v1"], [f"r{i:02d}" for i in range(6, 12)])
    assert len(types_to_check(_policy(first, second), mapper)) == 12


def test_repeats_count_toward_the_limit():
    mapper = _mapper(12)
    # two versions that resolve to the same kinds would count twice; emulate with the same kind via two resources
    entries = mapper.entries + [
        ResourceInfo(GVR("example.com", "v1", f"alias{i}"), "", GVK("example.com", "v1", "K00"), True) for i in range(9)
    ]
    rule = _rule(["example.com"], ["v1"], [f"alias{i}" for i in range(9)] + ["r05", "r06"])
    found = types_to_check(_policy(rule), RESTMapper(entries))
    # aliases sort first: 9 counts of K00, then r05 is the 10th count
    assert found == [GVK("example.com", "v1", "K00"), GVK("example.com", "v1", "K05")]


def test_param_kind_api_version_parsing():
    assert parse_group_version("") == ("", "")
    assert parse_group_version("v1") == ("", "v1")
    assert parse_group_version("example.com/v1") == ("example.com", "v1")
    assert parse_group_version("a/b/c") is None
    assert params_gvk({"spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}}) == GVK("", "v1", "ConfigMap")
    assert params_gvk({"spec": {"paramKind": {"apiVersion": "a/b/c", "kind": "X"}}}).empty
    assert params_gvk({"spec": {}}).empty
