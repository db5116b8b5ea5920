"""Evaluation with results cached by content hash (playground/evaluation/service.py)."""

import json

from evaluator.admission.loading import NamedText

from playground.evaluation import service as evaluation_service
from tests.playground.playground_fixtures import BINDING, POLICY, deployment


def test_results_are_cached_by_content_hash():
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


def test_the_live_rooms_results_are_not_kept_in_the_worker_but_one_kept_there_is_used():
    """The server keeps the live room's results (encoded); a REST evaluation's kept result still serves it."""
    from playground.evaluation import jobs

    texts = evaluation_service.named_texts([{"name": "p", "text": POLICY}, {"name": "b", "text": BINDING}])
    _, [(summary, result_json)] = jobs.evaluate_texts(texts, [deployment(9)])
    assert summary["allowed"] is False and json.loads(result_json)["allowed"] is False
    assert len(evaluation_service._RESULTS) == 0
    kept = evaluation_service.run_request(evaluation_service.load_documents(texts), deployment(2))
    assert len(evaluation_service._RESULTS) == 1
    _, [(summary, result_json)] = jobs.evaluate_texts(texts, [deployment(2)])
    assert json.loads(result_json) == kept and evaluation_service.cache_stats()["results"]["hits"] == 1


def test_a_hundred_rooms_document_sets_stay_loaded():
    """A workshop's hundred forks, each with its own policy text: a request edit in any of them finds its set
    loaded, without loading it again."""
    sets = [[NamedText(POLICY.replace("replicas", f"replicas ({n})"), "p")] for n in range(100)]
    for texts in sets:
        evaluation_service.load_documents(texts)
    assert evaluation_service.cache_stats()["simulations"] == {"hits": 0, "misses": 100}
    for texts in sets:
        evaluation_service.load_documents(texts)
    assert evaluation_service.cache_stats()["simulations"] == {"hits": 100, "misses": 100}


def test_loaded_document_sets_are_bounded_by_their_characters():
    """A worker's loaded sets weigh at most their characters' bound together: two sets of 4 MiB of text
    (the biggest project holds 5 MB) are not both kept, and the newest one is."""
    big = [NamedText("# " + "x" * (4 * 1024 * 1024), "big")]
    other = [NamedText("# " + "y" * (4 * 1024 * 1024), "other")]
    evaluation_service.load_documents(big)
    evaluation_service.load_documents(other)
    evaluation_service.load_documents(other)
    evaluation_service.load_documents(big)
    assert evaluation_service.cache_stats()["simulations"] == {"hits": 1, "misses": 3}


def test_request_errors_are_kept_apart_from_document_errors():
    result = evaluation_service.evaluate(
        [{"id": 1, "name": "p", "text": POLICY}],
        [{"id": 1, "name": "r", "text": "kind: [", "expected": {"allowed": True}}],
    )
    request = result["requests"][0]
    assert request["result"]["requestErrors"][0]["source"] == "r"  # the request by its name
    assert request["verdict"] == "fail"
    assert all(e["source"] == "p" for e in result["documents"][0]["errors"])  # the document's name


def test_messages_name_documents_by_their_names():
    """A binding of a policy that does not compile points at the policy's error in `policy.yaml`, never in
    an internal `<text N>`; renaming the document renames it in the messages (a new cache entry)."""
    broken = POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <= ")
    assert broken != POLICY
    documents = [{"id": 1, "name": "policy.yaml", "text": broken}, {"id": 2, "name": "binding.yaml", "text": BINDING}]
    result = evaluation_service.evaluate(documents, [])
    errors = [e for doc in result["documents"] for e in doc["errors"]] + result["errors"]
    assert "<text" not in json.dumps(result)
    warning = next(e for e in errors if "so the binding has no effect" in e["message"])
    assert "see its error in policy.yaml at line" in warning["message"]
    assert warning["policyError"]["source"] == "policy.yaml" and warning["policyError"]["document"] == 0
    renamed = evaluation_service.evaluate([{**documents[0], "name": "limits.yaml"}, documents[1]], [])
    assert "see its error in limits.yaml at line" in json.dumps(renamed)
