"""Live re-evaluation (playground/services/live.py): work nobody waits for is stopped, not run to its bound."""

from __future__ import annotations

import asyncio
import pytest
from channels.db import database_sync_to_async

from playground.evaluation import pool
from playground.services import live, project_service
from tests.playground.evaluation.test_pool import gone
from tests.playground.playground_fixtures import costly_policies

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"


@pytest.fixture
def one_worker(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 1
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 30
    assert pool.wait_until_started()
    yield
    pool.shutdown()


def worker_pid() -> int:
    return pool.health()["workers"][0]["pid"]


def contents(policies: int = 3) -> tuple[list[dict], list[dict]]:
    documents = [{"name": f"d{i}", "text": text} for i, text in enumerate(costly_policies(policies))]
    return documents, [{"name": "r", "text": CONFIGMAP}]


def costly_state(version: int = 1) -> dict:
    documents = [{"id": i, "name": f"d{i}", "text": text} for i, text in enumerate(costly_policies(3))]
    requests = [{"id": 1, "name": "r", "text": CONFIGMAP, "expected": None}]
    return {"version": version, "documents": documents, "requests": requests, "kubernetesVersion": None}


def test_an_evaluation_a_newer_edit_superseded_stops_its_runaway_worker(one_worker):
    sent: list = []
    superseded = False
    runaway = worker_pid()

    async def send(message) -> None:
        sent.append(message)

    async def scenario() -> bool:
        nonlocal superseded
        task = asyncio.ensure_future(live.stream_evaluation(costly_state(), send, lambda: superseded))
        await asyncio.sleep(0.5)
        assert not task.done()  # seconds of work in the worker
        superseded = True
        return await asyncio.wait_for(task, 10)  # not the 30 s bound: stopped after the grace second

    assert asyncio.run(scenario()) is False
    assert [m["type"] for m in sent] == ["evaluating"]  # no result of the dropped version
    assert gone(runaway) and pool.wait_until_started() and worker_pid() != runaway


@pytest.mark.django_db(transaction=True)
def test_the_last_viewer_leaving_abandons_the_rooms_running_evaluation(one_worker):
    state, _ = project_service.create_project("costly", "", *contents())
    sent: list = []
    runaway = worker_pid()

    async def send(message) -> None:
        sent.append(message)

    async def scenario() -> None:
        runner = live.runner_for(state["id"], send)
        runner.request(state["version"])
        await asyncio.sleep(0.5)
        assert not runner.task.done()
        live.forget(state["id"])  # the consumer's disconnect; no viewer row is left
        await asyncio.wait_for(runner.task, 10)  # not the 30 s bound
        assert runner.unwatched and state["id"] not in live._RUNNERS

    asyncio.run(scenario())
    assert not any(getattr(m, "kind", None) == "result" for m in sent)
    assert gone(runaway)


@pytest.mark.django_db(transaction=True)
def test_a_viewer_leaving_while_others_watch_keeps_the_evaluation(one_worker):
    state, _ = project_service.create_project("watched", "", *contents(1))

    async def send(message) -> None:
        pass

    async def scenario() -> None:
        from playground.services import presence

        await database_sync_to_async(presence.join)(state["id"], "someone-else")
        runner = live.runner_for(state["id"], send)
        runner.request(state["version"])
        await asyncio.sleep(0.2)
        live.forget(state["id"])
        await asyncio.wait_for(runner.task, 30)
        assert not runner.unwatched and live._RUNNERS.get(state["id"]) is runner

    worker = worker_pid()
    asyncio.run(scenario())
    assert worker_pid() == worker  # finished in the same worker


def quick_state(version: int = 1) -> dict:
    documents = [{"id": 1, "name": "d", "text": ""}]
    requests = [{"id": 1, "name": "r", "text": CONFIGMAP, "expected": None}]
    return {"version": version, "documents": documents, "requests": requests, "kubernetesVersion": None}


def kinds(sent: list) -> list[str]:
    """Message types in send order, a Batch's messages in place."""
    out: list[str] = []
    for message in sent:
        items = message.messages if isinstance(message, live.Batch) else (message,)
        out.extend(item.kind if isinstance(item, live.Encoded) else item["type"] for item in items)
    return out


def stream(state: dict) -> list:
    sent: list = []

    async def send(message) -> None:
        sent.append(message)

    async def scenario() -> None:
        assert await live.stream_evaluation(state, send)
        await asyncio.sleep(live.EVALUATING_NOTICE_SECONDS + 0.1)  # a cancelled notice stays unsent

    asyncio.run(scenario())
    return sent


def test_a_quick_evaluation_goes_straight_to_its_results_in_one_message(one_worker, monkeypatch):
    monkeypatch.setattr(live, "EVALUATING_NOTICE_SECONDS", 5.0)  # quicker than this on any machine
    monkeypatch.setattr(live, "TYPECHECK_DELAY_SECONDS", 60.0)
    sent = stream(quick_state())
    assert len(sent) == 1 and kinds(sent) == ["documentErrors", "result", "done"]


def test_a_slow_evaluation_is_announced_before_its_results(one_worker, monkeypatch):
    monkeypatch.setattr(live, "EVALUATING_NOTICE_SECONDS", 0.0)  # every evaluation outlasts it
    monkeypatch.setattr(live, "TYPECHECK_DELAY_SECONDS", 60.0)
    assert kinds(stream(quick_state())) == ["evaluating", "documentErrors", "result", "done"]


def test_an_edit_starts_evaluating_what_it_will_save_only_when_the_runner_is_idle(monkeypatch, settings):
    from playground.evaluation import live_jobs as evaluation_jobs
    from playground.core.rate_limit import TokenBucket

    started: list[tuple] = []
    monkeypatch.setattr(evaluation_jobs, "start", lambda texts, requests, *_, **__: started.append((texts, requests)))
    runner = live.ProjectRunner("p", send=None)
    bucket = TokenBucket(capacity=1, rate=0.001)
    runner.start_early(bucket, "request", 1, "kind: ConfigMap")
    assert started == []  # nothing evaluated yet: no base to edit
    runner.last = quick_state()
    runner.start_early(bucket, "request", 1, "kind: Secret")
    assert started == [([""], ["kind: Secret"])]
    runner.start_early(bucket, "request", 99, "kind: Secret")  # not an item of the project
    runner.task = type("Running", (), {"done": lambda self: False})()
    runner.start_early(bucket, "request", 1, "kind: Secret")  # busy: the newest edit is evaluated next anyway
    runner.task = None
    settings.PLAYGROUND_MAX_DOCUMENT_BYTES = 10
    runner.start_early(bucket, "request", 1, "kind: ConfigMap, far too long")  # the save will refuse it
    bucket.take()
    runner.start_early(bucket, "request", 1, "kind: Pod")  # over its rate: the evaluation is deferred
    assert len(started) == 1


def test_type_checks_the_room_has_are_not_checked_or_sent_again_but_new_ones_are(settings, monkeypatch):
    from tests.playground.playground_fixtures import BINDING, POLICY, deployment

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    monkeypatch.setattr(live, "TYPECHECK_DELAY_SECONDS", 0.0)
    documents = [{"id": 1, "name": "p", "text": POLICY}, {"id": 2, "name": "b", "text": BINDING}]
    state = {"version": 1, "documents": documents, "requests": [], "kubernetesVersion": None}
    sent: list = []

    async def send(message) -> None:
        sent.append(message)

    async def evaluate(state: dict) -> list[str]:
        sent.clear()
        assert await live.stream_evaluation(state, send, memo=memo)
        waiting.append(len(live._BACKGROUND))  # a type check waiting for the documents to be still
        await asyncio.gather(*live._BACKGROUND)
        return kinds(sent)

    waiting: list[int] = []

    memo: dict = {}
    request = {"id": 1, "name": "r", "text": deployment(9), "expected": None}
    assert asyncio.run(evaluate(state))[-1] == "typecheck"
    assert "typecheck" not in asyncio.run(evaluate({**state, "version": 2, "requests": [request]}))
    retyped = POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <= 'five'")
    edited = {**state, "version": 3, "documents": [{**documents[0], "text": retyped}, documents[1]]}
    assert asyncio.run(evaluate(edited))[-1] == "typecheck"  # a new warning: sent
    assert waiting == [1, 0, 1]
