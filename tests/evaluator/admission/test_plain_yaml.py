"""The direct builder of plain YAML documents gives what PyYAML's constructor gives, and hands every other
document back (aliases, merge keys, tags, `=` keys, unhashable keys) so the loader's own path decides."""

from __future__ import annotations

import pytest
import yaml

from evaluator.admission.documents import _duplicate, _key_text, _Loader, load_documents
from evaluator.admission.go_yaml import GoYamlLoader
from evaluator.admission.plain_yaml import Unusual, plain_data
from evaluator.cli.yaml_text import _FastLoader, parse_documents

PLAIN = [
    "a: 1\nb: [x, 'y', \"z\", 2.5, true, null, ~, 0x1f, 0o17, 1_000, 2024-01-01, 1:20]\nc: {d: {e: []}}",
    "- 1\n- - 2\n  - {}\n- ''\n- |\n  text\n  more\n",
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web, 'on': yes, 'n': no}}\n",
    "1: one\n2.5: two\ntrue: three\nnull: four\n",
    "key with spaces: &notananchor value",  # a `&` in the text: checked for aliases, none found
    "plain",
    "123",
]
UNUSUAL = [
    "a: &x {b: 1}\nc: *x\n",
    "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n",
    "a: !!str 12\nb: !!set {x, y}\n",
    "=: value\n",
    "? [a, b]\n: c\n",
    "a: &s text\nb: *s\n",
]


@pytest.mark.parametrize("loader_class", [_Loader, _FastLoader])
@pytest.mark.parametrize("text", PLAIN)
def test_plain_documents_are_built_as_the_loader_builds_them(loader_class, text):
    loader = loader_class(text)
    node = loader.get_single_node()
    if loader_class is _Loader:  # the engine's reader: string keys, duplicate keys refused
        built = plain_data(loader, node, _key_text, _duplicate, text)
    else:
        built = plain_data(loader, node, text=text)
    expected = loader_class(text).get_single_data()
    assert built == expected
    assert type(built) is type(expected)


@pytest.mark.parametrize("text", UNUSUAL)
def test_other_documents_are_handed_back(text):
    loader = _FastLoader(text)
    node = loader.get_single_node()
    with pytest.raises(Unusual):
        plain_data(loader, node, text=text)


@pytest.mark.parametrize("text", PLAIN + UNUSUAL)
def test_the_readers_read_as_pythons_parser_does(text):
    """parse_documents (the CLI's) against the pure-Python GoYamlLoader; load_documents against SafeLoader."""
    found, problems = parse_documents(text, "t.yaml")
    try:
        expected = yaml.load(text, Loader=GoYamlLoader)  # noqa: S506  (a SafeLoader subclass)
    except yaml.YAMLError:
        assert problems and not found
        return
    assert problems == [] and [data for _, data in found] == ([expected] if expected is not None else [])


def test_duplicate_keys_are_still_refused_with_both_lines():
    docs, errors = load_documents("a: 1\nb: 2\na: 3\n", "t.yaml")
    assert docs == [] and len(errors) == 1
    assert 'mapping key "a" already defined at line 1' in errors[0].message
    assert errors[0].line == 3


def test_an_alias_bomb_is_still_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [{', '.join(['*' + chr(96 + i)] * 9)}]")
    docs, errors = load_documents("\n".join(lines) + "\n", "bomb.yaml")
    assert docs == [] and errors and "alias" in errors[0].message.lower()
