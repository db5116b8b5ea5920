"""Every gallery example evaluates with the real engine and every stated expectation holds."""

import re

import pytest

from playground.evaluation import service as evaluation_service
from playground.services import example_meta, example_service

SLUGS = [example["slug"] for example in example_service.list_examples()]


def test_the_gallery_covers_the_seeds_and_our_own_examples():
    assert len(SLUGS) >= 80
    assert sum(slug.startswith("seed-") for slug in SLUGS) >= 30
    assert sum(not slug.startswith("seed-") for slug in SLUGS) >= 8
    kinds = {tag for example in example_service.list_examples() for tag in example["tags"]}
    assert {"vap", "map", "kyverno"} <= kinds


INTERNAL_WORDING = re.compile(r"\bseed\b|ferricel|benchmark|reference project", re.IGNORECASE)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_example_says_what_it_teaches_for_users(slug):
    example = next(e for e in example_service.list_examples() if e["slug"] == slug)
    assert example["group"] in example_meta.GROUP_TITLES.values()
    assert example["difficulty"] in example_meta.DIFFICULTIES
    assert re.fullmatch(r"1\.\d\d", example["kubernetes"])
    assert 20 <= len(example["description"]) <= 300, "a short description, one or two sentences"
    assert not INTERNAL_WORDING.search(example["title"] + " " + example["description"])
    assert "seed" not in example["tags"]
    if slug.startswith("seed-"):  # taken from a documentation page: say which, with its link
        assert example["source"]["url"].startswith(("https://kubernetes.io/docs/", "https://kyverno.io/docs/"))


def test_every_group_of_the_gallery_has_examples():
    used = {example["groupSlug"] for example in example_service.list_examples()}
    assert used == {slug for slug, _title, _blurb in example_meta.GROUPS}


def test_an_unknown_group_or_difficulty_is_refused():
    with pytest.raises(example_meta.ExampleMetaError):
        example_meta.describe({"group": "Misc"})
    with pytest.raises(example_meta.ExampleMetaError):
        example_meta.describe({"group": "VAP basics", "difficulty": "easy"})
    with pytest.raises(example_meta.ExampleMetaError):
        example_meta.describe({"source": {"url": "http://insecure.example"}})


def test_search_words_come_from_the_yaml_not_from_punctuation():
    words = example_meta.search_words({"documents": [{"text": "kind: ConfigMap\nspec:\n  x: 12"}]}).split()
    assert words == ["kind", "ConfigMap", "spec"]


@pytest.mark.parametrize("slug", SLUGS)
def test_example_expectations_hold(slug):
    example = example_service.get_example(slug=slug)
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
