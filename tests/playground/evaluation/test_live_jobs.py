"""The live room's jobs (playground/evaluation/live_jobs.py), in threads and in worker processes."""

import json

import pytest

from playground.evaluation import live_jobs as evaluation_jobs
from tests.playground.playground_fixtures import BINDING, POLICY, deployment


@pytest.mark.parametrize("processes", [0, 1])
async def test_live_jobs_give_the_same_results_in_threads_and_processes(settings, processes):
    settings.PLAYGROUND_EVALUATION_PROCESSES = processes
    texts = [POLICY, BINDING]
    loaded, results = await evaluation_jobs.evaluate(texts, [deployment(9), deployment(1)])
    assert loaded["document_errors"] == [[], []]
    (big_summary, big_json), (small_summary, _) = results
    assert big_summary["allowed"] is False and small_summary["allowed"] is True
    assert "no greater than 5" in json.loads(big_json)["status"]["message"]
    request = {"id": 7, "name": "big", "expected": {"allowed": False}}
    text, digest, unchanged = evaluation_jobs.result_messages(3, request, big_summary, big_json)
    message = json.loads(text)
    assert message["type"] == "result" and message["version"] == 3
    assert message["request"]["verdict"] == "pass" and message["request"]["result"]["allowed"] is False
    assert message["request"]["digest"] == digest < 2**52
    short = json.loads(unchanged)  # the same message, `unchanged` in place of the result
    assert short["request"].pop("unchanged") is True and "result" not in short["request"]
    assert {**short["request"], "result": message["request"]["result"]} == message["request"]
    assert evaluation_jobs.result_messages(4, request, big_summary, str(big_json))[1] == digest
    assert "max-replicas" in await evaluation_jobs.typecheck(texts)


@pytest.fixture
def counted_jobs(settings, monkeypatch):
    """Worker jobs counted, each held until released (so a second ask finds the first under way)."""
    import asyncio

    from playground.evaluation import pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    calls: list[tuple] = []
    release = asyncio.Event()
    run = pool.run

    async def counted(function, *args, **kwargs):
        calls.append(args)
        await release.wait()
        return await run(function, *args, **kwargs)

    monkeypatch.setattr(pool, "run", counted)
    return calls, release


async def test_an_evaluation_under_way_is_joined_not_asked_again(counted_jobs):
    import asyncio

    calls, release = counted_jobs
    import time

    evaluation_jobs.start([POLICY, BINDING], [deployment(9)])
    await asyncio.sleep(0.01)
    asked = time.perf_counter()
    timing = {"started": asked}
    joined = asyncio.ensure_future(evaluation_jobs.evaluate([POLICY, BINDING], [deployment(9)], timing=timing))
    other = asyncio.ensure_future(evaluation_jobs.evaluate([POLICY, BINDING], [deployment(2)]))
    await asyncio.sleep(0.05)
    release.set()
    (_, [(summary, _)]), (_, [(small, _)]) = await asyncio.gather(joined, other)
    assert summary["allowed"] is False and small["allowed"] is True
    assert len(calls) == 2  # the early start and the other request; the join asked no worker
    assert timing["started"] < asked  # its time counts from the job's start, not from the join


async def test_a_failed_early_start_is_not_handed_to_a_later_caller(settings, monkeypatch, caplog):
    import asyncio

    from playground.evaluation import pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    run, calls = pool.run, []

    async def first_fails(function, *args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("worker died")
        return await run(function, *args, **kwargs)

    monkeypatch.setattr(pool, "run", first_fails)
    evaluation_jobs.start([POLICY, BINDING], [deployment(9)])
    await asyncio.sleep(0.05)  # the early start failed, unjoined
    _, [(summary, _)] = await evaluation_jobs.evaluate([POLICY, BINDING], [deployment(9)])
    assert summary["allowed"] is False and len(calls) == 2  # asked again, not handed the old failure
    assert "never retrieved" not in caplog.text


async def test_a_job_its_starter_gave_up_is_asked_again_by_a_caller_who_still_waits(settings, monkeypatch):
    """The room's first evaluation is superseded while a second caller has joined it for the same texts: that
    caller still gets its results (it was handed the starter's Abandoned before, and showed nothing)."""
    import asyncio

    from playground.evaluation import pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    run, calls, release = pool.run, [], asyncio.Event()

    async def abandonable(function, *args, abandoned=None, **kwargs):
        calls.append(args)
        await release.wait()
        if abandoned is not None and abandoned():
            raise pool.Abandoned("the evaluation was abandoned while it ran")
        return await run(function, *args, abandoned=abandoned, **kwargs)

    monkeypatch.setattr(pool, "run", abandonable)
    superseded = False
    starter = asyncio.ensure_future(
        evaluation_jobs.evaluate([POLICY, BINDING], [deployment(9)], abandoned=lambda: superseded)
    )
    await asyncio.sleep(0.01)
    joiner = asyncio.ensure_future(evaluation_jobs.evaluate([POLICY, BINDING], [deployment(9)]))
    await asyncio.sleep(0.01)
    superseded = True
    release.set()
    with pytest.raises(pool.Abandoned):
        await starter
    _, [(summary, _)] = await joiner
    assert summary["allowed"] is False
    assert len(calls) == 2  # the starter's job, then the joiner's own


async def test_a_small_document_sets_type_checks_come_with_its_evaluation(settings, monkeypatch):
    """No second round trip to the worker for them; a big set's are asked for apart (they would hold its
    results up)."""
    from playground.evaluation import jobs, pool

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    run, calls = pool.run, []

    async def counted(function, *args, **kwargs):
        calls.append(function.__name__)
        return await run(function, *args, **kwargs)

    monkeypatch.setattr(pool, "run", counted)
    texts = [POLICY, BINDING]
    await evaluation_jobs.evaluate(texts, [deployment(9)])
    checks = await evaluation_jobs.typecheck(texts)
    assert calls == ["evaluate_texts"] and checks == jobs.typecheck(texts)
    assert "max-replicas" in checks
    await evaluation_jobs.evaluate(texts, [deployment(2)])  # the same documents: not asked again
    assert calls == ["evaluate_texts"] * 2

    monkeypatch.setattr(jobs, "EAGER_TYPECHECK_CHARS", len(POLICY))
    bigger = [POLICY, BINDING + "\n# a comment\n"]
    await evaluation_jobs.evaluate(bigger, [deployment(9)])
    assert await evaluation_jobs.typecheck(bigger) == checks
    assert calls == ["evaluate_texts"] * 3 + ["typecheck"]


def test_a_type_check_that_fails_costs_the_evaluation_nothing(settings, monkeypatch):
    from playground.evaluation import jobs
    from playground.evaluation import service

    def broken(self):
        raise RuntimeError("a checker bug")

    monkeypatch.setattr(service.LoadedDocuments, "typecheck", broken)
    errors, [(summary, _)] = jobs.evaluate_texts([POLICY, BINDING], [deployment(9)], None, True)
    assert summary["allowed"] is False and "typecheck" not in errors


async def test_a_result_an_edit_did_not_concern_is_the_same_text(settings):
    """Each request keeps the clock it was first received at (its audit event's timestamps): a policy edit
    leaves the result of a request it does not decide byte for byte as it was, so the room can say so."""
    from tests.playground.playground_fixtures import policy

    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    evaluation_jobs.clear_caches()
    requests = [deployment(9), deployment(1)]
    _, before = await evaluation_jobs.evaluate([POLICY, BINDING], requests)
    _, after = await evaluation_jobs.evaluate([policy(message='"at most 5 replicas"'), BINDING], requests)
    assert after[1][1] == before[1][1]  # allowed either way: nothing of it changed
    assert after[0][1] != before[0][1] and "at most 5 replicas" in after[0][1]
    received = json.loads(after[0][1])["auditEvent"]["requestReceivedTimestamp"]
    assert received == json.loads(before[0][1])["auditEvent"]["requestReceivedTimestamp"]
