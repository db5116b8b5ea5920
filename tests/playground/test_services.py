"""Services on their own: tokens, verdicts, the content-hash cache, the token bucket, limits."""

import pytest
from django.test import override_settings

from playground.models import Project
from playground.services import evaluation_service, expectations, limits, project_service, tokens
from playground.services.errors import ServiceError
from playground.services.rate_limit import TokenBucket
from tests.playground.playground_fixtures import BINDING, POLICY, deployment


def test_tokens_are_hashed_and_compared():
    token = tokens.new_token()
    stored = tokens.hash_token(token)
    assert stored != token and len(stored) == 64
    assert tokens.token_matches(token, stored)
    assert not tokens.token_matches(token + "x", stored)
    assert not tokens.token_matches(None, stored) and not tokens.token_matches("", stored)
    assert not tokens.token_matches(token, "")


def test_content_ids_are_short_and_stable():
    assert tokens.content_id(b"abc") == tokens.content_id(b"abc")
    assert tokens.content_id(b"abc") != tokens.content_id(b"abd")
    assert len(tokens.content_id(b"abc")) == 10


@pytest.mark.parametrize(
    "expected, result, verdict",
    [
        (None, {"allowed": True}, "none"),
        ({"allowed": True}, {"allowed": True}, "pass"),
        ({"allowed": True}, {"allowed": False, "status": {"message": "no"}}, "fail"),
        ({"outcome": "warned"}, {"allowed": True, "warnings": ["careful"]}, "pass"),
        ({"outcome": "allowed"}, {"allowed": True, "warnings": ["careful"]}, "fail"),
        (
            {"outcome": "denied", "messageContains": "too many"},
            {"allowed": False, "status": {"message": "too many x"}},
            "pass",
        ),
        ({"messageContains": "careful"}, {"allowed": True, "warnings": ["be careful"]}, "pass"),
        ({"messageContains": "absent"}, {"allowed": False, "status": {"message": "denied"}}, "fail"),
    ],
)
def test_verdicts_compare_expected_with_actual(expected, result, verdict):
    outcome, message = expectations.verdict(expected, result)
    assert outcome == verdict
    assert (message != "") == (verdict != "none")


def test_clean_expected_rejects_unknown_fields():
    with pytest.raises(ServiceError) as info:
        expectations.clean_expected({"allowd": True})
    assert info.value.path == "expected.allowd"
    assert expectations.clean_expected({}) is None


def test_results_are_cached_by_content_hash():
    evaluation_service.clear_caches()
    docs = [{"id": 1, "name": "p", "text": POLICY}, {"id": 2, "name": "b", "text": BINDING}]
    reqs = [{"id": 1, "name": "r", "text": deployment(9), "expected": None}]
    first = evaluation_service.evaluate(docs, reqs)
    stats = evaluation_service.cache_stats()
    assert stats["results"]["misses"] == 1 and stats["results"]["hits"] == 0
    second = evaluation_service.evaluate(docs, reqs)
    assert second["requests"][0]["result"] is first["requests"][0]["result"]
    assert evaluation_service.cache_stats()["results"]["hits"] == 1
    # another request text is a new entry; the document set is reused
    evaluation_service.evaluate(docs, [{**reqs[0], "text": deployment(1)}])
    stats = evaluation_service.cache_stats()
    assert stats["results"]["misses"] == 2 and stats["simulations"]["misses"] == 1


def test_request_errors_are_kept_apart_from_document_errors():
    result = evaluation_service.evaluate(
        [{"id": 1, "name": "p", "text": POLICY}],
        [{"id": 1, "name": "r", "text": "kind: [", "expected": {"allowed": True}}],
    )
    request = result["requests"][0]
    assert request["result"]["requestErrors"][0]["source"] == "<request>"
    assert request["verdict"] == "fail"
    assert all(e["source"] == "<text 0>" for e in result["documents"][0]["errors"])


def test_token_bucket_spends_and_refills():
    now = [0.0]
    bucket = TokenBucket(capacity=2, rate=1, clock=lambda: now[0])
    assert bucket.take() and bucket.take() and not bucket.take()
    assert bucket.wait_seconds() == pytest.approx(1.0)
    now[0] = 1.5
    assert bucket.take() and not bucket.take()


@override_settings(PLAYGROUND_MAX_DOCUMENT_BYTES=10)
def test_limits_count_bytes_not_characters():
    limits.check_text("é" * 5)  # 10 bytes
    with pytest.raises(ServiceError) as info:
        limits.check_text("é" * 6)
    assert info.value.status == 413


@pytest.mark.django_db
def test_project_ids_are_unguessable_and_tokens_never_stored():
    state, token = project_service.create_project("t")
    assert len(state["id"]) == 10
    assert not Project.objects.filter(edit_token_hash=token).exists()


@pytest.mark.parametrize("processes", [0, 1])
async def test_live_jobs_give_the_same_results_in_threads_and_processes(settings, processes):
    import json

    from playground.services import evaluation_jobs

    evaluation_jobs.clear_caches()
    settings.PLAYGROUND_EVALUATION_PROCESSES = processes
    try:
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
    finally:
        evaluation_jobs.clear_caches()
