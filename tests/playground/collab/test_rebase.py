"""The server's rebase gives what the real @codemirror/collab gives, and a client ends with the server's text.

Random histories: a base text, changes of other clients (`over`), and a client's own changes made on the
base (`updates`), sometimes with its first changes already accepted among `over` (a push sent again after
its acknowledgement was lost), and more typed after the push (`later`). The reference is the library itself,
run by Node (rebase.mjs): its `rebaseUpdates`, applied over each missed change in turn, must give the same
change sets as ours, and an editor that typed `updates` and `later` and then receives `over` + the rebased
ones, each on its own (`receiveUpdates`, as static/src/collab.js does), must hold the server's text plus
what it has not sent yet.

Why one change at a time matters is pinned by `test_mapping_over_a_composition_is_not_mapping_in_turn`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.collab import changes
from playground.collab.changes import ChangeSet
from playground.collab.rebase import Update, rebase
from tests import live_server

HERE = Path(__file__).resolve().parent
ALPHABET = st.sampled_from(list("ab \nxé😀"))


@pytest.fixture(scope="module")
def library():
    if shutil.which("node") is None or not (live_server.ROOT / "node_modules" / "@codemirror" / "collab").exists():
        pytest.fail("needs Node.js and node_modules (npm ci)")
    process = subprocess.Popen(
        ["node", str(HERE / "rebase.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=live_server.ROOT,
    )

    def ask(case: dict) -> dict:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(case) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield ask
    process.stdin.close()  # type: ignore[union-attr]
    process.wait(timeout=10)


@st.composite
def change_set(draw, text: str) -> list:
    """A random change set on `text`: non-overlapping replacements at character boundaries, in the JSON an
    editor sends (no empty sections, never a change that changes nothing)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    if len(cuts) % 2:
        cuts.append(len(text))
    sections: list = []
    pos = 0
    for start, end in zip(cuts[0::2], cuts[1::2], strict=True):
        inserted = draw(st.text(alphabet=ALPHABET, max_size=4))
        if start == end and not inserted:
            continue
        if start > pos:
            sections.append(changes.length(text[pos:start]))
        removed = changes.length(text[start:end])
        sections.append([removed, *inserted.split("\n")] if inserted else [removed])
        pos = end
    if pos < len(text):
        sections.append(changes.length(text[pos:]))
    if all(type(part) is int for part in sections):  # an editor sends only changes that change something
        return [[0, "z"], *sections]
    return sections


@st.composite
def history(draw, text: str, client: str, count: int) -> tuple[str, list[dict]]:
    updates = []
    for _ in range(count):
        json_form = draw(change_set(text))
        updates.append({"changes": json_form, "clientID": client})
        text = changes.apply(text, json_form)
    return text, updates


@st.composite
def cases(draw) -> dict:
    base = draw(st.text(alphabet=ALPHABET, max_size=12))
    typed, own = draw(history(base, "me", draw(st.integers(1, 3))))
    _, later = draw(history(typed, "me", draw(st.integers(0, 2))))
    text, others = base, []
    for _ in range(draw(st.integers(0, 3))):
        text, more = draw(history(text, draw(st.sampled_from(["a", "b"])), 1))
        others += more
    accepted = draw(st.integers(0, len(own) - 1))  # own changes already in the history (a push sent again)
    if accepted:
        sent_before = [as_json(u) for u in rebase(read(own[:accepted]), read(others))]
        for update in sent_before:
            text = changes.apply(text, update["changes"])
        text, after = draw(history(text, "b", draw(st.integers(0, 2))))
        others = others + sent_before + after
    return {"doc": base, "over": others, "updates": own, "later": later}


def read(updates: list[dict]) -> list[Update]:
    return [Update(ChangeSet.from_json(u["changes"]), u["clientID"]) for u in updates]


def as_json(update: Update) -> dict:
    return {"changes": update.changes.to_json(), "clientID": update.client_id}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases())
def test_rebase_matches_the_library_and_the_client_converges(library, case):
    reference = library(case)
    assert "error" not in reference, reference
    ours = [as_json(u) for u in rebase(read(case["updates"]), read(case["over"]))]
    assert ours == reference["rebased"]
    text = case["doc"]
    for update in case["over"] + ours:
        text = changes.apply(text, update["changes"])
    assert text == reference["server"]
    assert reference["unsent"] == len(case["later"])
    assert reference["client"] == reference["clientOnServer"]  # the editor holds the server's text + its unsent
    if not case["later"]:
        assert reference["client"] == text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_map_and_compose_match_the_library_on_one_pair(library, data):
    """Two concurrent changes from different clients: each order of mapping gives the library's text."""
    base = data.draw(st.text(alphabet=ALPHABET, max_size=12))
    first, second = data.draw(change_set(base)), data.draw(change_set(base))
    case = {
        "doc": base,
        "over": [{"changes": first, "clientID": "a"}],
        "updates": [{"changes": second, "clientID": "me"}],
    }
    reference = library(case)
    a, b = ChangeSet.from_json(first), ChangeSet.from_json(second)
    assert b.map(a).to_json() == reference["rebased"][0]["changes"]
    # A·B.map(A) == B·A.map(B, before): the property the client and the server rely on.
    units = changes.units(base)
    one = b.map(a).apply_units(a.apply_units(units))
    other = a.map(b, True).apply_units(b.apply_units(units))
    assert changes.from_units(one) == changes.from_units(other) == reference["server"]
    assert changes.from_units(a.compose(b.map(a)).apply_units(units)) == reference["server"]


def test_mapping_over_a_composition_is_not_mapping_in_turn():
    """An insertion inside a range a later change replaces: over the composition it lands before the
    replacement, in turn after it — so the server and the client must take the same steps."""
    first, second = ChangeSet.from_json([[0, "z"], 1]), ChangeSet.from_json([[2, "a"]])  # "a" → "za" → "a"
    mine = ChangeSet.from_json([[0, "z"], 1])
    composed = mine.map(first.compose(second))
    in_turn = mine.map(first).map(second)
    after = second.apply_units(first.apply_units("a"))
    assert (composed.apply_units(after), in_turn.apply_units(after)) == ("za", "az")
    over = [Update(first, "a"), Update(second, "a")]
    assert rebase([Update(mine, "me")], over)[0].changes.to_json() == in_turn.to_json()


def test_a_push_sent_again_is_not_applied_twice():
    own = read([{"changes": [5, [0, "!"]], "clientID": "me"}])
    assert rebase(own, own) == []


def test_mismatched_lengths_are_refused():
    with pytest.raises(changes.ServiceError, match="lengths differ"):
        rebase(read([{"changes": [3, [0, "x"]], "clientID": "me"}]), read([{"changes": [5], "clientID": "a"}]))
