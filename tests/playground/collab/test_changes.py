"""CodeMirror change sets applied to Python text, counted in UTF-16 units as the editor counts them."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.collab import changes
from playground.core.errors import ServiceError


def test_retain_delete_insert():
    assert changes.apply("hello world", [6, [5, "there"]]) == "hello there"
    assert changes.apply("abc", [[3]]) == ""
    assert changes.apply("", [[0, "a", "b"]]) == "a\nb"
    assert changes.apply("ab", [1, [0, "", ""], 1]) == "a\nb"


def test_positions_are_utf16_units():
    # "😀" is one Python character but two UTF-16 units, as CodeMirror counts it.
    assert changes.length("a😀b") == 4
    assert changes.apply("a😀b", [3, [1, "c"]]) == "a😀c"
    assert changes.apply("é😀", [1, [2, "x"]]) == "éx"


@pytest.mark.parametrize(
    "bad",
    [
        "x",
        None,
        [-1],
        [[-2]],
        [["a"]],
        [[1, 2]],
        [1.5],
        [{}],
        [[]],
    ],
)
def test_malformed_change_sets_are_refused(bad):
    with pytest.raises(ServiceError) as error:
        changes.apply("a", bad)
    assert error.value.code == "invalid_message"


def test_a_change_set_for_another_length_is_refused():
    with pytest.raises(ServiceError, match="length 2, not 3"):
        changes.apply("abc", [2])
    with pytest.raises(ServiceError, match="splits a character"):
        changes.apply("😀", [1, [1, "x"]])


def test_line_endings_are_those_the_editor_holds():
    assert changes.normalise("a\r\nb\rc") == "a\nb\nc"


text = st.text(alphabet=st.sampled_from(list("ab\n é😀")), max_size=30)


@settings(max_examples=300, deadline=None)
@given(text, text)
def test_between_turns_old_into_new_with_a_small_change(old, new):
    change_set = changes.between(old, new)
    assert changes.apply(old, change_set) == new if change_set else old == new


@settings(max_examples=300, deadline=None)
@given(text, text)
def test_between_keeps_the_longest_common_head_and_tail(old, new):
    """The change replaces only what lies between the longest common head and the longest common tail left
    beside it, as a character-by-character comparison finds them (between compares by halving)."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if old == new:
        return
    inserted = new[head : len(new) - tail]
    expected = [changes.length(old[:head])] if head else []
    removed = changes.length(old[head : len(old) - tail])
    expected.append([removed, *inserted.split("\n")] if inserted else [removed])
    if tail:
        expected.append(changes.length(old[len(old) - tail :]))
    assert changes.between(old, new) == expected
