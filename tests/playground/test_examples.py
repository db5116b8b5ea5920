"""Every gallery example evaluates with the real engine and every stated expectation holds."""

import pytest

from playground.services import evaluation_service, example_service

SLUGS = [example["slug"] for example in example_service.list_examples()]


def test_the_gallery_covers_the_seeds_and_our_own_examples():
    assert sum(slug.startswith("seed-") for slug in SLUGS) >= 30
    assert sum(not slug.startswith("seed-") for slug in SLUGS) >= 8
    kinds = {tag for example in example_service.list_examples() for tag in example["tags"]}
    assert {"vap", "map", "kyverno"} <= kinds


@pytest.mark.parametrize("slug", SLUGS)
def test_example_expectations_hold(slug):
    example = example_service.get_example(slug)
    documents = [{"id": i, **doc} for i, doc in enumerate(example["documents"])]
    requests = [{"id": i, **req} for i, req in enumerate(example["requests"])]
    result = evaluation_service.evaluate(documents, requests)
    errors = [(d["name"], e["message"]) for d in result["documents"] for e in d["errors"] if e["severity"] == "error"]
    if "broken-on-purpose" in example["tags"]:
        assert errors, "an example tagged broken-on-purpose shows at least one error"
    else:
        assert not errors
    assert requests, "an example needs at least one sample request"
    for request in result["requests"]:
        if request["expected"]:
            assert request["verdict"] == "pass", (request["name"], request["verdictMessage"])
        else:  # no stated expectation: still a usable request that got a decision
            problems = [e for e in request["result"]["errors"] if e.get("severity", "error") == "error"]
            assert isinstance(request["result"]["allowed"], bool) and not problems, (request["name"], problems)
