"""The live room's jobs (playground/services/evaluation_jobs.py), in threads and in worker processes."""

import json

import pytest

from playground.services import evaluation_jobs
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
    text = evaluation_jobs.result_message_text(
        3, {"id": 7, "name": "big", "expected": {"allowed": False}}, big_summary, big_json
    )
    message = json.loads(text)
    assert message["type"] == "result" and message["version"] == 3
    assert message["request"]["verdict"] == "pass" and message["request"]["result"]["allowed"] is False
    assert "max-replicas" in await evaluation_jobs.typecheck(texts)
