"""Document texts parsed once (evaluator/admission/parsed_texts.py): the same results as parsing each time,
records of each caller's own, and a bounded cache."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

import evaluator
from evaluator.admission import parsed_texts
from evaluator.admission.documents import load_documents
from evaluator.admission.loading import NamedText
from evaluator.cel.memo import RecentMemo

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "playground" / "examples").glob("*.yaml"))
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
TEXT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: '1', b: [x, y]}\n"


@pytest.fixture(autouse=True)
def empty_cache():
    parsed_texts.clear()
    yield
    parsed_texts.clear()


def results(example: dict) -> str:
    """Every request of a gallery example run against its documents, as one JSON text."""
    texts = [NamedText(doc["text"], doc["name"]) for doc in example["documents"]]
    simulation = evaluator.load(texts)
    outcome = {"errors": simulation.errors, "results": []}
    for request in example.get("requests") or []:
        outcome["results"].append(simulation.run(request["text"], now=NOW, request_name=request["name"]))
    return json.dumps(outcome, sort_keys=True, default=repr)


def test_the_gallery_gives_the_same_results_parsed_once_as_parsed_each_time(monkeypatch):
    examples = [yaml.safe_load(path.read_text()) for path in EXAMPLES]
    assert len(examples) > 20
    cached_cold = [results(example) for example in examples]
    cached_warm = [results(example) for example in examples]  # every text from the cache now
    monkeypatch.setattr(parsed_texts, "MAX_TEXT_CHARS", -1)  # nothing cached: parsed each time
    parsed_clear = [results(example) for example in examples]
    assert cached_cold == parsed_clear
    assert cached_warm == parsed_clear


def test_each_caller_gets_records_of_its_own():
    first, _ = parsed_texts.load_documents(TEXT, "t")
    first[0].data["data"]["b"].append("changed")
    first[0].data["metadata"]["name"] = "changed"
    first[0].position = 7
    again, _ = parsed_texts.load_documents(TEXT, "t")
    fresh, _ = load_documents(TEXT, "t")
    assert again[0].data == fresh[0].data
    assert again[0].position is None
    assert again[0].location("data.b") == fresh[0].location("data.b")


def test_errors_and_names_are_as_parsed():
    broken = "a: [1\n---\nkind: X\n"
    assert parsed_texts.load_documents(broken, "mine") == load_documents(broken, "mine")
    assert parsed_texts.load_documents(broken, "mine") == load_documents(broken, "mine")
    assert parsed_texts.load_documents(broken, "other")[1][0].source == "other"


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(parsed_texts, "_CACHE", RecentMemo(5, parsed_texts.MAX_TOTAL_CHARS, parsed_texts._text_chars))
    for n in range(20):
        parsed_texts.load_documents(TEXT + f"# {n}\n", "t")
    assert len(parsed_texts._CACHE) == 5
    chars = len(TEXT) * 2 + 20
    monkeypatch.setattr(parsed_texts, "_CACHE", RecentMemo(5, chars, parsed_texts._text_chars))
    for n in range(3):
        parsed_texts.load_documents(TEXT + f"# new {n}\n", "t")
    assert len(parsed_texts._CACHE) == 2
    assert parsed_texts._CACHE.weight == sum(len(key[0]) for key in parsed_texts._CACHE.keys()) <= chars
    big = TEXT + "#" * parsed_texts.MAX_TEXT_CHARS
    assert parsed_texts.load_documents(big, "t") == load_documents(big, "t")
    assert all(key[0] != big for key in parsed_texts._CACHE.keys())


def test_an_edit_parses_only_the_document_it_changed(monkeypatch):
    """A new text is read one YAML document at a time, each remembered: the documents an edit left alone are
    not parsed again, and the records (data, lines, field positions) are those of a fresh parse."""
    documents = [TEXT.replace("name: c", f"name: c{n}") for n in range(3)]
    parsed: list[str] = []
    parse = parsed_texts.parse_chunk
    monkeypatch.setattr(parsed_texts, "parse_chunk", lambda chunk: parsed.append(chunk) or parse(chunk))
    parsed_texts.load_documents("---\n".join(documents), "t")
    assert len(parsed) == 3
    documents[1] = documents[1].replace("a: '1'", "a: '2'") + "# a comment\n"
    edited = "---\n".join(documents)
    records, errors = parsed_texts.load_documents(edited, "t")
    assert len(parsed) == 4 and "a: '2'" in parsed[-1]
    fresh, fresh_errors = load_documents(edited, "t")
    assert errors == fresh_errors
    assert [(r.data, r.line, r.index) for r in records] == [(r.data, r.line, r.index) for r in fresh]
    assert [r.location("data.b") for r in records] == [r.location("data.b") for r in fresh]
    assert records[2].location("metadata.name") == fresh[2].location("metadata.name")


def test_a_document_that_does_not_parse_is_not_remembered():
    broken = TEXT + "---\na: [1\n"
    assert parsed_texts.load_documents(broken, "t") == load_documents(broken, "t")
    assert all("a: [1" not in chunk for chunk in parsed_texts._CHUNKS.keys())
    assert list(parsed_texts._CHUNKS.keys()) == [TEXT.rstrip("\n")]
