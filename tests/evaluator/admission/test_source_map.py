"""The source map: each character of a YAML string's value back to where it was typed, in every scalar style."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings, strategies as st

from evaluator.admission.source_map import SourceText, map_scalar, scalar_sources, value_offset

LOADERS = [yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)]


def scalars(text: str, loader=yaml.SafeLoader):
    return scalar_sources(yaml.compose(text, Loader=loader), SourceText(text))


def char_at(text: str, position: tuple[int, int]) -> str:
    line, column = position
    row = text.split("\n")[line - 1]
    return row[column - 1] if column - 1 < len(row) else "\n"


CORPUS = """\
plain: plain text
  continued here

  after blank
single: 'it''s
  folded'
double: "esc\\x41\\u00e9 \\
    joined\\n next
   line"
literal: |-
  lit
    more
  end
folded: >+
  folded one
  two

  three
    indented
  back

explicit: |2
    two extra
   one extra
flow: [x, "y z", 'w']
map: {k: "v\\tq"}
"""


def test_every_style_of_the_corpus_maps_back_to_its_characters():
    for loader in LOADERS:
        found = scalars(CORPUS, loader)
        assert set(found) >= {
            "plain",
            "single",
            "double",
            "literal",
            "folded",
            "explicit",
            "flow[0]",
            "flow[1]",
            "flow[2]",
            "map.k",
        }
        for path, scalar in found.items():
            assert scalar.offsets() is not None, path
            for k, ch in enumerate(scalar.value):
                if ch in " \n" or (scalar.style == '"' and ch in "A\u00e9\n\t"):
                    continue  # folded breaks and escapes: checked below
                assert char_at(CORPUS, scalar.value_position(k)) == ch, (path, k)


def test_exact_positions_of_escapes_folds_and_indentation():
    found = scalars(CORPUS)
    double = found["double"]  # line 7: double: "esc\x41\u00e9 \
    assert double.value == "escA\u00e9 joined\n next line"
    assert double.value_position(3) == (7, 13)  # A comes from the backslash of \x41
    assert double.value_position(4) == (7, 17)  # é from \u00e9
    assert double.value_position(6) == (8, 5)  # after the escaped line break: 'j' of joined
    assert double.value_position(12) == (8, 11)  # \n escape
    assert double.value_position(19) == (9, 4)  # 'l' of line after the folded break
    plain = found["plain"]
    assert plain.value == "plain text continued here\nafter blank"
    assert plain.value_position(10) == (1, 18)  # the folded break (a space in the value) is the line end
    assert plain.value_position(11) == (2, 3)  # 'c' of continued
    assert plain.value_position(26) == (4, 3)  # 'a' of after, past the blank line
    single = found["single"]
    assert single.value == "it's folded" and single.value_position(2) == (5, 12) and single.value_position(5) == (6, 3)
    literal = found["literal"]
    assert (
        literal.value == "lit\n  more\nend"
        and literal.value_position(4) == (12, 3)
        and literal.value_position(6) == (12, 5)
    )
    folded = found["folded"]
    assert folded.value == "folded one two\nthree\n  indented\nback\n\n"
    assert folded.value_position(11) == (16, 3)  # 'two': folded into the first line's value
    assert folded.value_position(15) == (18, 3)  # 'three', after an empty line
    assert folded.value_position(21) == (19, 3)  # more-indented line keeps its spaces
    explicit = found["explicit"]
    assert explicit.value == "  two extra\n one extra\n" and explicit.value_position(2) == (23, 5)
    assert found["flow[1]"].value_position(2) == (25, 14)
    assert found["map.k"].value_position(1) == (26, 12)  # the \\t escape


def test_chunk_line_offset_and_crlf_free_text():
    text = "a: 1\nexpr: 'x + y'\n"
    found = scalar_sources(yaml.compose(text), SourceText(text, line_offset=10))
    assert found["expr"].value_position(4) == (12, 12)


def test_expression_line_and_column():
    assert value_offset("ab\ncd", 2, 2) == 4
    assert value_offset("ab\ncd", 3, 1) is None
    assert value_offset("ab", 1, 9) == 2  # clamped to the line's end
    found = scalars("e: |\n  one\n  two(\n")
    assert found["e"].expression_position(2, 4) == (3, 6)


def test_a_value_the_scan_does_not_reproduce_is_not_mapped():
    text = "e: 'abc'\n"
    node = yaml.compose(text)
    value = node.value[0][1]
    assert map_scalar(text, value.start_mark.index, value.end_mark.index, "'", "abd") is None


_TEXT = st.text(alphabet=st.sampled_from(list("ab c\n\t'\"\\#:-{}[],é😀")), max_size=40)


@settings(max_examples=300, deadline=None)
@given(value=_TEXT, style=st.sampled_from([None, "'", '"', "|", ">"]), indent=st.sampled_from([0, 2, 4]))
@example(value=" :::::::::: :", style=">", indent=0)  # PyYAML reads back " ::::::::::\n:"
def test_any_string_in_any_style_maps_back(value, style, indent):
    """Whatever PyYAML writes for a string, in whatever style it chooses, we map every character of the value
    it reads back to a source character that is that same character, or a break/escape that produced it.
    That value is the reference, not the one dumped: PyYAML's folded style does not always round-trip."""
    dumped = yaml.dump(
        {"k": [{"v": value}]} if indent else {"v": value}, default_style=style, allow_unicode=True, width=12
    )
    node = yaml.compose(dumped)
    found = scalar_sources(node, SourceText(dumped))
    scalar = found.get("k[0].v" if indent else "v")
    assert scalar is not None
    value = scalar.value
    assert value == (yaml.safe_load(dumped)["k"][0]["v"] if indent else yaml.safe_load(dumped)["v"])
    offsets = scalar.offsets()
    assert offsets is not None, (dumped, scalar.style)
    assert len(offsets) == len(value) + 1
    assert offsets == sorted(offsets)
    for k, ch in enumerate(value):
        source = dumped[offsets[k]]
        assert source == ch or source in "\\\n '", (k, ch, source, dumped)
