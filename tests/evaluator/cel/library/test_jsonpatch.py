"""jsonpatch.escapeKey, as Kubernetes' CEL JSONPatch library declares it."""

from evaluator.cel import evaluate


def test_escape_key_escapes_tilde_then_slash():
    assert evaluate('jsonpatch.escapeKey("k8s.io/x~y")') == "k8s.io~1x~0y"
    assert evaluate('jsonpatch.escapeKey("~1")') == "~01"
    assert evaluate('"/metadata/labels/" + jsonpatch.escapeKey("a/b")') == "/metadata/labels/a~1b"
