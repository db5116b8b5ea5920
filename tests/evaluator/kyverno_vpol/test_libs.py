"""Kyverno's CEL libraries offline: their signatures, answers and error texts."""

import pytest

from evaluator.policies.kyverno_vpol import evaluate

from .helpers import create, policy, pod

CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cfg", "namespace": "default"},
    "data": {"registry": "ghcr.io/"},
}


def _outcome(expression, documents=(), request=None, **spec):
    p = policy([{"expression": expression, "message": "failed"}], **spec)
    [result] = [r for r in evaluate([p, *documents], request or create(pod())) if r["policy"] == "p"]
    rule = result["rules"][0]
    return rule["result"], rule["message"]


def test_resource_get_and_list_read_the_projects_documents():
    assert _outcome("resource.Get('v1', 'configmaps', 'default', 'cfg').data.registry == 'ghcr.io/'", [CM]) == (
        "pass",
        "success",
    )
    assert _outcome("resource.Get('v1', 'configmaps', 'default', 'missing') == null", [CM])[0] == "pass"
    assert _outcome("size(resource.List('v1', 'configmaps', 'default').items) == 1", [CM])[0] == "pass"
    assert _outcome("resource.List('v1', 'secrets', 'default').items == []", [CM]) == (
        "error",
        "error: failed to list resource: secrets resource not found",
    )


def test_http_answers_from_mocks_and_names_the_missing_one():
    values = {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Values",
        "apiCallResponses": [{"method": "GET", "url": "https://x.example/ok", "response": {"body": {"allowed": True}}}],
    }
    assert _outcome("http.Get('https://x.example/ok').body.allowed", [values])[0] == "pass"
    status, message = _outcome("http.Get('https://x.example/other').body.allowed", [values])
    assert status == "error" and "request failed: no mock for GET https://x.example/other" in message


def test_image_references_parse_like_go_containerregistry():
    assert (
        _outcome(
            "image('nginx').registry() == 'index.docker.io' && image('nginx').repository() == 'library/nginx'"
            " && image('nginx').tag() == 'latest'"
        )[0]
        == "pass"
    )
    digest = "sha256:" + "a" * 64
    assert (
        _outcome(
            f"image('ghcr.io/a/b:1@{digest}').digest() == '{digest}' && "
            f"image('ghcr.io/a/b@{digest}').identifier() == '{digest}' && "
            f"image('ghcr.io/a/b@{digest}').containsDigest() && !isImage('UPPER')"
        )[0]
        == "pass"
    )
    assert _outcome("image('Bad Ref').tag() == ''") == ("error", "error: could not parse reference: Bad Ref")


def test_image_metadata_comes_from_a_context_document():
    context = {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Context",
        "spec": {"images": [{"image": "nginx:1.27", "config": {"User": "1000"}}]},
    }
    assert _outcome("image.GetMetadata('nginx:1.27').config.User == '1000'", [context])[0] == "pass"
    assert _outcome("image.GetMetadata('busybox').config.User == '1000'", [context]) == (
        "error",
        "error: failed to get image data: image data for busybox not found in the context",
    )


def test_global_context_values_and_projections():
    values = {
        "apiVersion": "cli.kyverno.io/v1alpha1",
        "kind": "Values",
        "globalContextEntries": [
            {"name": "deps", "data": {"d": [1, 2]}, "projections": [{"name": "n", "path": "length(d)"}]}
        ],
    }
    assert _outcome("globalContext.Get('deps', 'n') == 2", [values])[0] == "pass"
    assert _outcome("globalContext.Get('unknown', '') == null", [values])[0] == "pass"


def test_user_and_json_yaml_helpers():
    assert _outcome("parseServiceAccount('system:serviceaccount:ns:sa').Namespace == 'ns'")[0] == "pass"
    assert _outcome("json.unmarshal('{\"a\": [1]}').a[0] == 1 && yaml.parse('a: b').a == 'b'")[0] == "pass"


def test_kyverno_functions_do_not_leak_into_validating_admission_policies():
    from evaluator.admission.expressions import compile_check

    assert compile_check("resource.Get('v1', 'configmaps', 'default', 'x') != null", "validation", False)
    assert compile_check("image('nginx').registry() != ''", "validation", False)


@pytest.mark.parametrize("expression", ["resource.Post('v1', 'configmaps', 'default', {})"])
def test_writes_are_refused_offline(expression):
    status, message = _outcome(f"{expression} != null")
    assert status == "error" and "failed to create resource" in message


def test_yaml_alias_bombs_stop_at_the_node_budget():
    bomb = (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\\n"
        "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]"
    )
    status, message = _outcome(f"yaml.parse('{bomb}') != null")
    assert status == "error" and "more than 100000 nodes" in message


def test_hash_library_digests_strings_under_both_spellings():
    """kyverno.hash: md5 / sha1 / sha256 as lowercase hex, prefixed `hash.` and bare."""
    image = "public.ecr.aws/docker/library/nginx:latest"
    assert _outcome(f"hash.md5('{image}') == '48729939c9129e8aa42540ba4b5e6100'")[0] == "pass"
    assert _outcome("md5('') == 'd41d8cd98f00b204e9800998ecf8427e'")[0] == "pass"
    assert _outcome("hash.sha1('abc') == 'a9993e364706816aba3e25717850c26c9cd0d89d'")[0] == "pass"
    assert _outcome("sha256('abc') == 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'")[0] == "pass"
    assert _outcome("hash.md5(1) == ''")[1].startswith("failed to compile policy p")
