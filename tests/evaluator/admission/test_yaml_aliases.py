"""YAML alias bombs are refused as go-yaml refuses them ("document contains excessive aliasing"), fast."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from evaluator import simulate
from evaluator.admission.documents import load_documents
from evaluator.admission.yaml_aliases import AliasError, allowed_alias_ratio, check_aliases, safe_load, safe_load_all
from evaluator.admission.go_yaml import load_all


def billion_laughs(levels: int = 9, indent: str = "") -> str:
    """The classic bomb: level n is a list of nine aliases of level n - 1 (9**levels strings)."""
    lines = [f'{indent}l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"{indent}l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


CONFIGMAP_BOMB = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb, namespace: default}\ndata:\n" + billion_laughs(indent="  ")
)


def composed(text: str) -> yaml.Node:
    return yaml.compose(text, Loader=yaml.SafeLoader)


def test_the_ratio_follows_go_yaml():
    assert allowed_alias_ratio(1_000) == 0.99
    assert allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(4_000_000) == 0.10
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)


def test_a_billion_laughs_is_refused_quickly_with_go_yamls_message():
    started = time.perf_counter()
    with pytest.raises(AliasError) as caught:
        check_aliases(composed(billion_laughs()))
    assert caught.value.problem == "document contains excessive aliasing"
    assert time.perf_counter() - started < 1.0


def test_ordinary_anchors_and_merge_keys_still_load():
    text = "base: &b {x: 1, y: [1, 2, 3]}\nmerged:\n  <<: *b\n  z: 2\ncopy: *b\n"
    assert safe_load(text) == {
        "base": {"x": 1, "y": [1, 2, 3]},
        "merged": {"x": 1, "y": [1, 2, 3], "z": 2},
        "copy": {"x": 1, "y": [1, 2, 3]},
    }


def test_a_large_share_of_aliases_in_a_small_document_is_allowed_below_99_percent():
    # 2,001 real nodes aliased 40 times: ~98 % of the decodes come from aliases, as go-yaml allows.
    text = "a: &a [" + ", ".join(str(i) for i in range(2000)) + "]\n" + "".join(f"b{i}: *a\n" for i in range(40))
    check_aliases(composed(text))
    # ...but one more level of aliasing on top of it goes past 99 %.
    text += "c: &c [" + ", ".join("*a" for _ in range(200)) + "]\n"
    with pytest.raises(AliasError):
        check_aliases(composed(text))


def test_an_anchor_containing_itself_is_refused():
    with pytest.raises(AliasError) as caught:
        safe_load("a: &loop [1, *loop]\n")
    assert caught.value.problem == "anchor 'loop' value contains itself"


def test_the_document_loader_reports_the_bomb_as_a_located_yaml_error():
    started = time.perf_counter()
    documents, errors = load_documents(CONFIGMAP_BOMB)
    assert documents == []
    assert errors[0].message == "invalid YAML: document contains excessive aliasing"
    assert errors[0].line is not None and errors[0].line >= 5
    assert time.perf_counter() - started < 1.0


def test_simulate_answers_a_bomb_in_documents_and_request_small_and_fast():
    started = time.perf_counter()
    result = simulate([CONFIGMAP_BOMB], CONFIGMAP_BOMB)
    assert time.perf_counter() - started < 2.0
    messages = [error["message"] for error in result["errors"]]
    assert messages.count("invalid YAML: document contains excessive aliasing") == 2
    assert len(json.dumps(result)) < 10_000


def test_kyverno_files_and_parse_yaml_are_bounded_too():
    with pytest.raises(AliasError):
        load_all(billion_laughs())
    with pytest.raises(AliasError):
        safe_load_all("a: 1\n---\n" + billion_laughs())
