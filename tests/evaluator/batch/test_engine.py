"""run_chunk rows, chunking, the per-process compile cache, Summary merging, explain."""

from __future__ import annotations

import json
import random

import pytest

from evaluator.batch import Summary, chunks, compiled, explain, run_chunk
from evaluator.batch.engine import documents_key
from evaluator.simulation import Simulation

from .policies import DOCUMENTS, deployment, mixed_objects, pod


def test_chunks_cut_in_order():
    assert chunks(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert chunks([], 3) == []
    with pytest.raises(ValueError):
        chunks([1], 0)


def test_a_row_per_object_with_every_policy_outcome():
    rows = run_chunk(DOCUMENTS, [deployment("big", 9, namespace="team-a"), pod("root", True)], start=40)
    big, root = rows
    assert json.loads(json.dumps(rows)) == rows  # JSON-serialisable as it is
    assert (big["index"], big["kind"], big["namespace"], big["name"], big["allowed"]) == (
        40,
        "Deployment",
        "team-a",
        "big",
        False,
    )
    assert big["message"] == (
        "deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy 'replicas' with binding "
        "'replicas-binding' denied request: too many replicas"
    )
    assert {(o["policy"], o["binding"], o["outcome"]) for o in big["policies"]} == {
        ("replicas", "replicas-binding", "denied"),
        ("team-label", "team-label-binding", "admitted"),
        ("no-latest", "pin-images", "admitted"),
        ("no-privileged-pods", "autogen-privileged", "admitted"),  # Kyverno's autogen rule for Deployments
    }
    assert root["index"] == 41 and root["allowed"] is False
    assert root["message"].startswith('admission webhook "validate.kyverno.svc-fail" denied the request: ')
    assert root["policies"] == [
        {
            "kind": "ClusterPolicy",
            "policy": "no-privileged-pods",
            "binding": "privileged",
            "outcome": "denied",
            "message": "validation error: privileged pods are not allowed. rule privileged failed at path "
            "/spec/containers/0/securityContext/privileged/",
        }
    ]


def test_warned_audited_and_error_outcomes():
    rows = run_chunk(DOCUMENTS, mixed_objects(8))
    by_name = {r["name"]: r for r in rows}
    warned = {o["policy"]: o["outcome"] for o in by_name["d1"]["policies"]}
    assert warned["team-label"] == "warned" and by_name["d1"]["allowed"] is True
    audited = {o["policy"]: o for o in by_name["d2"]["policies"]}["no-latest"]
    assert audited["outcome"] == "audited" and "latest tag" in audited["message"]
    assert by_name["d2"]["warnings"][0].startswith("policy no-latest.pin-images: validation error")
    error = by_name["c6"]["policies"][0]
    assert error["outcome"] == "error" and error["message"].endswith("resulted in error: no such key: data")
    assert by_name["ns5"]["policies"] == [] and by_name["ns5"]["namespace"] == ""


def test_the_policy_set_compiles_once_per_process():
    objects = [deployment("a", 1)]
    first = compiled(DOCUMENTS)
    run_chunk(DOCUMENTS, objects)
    assert compiled(DOCUMENTS) is first
    assert compiled(DOCUMENTS, "1.31") is not first  # another version is another set
    assert documents_key(DOCUMENTS) != documents_key(DOCUMENTS + "\n# changed\n")


def test_rows_equal_the_full_simulation_decision():
    objects = mixed_objects(16)
    rows = run_chunk(DOCUMENTS, objects)
    simulation = Simulation(DOCUMENTS)
    for row, obj in zip(rows, objects):
        full = simulation.run({"operation": "CREATE", "object": obj})
        assert row["allowed"] == full["allowed"] and row["warnings"] == full["warnings"]


def test_merged_chunk_summaries_equal_the_summary_of_all_rows():
    objects = mixed_objects(203)
    rows = run_chunk(DOCUMENTS, objects)
    whole = Summary.from_rows(rows)
    parts = [
        Summary.from_rows(run_chunk(DOCUMENTS, piece, start=i * 17)) for i, piece in enumerate(chunks(objects, 17))
    ]
    random.Random(3).shuffle(parts)  # chunks finish in any order
    merged = Summary()
    for part in parts:
        merged.merge(Summary.from_dict(json.loads(json.dumps(part.as_dict()))))  # stored as JSON between
    assert merged == whole
    assert merged.as_dict() == whole.as_dict()
    totals = whole.as_dict()
    assert totals["objects"] == 203
    assert totals["allowed"] + totals["denied"] == 203
    assert sum(g["objects"] for g in totals["namespaces"].values()) == 203
    assert sum(g["objects"] for g in totals["kinds"].values()) == 203
    replicas = totals["policies"]["replicas"]
    assert replicas["denied"] == sum(1 for i in range(203) if i % 8 == 0)
    assert [e["index"] for e in replicas["examples"]["denied"]] == [0, 8, 16, 24, 32]
    assert totals["policies"]["configmap-data"]["error"] == totals["errors"] == sum(1 for i in range(203) if i % 8 == 6)


def test_summary_text_names_policies_and_examples():
    text = Summary.from_rows(run_chunk(DOCUMENTS, mixed_objects(8))).text()
    assert text.splitlines()[0] == "8 objects: 3 denied, 2 warned, 1 audited, 1 with errors"
    assert "  replicas: denied 1, warned 0, audited 0, errors 0, admitted 3" in text
    assert "    denied: Deployment team-a/d0: too many replicas" in text


def test_explain_gives_the_full_result_with_traces():
    obj = deployment("big", 9)
    result = explain(DOCUMENTS, obj, index=3)
    assert result["allowed"] is False
    assert result["response"]["response"]["uid"] == "batch-3"
    record = next(p for p in result["policies"] if p["policy"] == "replicas")
    assert record["trace"]["validations"][0]["expression"] == "object.spec.replicas <= 5"
    assert run_chunk(DOCUMENTS, [obj], start=3)[0]["message"] == result["status"]["message"]
