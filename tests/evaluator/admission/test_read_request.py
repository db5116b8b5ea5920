"""Sample requests read once per text (admission/read_request.py): the same results as reading each request
every run, with a request of each run's own, and nothing kept of a request that could not be read."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

import evaluator
from evaluator.admission import read_request as reads
from evaluator.admission.loading import NamedText
from evaluator.k8s.restmapping import builtin_mapper

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "playground" / "examples").glob("*.yaml"))
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: dev}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
"""


@pytest.fixture(autouse=True)
def forget():
    reads.clear()
    yield
    reads.clear()


def results(example: dict) -> str:
    """Every request of a gallery example, each run twice, against its documents, as one JSON text."""
    simulation = evaluator.load([NamedText(doc["text"], doc["name"]) for doc in example["documents"]])
    runs = [
        simulation.run(request["text"], now=NOW, request_name=request["name"])
        for request in (example.get("requests") or []) * 2
    ]
    return json.dumps(runs, sort_keys=True, default=repr)


def test_the_gallery_gives_the_same_results_with_requests_read_once(monkeypatch):
    """Mutating policies (MAP, Kyverno) change the request they run on: a remembered read must not carry a
    change from one run into the next."""
    examples = [yaml.safe_load(path.read_text()) for path in EXAMPLES]
    assert len(examples) > 20
    remembered = [results(example) for example in examples]
    assert len(reads._READ) > 20
    monkeypatch.setattr(reads, "MAX_REMEMBERED_CHARS", -1)  # every request read each run
    assert remembered == [results(example) for example in examples]


def test_each_run_gets_a_request_of_its_own():
    first = reads.read_request(DEPLOYMENT, builtin_mapper(), "r", True)
    first.request["object"]["spec"]["replicas"] = 99
    first.request["userInfo"]["username"] = "changed"
    first.errors.append({"message": "changed"})
    first.defaulted["object"].append("changed")
    again = reads.read_request(DEPLOYMENT, builtin_mapper(), "r", True)
    fresh = reads._read(DEPLOYMENT, builtin_mapper(), "r", True)
    assert (again.request, again.errors, again.defaulted) == (fresh.request, fresh.errors, fresh.defaulted)
    assert again.request["object"]["spec"]["replicas"] == 2
    assert "spec.strategy.type" in again.defaulted["object"] and "changed" not in again.defaulted["object"]


def test_the_name_defaulting_and_mapper_are_the_key():
    bare = reads.read_request(DEPLOYMENT, builtin_mapper(), "r", False)
    defaulted = reads.read_request(DEPLOYMENT, builtin_mapper(), "r", True)
    assert bare.defaulted == {"object": [], "oldObject": []} and defaulted.defaulted["object"]
    assert "strategy" not in bare.request["object"]["spec"] and "strategy" in defaulted.request["object"]["spec"]
    unknown = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: dev}\n"
    named = reads.read_request(unknown, builtin_mapper(), "first", True)
    renamed = reads.read_request(unknown, builtin_mapper(), "second", True)
    assert [e["source"] for e in named.errors] == ["first"] and [e["source"] for e in renamed.errors] == ["second"]
    assert "no matches for kind" in named.errors[0]["message"]
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}
            ],
        },
    }
    mapper, problems = builtin_mapper().with_crds([crd])
    assert not problems and mapper is not builtin_mapper()
    known = reads.read_request(unknown, mapper, "first", True)
    assert known.errors == []  # the CRD's mapping: no guess to warn about
    assert reads.read_request(unknown, builtin_mapper(), "first", True).errors == named.errors


def test_a_request_that_cannot_be_read_is_not_kept():
    broken = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [\n"
    first = reads.read_request(broken, builtin_mapper(), "r", True)
    assert first.request is None and first.errors
    assert len(reads._READ) == 0
    assert reads.read_request(broken, builtin_mapper(), "r", True).errors == first.errors
