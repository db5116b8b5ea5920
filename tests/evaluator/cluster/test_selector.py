"""Label selectors, namespaces and names are checked before a read is sent: the grammar of apimachinery's
labels.Parse, URL segments that cannot leave their resource's path."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.cluster import ClusterError, ClusterReader, Connection, ReadOnlyClient
from evaluator.cluster.selector import MAX_SELECTOR, name_problem, namespace_problem, selector_problem
from tests.fake_apiserver import sample_cluster, serving, write_kubeconfig

VALID = [
    "",
    "a=b",
    "a==b,c!=d",
    "env in (dev,qa)",
    "env notin (dev)",
    "!legacy",
    "a",
    "a=",
    "x>3",
    "a,b",
    "app.kubernetes.io/name=web",
    "team=a, tier!=db",
    "env in ()",
]
INVALID = {
    "a in (b": "found '', expected: ',', or ')'",
    "!!=x": "found '!=', expected: identifier",
    "a b": "found 'b', expected: '=', '!=', '==', 'in', notin'",
    "a=b,": "found '', expected: identifier",
    "a in b": "found 'b', expected: '('",
    "a=b c": "found 'c', expected: ',' or 'end of string'",
    "x>y": "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: 'y'",
}


@pytest.mark.parametrize("selector", VALID)
def test_selectors_the_api_server_accepts(selector):
    assert selector_problem(selector) is None


@pytest.mark.parametrize(("selector", "problem"), INVALID.items())
def test_selectors_it_refuses_in_its_words(selector, problem):
    assert selector_problem(selector) == problem


def test_bad_keys_values_and_length():
    assert selector_problem("a=-bad-").startswith("unable to parse requirement: values[0]: Invalid value: '-bad-'")
    assert selector_problem("-k=v").startswith("unable to parse requirement: key: Invalid value: '-k'")
    assert selector_problem("a" * (MAX_SELECTOR + 1)) == f"must be at most {MAX_SELECTOR} characters (it has 4,097)"


def test_names_and_namespaces_are_one_url_segment():
    assert namespace_problem("team-a") is None and name_problem("web.v2") is None
    assert "RFC 1123" in namespace_problem("a/../b")
    assert name_problem("../secrets") == "Invalid value: '../secrets': may not contain '/'"
    assert name_problem("..") == "Invalid value: '..': may not be '..'"
    assert name_problem("") == "Required value: name is required"


def test_the_reader_never_sends_a_path_that_leaves_its_resource(tmp_path: Path):
    cluster = sample_cluster()
    with serving(cluster) as url:
        client = ReadOnlyClient(Connection(str(write_kubeconfig(tmp_path / "kubeconfig", url)), "fake")).open()
        reader = ClusterReader(client, None)
        deployments = reader.resolve("Deployment")
        sent = len(cluster.requests)
        for call in (
            lambda: reader.get(deployments, None, "../../../api/v1/secrets"),
            lambda: reader.get(deployments, "x/..", "web"),
            lambda: reader.list(deployments, "../..", None),
            lambda: reader.count(deployments, None, "a in (b"),
        ):
            with pytest.raises(ClusterError) as refused:
                call()
            assert refused.value.reason == "invalid" and refused.value.what == "deployments.apps"
        client.close()
    assert len(cluster.requests) == sent
