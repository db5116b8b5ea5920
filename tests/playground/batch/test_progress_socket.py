"""A batch job's progress over its WebSocket (ws/batch/<id>/, channels' WebsocketCommunicator against the real
ASGI application): the state on hello, a progress message per stored chunk, the final totals, at most a few
messages a second however fast chunks end, tokens checked as by the REST endpoints, and lost chunks run again
with only the socket watching. Chunks run on the tests' local backend (threads, no pool processes) or, where
the test plays the workers, by runner.execute; the engine computes every row."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from playground.asgi import application
from playground.batch import consumer, engine, jobs, local, runner
from playground.batch.models import BatchChunk, BatchJob
from playground.core import outage
from playground.services import broadcast
from tests.playground import hostile
from tests.playground.batch.dumps import denied_count, dump
from tests.playground.test_hostile_ws import RAW

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10
HOST = [(b"host", b"localhost"), (b"origin", b"http://localhost")]


class Held(list):
    """The chunks sent while held; `real` sends some for real (to the tests' local backend)."""

    real = staticmethod(runner.dispatch)


@pytest.fixture
def held(monkeypatch) -> Held:
    """Chunks are not sent anywhere when the job is created (the test sends or runs them itself); the lost-chunk
    beat is slowed so that it sends none either."""
    sent = Held()
    monkeypatch.setattr(runner, "dispatch", sent.extend)
    monkeypatch.setattr(consumer, "RECOVER_SECONDS", 600.0)
    return sent


@database_sync_to_async
def new_job(project: dict, count: int) -> tuple[dict, str]:
    return jobs.create_job(project["id"], None, [("dump.yaml", dump(count))])


@database_sync_to_async
def chunk_ids(job_id: str) -> list[int]:
    return list(BatchChunk.objects.filter(job_id=job_id).order_by("index").values_list("id", flat=True))


async def watch(job_id: str, token: str | None) -> tuple[WebsocketCommunicator, dict]:
    ws = WebsocketCommunicator(application, f"/ws/batch/{job_id}/", headers=HOST)
    connected, _ = await ws.connect(timeout=TIMEOUT)
    assert connected
    await ws.send_json_to({"type": "hello", "token": token})
    return ws, await ws.receive_json_from(timeout=TIMEOUT)


async def until_finished(ws: WebsocketCommunicator, timeout: float = TIMEOUT) -> list[dict]:
    messages = []
    while not messages or messages[-1]["type"] != "finished":
        messages.append(await ws.receive_json_from(timeout=timeout))
    assert (await ws.receive_output(timeout=timeout))["type"] == "websocket.close"
    return messages


async def test_progress_streams_chunk_by_chunk_to_exact_totals(project, held):
    state, token = await new_job(project, 45)  # chunks of 10: 10, 10, 10, 10, 5
    ws, first = await watch(state["id"], token)
    assert first == {"type": "state", "job": {**first["job"], "status": "queued", "done": 0, "total": 45}}
    assert "editToken" not in first["job"]
    seen = [first]
    for n, chunk_id in enumerate(await chunk_ids(state["id"]), start=1):
        assert await database_sync_to_async(runner.execute)(chunk_id, engine.compute)
        while seen[-1]["job"]["done"] < min(10 * n, 45):
            seen.append(await ws.receive_json_from(timeout=TIMEOUT))
    assert await ws.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 1000}
    dones = [m["job"]["done"] for m in seen]
    assert dones == sorted(dones)
    assert {10, 20, 30, 40} <= set(dones)  # one message per chunk when they end slower than five a second
    assert [m["type"] for m in seen[1:-1]] == ["progress"] * (len(seen) - 2)
    assert all(m["job"]["status"] == "running" for m in seen[1:-1])
    final = seen[-1]
    assert final["type"] == "finished" and final["job"]["status"] == "done"
    assert final["job"]["done"] == final["job"]["total"] == 45
    assert final["job"]["denied"] == denied_count(45)
    assert final["job"]["etaSeconds"] is None and final["job"]["elapsedSeconds"] >= 0


async def test_chunks_ending_fast_are_coalesced_into_a_few_messages(project, held, settings):
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 1
    state, token = await new_job(project, 60)
    ws, first = await watch(state["id"], token)
    assert first["job"]["status"] == "queued"
    started = time.monotonic()
    held.real(await chunk_ids(state["id"]))  # the local backend's thread runs the 60 chunks one after another
    messages = await until_finished(ws)
    elapsed = time.monotonic() - started
    await database_sync_to_async(local.wait)(60)
    assert messages[-1]["job"]["status"] == "done" and messages[-1]["job"]["done"] == 60
    assert messages[-1]["job"]["denied"] == denied_count(60)
    # 60 chunks announced; at most one look every REFRESH_SECONDS (the first at once, the last one final).
    assert len(messages) <= elapsed / consumer.REFRESH_SECONDS + 2, (len(messages), elapsed)
    assert len(messages) < 30, len(messages)
    dones = [m["job"]["done"] for m in messages]
    assert dones == sorted(dones)


async def test_a_job_that_already_ended_says_so_and_closes(project, held):
    state, token = await new_job(project, 5)
    ws, first = await watch(state["id"], token)
    (chunk_id,) = await chunk_ids(state["id"])
    await database_sync_to_async(runner.execute)(chunk_id, engine.compute)
    await until_finished(ws)
    again, first = await watch(state["id"], token)
    assert first["type"] == "state" and first["job"]["status"] == "done"
    final = await again.receive_json_from(timeout=TIMEOUT)
    assert final == {"type": "finished", "job": {**final["job"], "status": "done", "done": 5, "total": 5}}
    assert (await again.receive_output(timeout=TIMEOUT))["code"] == 1000


async def test_cancel_is_streamed_as_the_final_message(project, held, client):
    state, token = await new_job(project, 30)
    ws, _ = await watch(state["id"], token)
    await database_sync_to_async(jobs.cancel)(state["id"], token)
    (final,) = await until_finished(ws)
    assert final["type"] == "finished" and final["job"]["status"] == "cancelled" and final["job"]["done"] == 0


async def test_the_project_token_is_accepted_and_wrong_or_missing_tokens_are_refused(project, held):
    state, _ = await new_job(project, 5)
    owner, first = await watch(state["id"], project["editToken"])
    assert first["type"] == "state" and first["job"]["id"] == state["id"]
    await owner.disconnect()

    wrong, refused = await watch(state["id"], "not-the-token")
    assert refused["type"] == "error" and refused["error"]["code"] == "forbidden"
    assert refused["error"]["status"] == 403
    assert (await wrong.receive_output(timeout=TIMEOUT))["code"] == 4403

    silent = WebsocketCommunicator(application, f"/ws/batch/{state['id']}/", headers=HOST)
    assert (await silent.connect(timeout=TIMEOUT))[0]
    await silent.send_json_to({"type": "hello"})  # no token
    assert (await silent.receive_json_from(timeout=TIMEOUT))["error"]["code"] == "forbidden"
    assert (await silent.receive_output(timeout=TIMEOUT))["code"] == 4403

    gone, missing = await watch("nosuchjob", "any")
    assert missing["error"]["code"] == "not_found" and missing["error"]["message"] == "batch job not found"
    assert (await gone.receive_output(timeout=TIMEOUT))["code"] == 4404


async def test_hostile_messages_before_the_token_get_errors_and_the_socket_stays_open(project, held):
    state, token = await new_job(project, 5)
    ws = WebsocketCommunicator(application, f"/ws/batch/{state['id']}/", headers=HOST)
    assert (await ws.connect(timeout=TIMEOUT))[0]
    await ws.send_json_to({"type": "evaluate"})
    refused = await ws.receive_json_from(timeout=TIMEOUT)
    assert refused["error"]["code"] == "invalid_message" and refused["error"]["path"] == "type"
    spoiled = [hostile.fill('{"type": "hello", "token": @}', fragment) for fragment in hostile.FOR_STRING.values()]
    for text in spoiled + list(RAW.values()):
        if text is None:
            await ws.send_to(bytes_data=b"\xff\xfe")
        else:
            await ws.send_to(text_data=text)
        error = (await ws.receive_json_from(timeout=TIMEOUT))["error"]
        assert error["code"] in {"invalid_json", "invalid_message", "invalid_request", "too_large"}, (text, error)
    await ws.send_json_to({"type": "hello", "token": token})  # still open: the token is taken now
    assert (await ws.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    await ws.disconnect()


@database_sync_to_async
def crash_after_claim(chunk_id: int) -> None:
    """A worker took the chunk and died: it stays running and its lease runs out."""
    assert runner.claim(chunk_id) is not None
    BatchChunk.objects.filter(id=chunk_id).update(lease_until=timezone.now() - timedelta(seconds=1))


@database_sync_to_async
def chunk(chunk_id: int) -> BatchChunk:
    return BatchChunk.objects.get(id=chunk_id)


async def test_a_chunk_lost_with_its_worker_runs_again_with_only_the_socket_watching(project, held, monkeypatch):
    state, token = await new_job(project, 30)  # chunks of 10
    lost, *others = await chunk_ids(state["id"])
    held.real(others)  # the other chunks run on the local backend; nobody reads the job's status
    await database_sync_to_async(local.wait)(60)
    await crash_after_claim(lost)  # after the others: no live worker of the job is left to notice
    assert (await chunk(lost)).status == BatchChunk.RUNNING
    job = await database_sync_to_async(BatchJob.objects.get)(id=state["id"])
    assert job.status == "running" and job.done == 20

    monkeypatch.setattr(runner, "dispatch", held.real)
    monkeypatch.setattr(consumer, "RECOVER_SECONDS", 0.2)
    ws, first = await watch(state["id"], token)
    assert first["job"]["status"] == "running" and first["job"]["done"] == 20
    messages = await until_finished(ws)
    await database_sync_to_async(local.wait)(60)
    final = messages[-1]["job"]
    assert final["status"] == "done" and final["done"] == final["total"] == 30
    assert final["denied"] == denied_count(30)
    again = await chunk(lost)
    assert again.status == BatchChunk.DONE and again.attempts == 2


async def test_a_worker_lost_too_often_fails_the_job_on_the_socket(project, held, monkeypatch, settings):
    settings.PLAYGROUND_BATCH_ATTEMPTS = 1
    monkeypatch.setattr(consumer, "RECOVER_SECONDS", 0.2)
    state, token = await new_job(project, 15)
    lost, _ = await chunk_ids(state["id"])
    await crash_after_claim(lost)
    ws, first = await watch(state["id"], token)
    assert first["job"]["status"] == "running"
    final = (await until_finished(ws))[-1]["job"]
    assert final["status"] == "failed"
    assert final["error"] == (
        "objects 0–9: the worker running them stopped 1 time (crashed or was killed); the job was stopped"
    )


def test_a_failing_channel_layer_never_fails_a_chunk(project, held, monkeypatch, caplog):
    class DownLayer:
        async def group_send(self, group: str, message: dict) -> None:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(broadcast, "get_channel_layer", DownLayer)
    monkeypatch.setattr(outage, "_LAST", {})  # no outage reported yet in this period
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(15))])
    for chunk_id in BatchChunk.objects.filter(job_id=state["id"]).values_list("id", flat=True):
        assert runner.execute(chunk_id, engine.compute)
    finished = jobs.status(state["id"], token)
    assert finished["status"] == "done" and finished["done"] == 15 and finished["denied"] == denied_count(15)
    assert caplog.text.count("broadcast unavailable (ConnectionError") == 1  # one line for 15 failed sends
