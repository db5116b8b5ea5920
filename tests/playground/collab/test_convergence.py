"""Concurrent typing through the real WebSocket consumer converges and loses nothing.

N clients (headless CodeMirror states with the real @codemirror/collab and the page's CollabSync, in Node)
type random scripts into one document of a live daphne at the same time, with random delays and dropped
connections; afterwards every client and the database hold the same text, and every marker a client typed
is in it exactly once (markers hold no dot; the scripts delete only filler dots)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import live_server

HERE = Path(__file__).resolve().parent
CLIENTS = HERE / "clients.mjs"
NODE_MODULES = live_server.ROOT / "node_modules" / "@codemirror" / "collab"
CLIENT_COUNT = 5

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if shutil.which("node") is None or not NODE_MODULES.exists():
        pytest.fail("needs Node.js and node_modules (npm ci): `make test` installs them")
    running = live_server.start(tmp_path_factory.mktemp("collab-server"))
    yield running
    running.stop()


def run_clients(server, scripts, text="start\n"):
    created = server.api(
        "POST", "/api/v1/projects", {"title": "co-editing", "documents": [{"name": "doc.yaml", "text": text}]}
    )
    doc = created["documents"][0]["id"]
    plan = {
        "base": server.url,
        "projectId": created["id"],
        "token": created["editToken"],
        "target": "document",
        "id": doc,
        "scripts": scripts,
    }
    completed = subprocess.run(
        ["node", "--experimental-websocket", str(CLIENTS)],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=90,
        cwd=live_server.ROOT,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    stored = server.api("GET", f"/api/v1/projects/{created['id']}/documents/{doc}")
    return outcome, stored


def markers_of(scripts):
    return [op["insert"] for script in scripts for op in script if "insert" in op]


def assert_converged(outcome, stored, scripts):
    assert outcome["settled"], outcome  # "closes": close codes of connections the server ended
    assert outcome["errors"] == []
    assert len(set(outcome["texts"])) == 1, outcome["texts"]
    assert outcome["texts"][0] == stored["text"]
    assert set(outcome["versions"]) == {stored["collabVersion"]}
    for marker in markers_of(scripts):
        assert stored["text"].count(marker) == 1, (marker, stored["text"])


op = st.one_of(
    st.fixed_dictionaries({"filler": st.integers(1, 3), "at": st.floats(0, 1)}),
    st.fixed_dictionaries({"remove": st.floats(0, 1)}),
    st.fixed_dictionaries({"wait": st.integers(0, 40)}),
    st.just({"drop": True}),
    st.just({"insert": None, "at": 0.5}),
    st.fixed_dictionaries({"insert": st.none(), "at": st.floats(0, 1)}),
)


@st.composite
def scripts(draw):
    plans = []
    for client in range(CLIENT_COUNT):
        ops = draw(st.lists(op, min_size=2, max_size=14))
        numbered = []
        for n, step in enumerate(ops):
            step = dict(step)
            if "insert" in step:
                step["insert"] = f"<c{client}-{n}>"
            numbered.append(step)
        plans.append(numbered)
    return plans


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scripts())
def test_concurrent_random_scripts_converge_and_keep_every_insertion(server, plans):
    outcome, stored = run_clients(server, plans)
    assert_converged(outcome, stored, plans)


def test_five_clients_typing_fast_at_the_same_place(server):
    plans = [[{"insert": f"<c{c}-{n}>", "at": 1.0} for n in range(25)] for c in range(CLIENT_COUNT)]
    outcome, stored = run_clients(server, plans, text="")
    assert_converged(outcome, stored, plans)
    assert len(stored["text"]) == sum(len(m) for m in markers_of(plans))


def test_squashed_pushes_at_the_same_place_converge(server):
    """After a refusal the page pushes its unsent changes squashed (one composition, then empty updates); such a
    push is never rebased on the server, so five clients doing it while typing at one spot still converge."""
    plans = [
        [
            step
            for n in range(20)
            for step in ([{"squash": True}] if n % 3 == c % 3 else []) + [{"insert": f"<c{c}-{n}>", "at": 1.0}]
        ]
        for c in range(CLIENT_COUNT)
    ]
    outcome, stored = run_clients(server, plans, text="")
    assert_converged(outcome, stored, plans)
    assert len(stored["text"]) == sum(len(m) for m in markers_of(plans))


def test_typing_while_offline_is_sent_and_merged_on_reconnect(server):
    plans = [
        [
            {"insert": "<a1>", "at": 0},
            {"drop": True},
            {"insert": "<a2>", "at": 1},
            {"insert": "<a3>", "at": 1},
            {"wait": 50},
        ],
        [{"wait": 20}, {"insert": "<b1>", "at": 1}, {"insert": "<b2>", "at": 0}, {"wait": 100}],
    ]
    outcome, stored = run_clients(server, plans)
    assert_converged(outcome, stored, plans)
