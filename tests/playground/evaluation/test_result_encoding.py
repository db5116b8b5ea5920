"""The live room's results are encoded by orjson (playground/evaluation/jobs.py encode_result): the same JSON
value as the standard encoder's, which still writes what orjson refuses."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from playground.evaluation import jobs, service
from evaluator.admission.loading import NamedText

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "playground" / "examples").glob("*.yaml"))


def test_gallery_results_encode_to_the_same_json_value():
    encoded = 0
    for path in EXAMPLES:
        example = yaml.safe_load(path.read_text())
        texts = [NamedText(doc["text"], doc["name"]) for doc in example["documents"]]
        loaded = service.load_documents(texts)
        for request in example.get("requests") or []:
            result = service.run_request(loaded, request["text"], request["name"])
            assert json.loads(jobs.encode_result(result)) == json.loads(json.dumps(result))
            encoded += 1
    assert encoded > 50


def test_what_orjson_refuses_is_written_by_the_standard_encoder():
    for value in [{"text": "lone \ud800 surrogate"}, {"big": 2**70}, {"keys": {1: "one", None: "none"}}]:
        text = jobs.encode_result(value)
        assert text == json.dumps(value)
    assert json.loads(jobs.encode_result({"a": ["é", 1.5, None, True]})) == {"a": ["é", 1.5, None, True]}
