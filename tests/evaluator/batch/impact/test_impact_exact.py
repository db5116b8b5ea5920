"""The impact report is exact: every replayed request's two answers are those `simulate` gives it alone,
the changed requests are exactly those whose answers differ, the counts are those of the answers, and a
pooled run (2 workers) gives the same report as a serial one."""

from __future__ import annotations

import io
from collections import Counter

import pytest

from evaluator import simulate
from evaluator.batch import impact
from evaluator.batch.impact.compare import side_of
from evaluator.batch.impact.sample_log import audit_log_lines, policy_change

EVENTS = 600


@pytest.fixture(scope="module")
def corpus():
    base, head = policy_change()
    log = "".join(audit_log_lines(EVENTS, seed=7)).encode()
    items = list(impact.AuditLog(io.BytesIO(log), "audit.log"))
    report = impact.run_impact(base, head, iter(items))
    return base, head, log, items, report


def test_every_answer_is_simulates_request_by_request(corpus):
    base, head, _, items, report = corpus
    changes = {c["index"]: c for c in report.changes}
    expected_changed = 0
    denied = Counter()
    for item in items:
        before = side_of(simulate(base, item["request"]))
        after = side_of(simulate(head, item["request"]))
        if before != after:
            expected_changed += 1
            change = changes[item["index"]]
            assert change["base"] == before and change["head"] == after
            assert change["line"] == item["line"]
        else:
            assert item["index"] not in changes
        denied["base"] += not before["allowed"]
        denied["head"] += not after["allowed"]
        denied["newly"] += before["allowed"] and not after["allowed"]
    summary = report.summary.as_dict()
    assert summary["requests"] == len(items)
    assert summary["changed"] == expected_changed == len(report.changes)
    assert summary["base"]["denied"] == denied["base"]
    assert summary["head"]["denied"] == denied["head"]
    assert summary["newlyDenied"] == denied["newly"] > 0


def test_the_sample_change_denies_newly_under_each_flipped_and_edited_policy(corpus):
    policies = corpus[4].summary.as_dict()["policies"]
    for key in ("require-team-label", "no-latest-tag", "ClusterPolicy/disallow-privileged"):  # Audit -> Deny
        assert policies[key]["newlyDenied"] > 0, key
        assert policies[key]["base"]["denied"] == 0 and policies[key]["head"]["audited"] == 0
    for key in ("replica-limit", "configmap-keys"):  # edited expressions
        assert policies[key]["newlyDenied"] > 0, key
    for key in ("scale-limit", "protect-kube-system", "no-shell"):  # the same on both sides
        assert policies[key]["changed"] == 0, key
        assert policies[key]["base"] == policies[key]["head"]


def test_groups_add_up_to_the_totals(corpus):
    summary = corpus[4].summary.as_dict()
    for group in ("namespaces", "kinds", "users", "operations", "timeline"):
        for key in ("requests", "changed", "newlyDenied", "messageChanged"):
            assert sum(g[key] for g in summary[group].values()) == summary[key], (group, key)


def test_two_workers_give_the_serial_report(corpus):
    base, head, log, _, report = corpus
    pooled = impact.run_impact(base, head, impact.AuditLog(io.BytesIO(log)), jobs=2, chunk_size=37)
    assert pooled.as_dict() == report.as_dict()


def test_chunks_merged_in_any_order_give_the_whole(corpus):
    base, head, _, items, report = corpus
    chunks = [impact.compare_chunk(base, head, items[i : i + 50]) for i in range(0, len(items), 50)]
    merged = impact.ImpactReport(impact.ImpactSummary())
    for chunk in reversed(chunks):
        merged.add_chunk(chunk)
    merged.changes.sort(key=lambda c: c["index"])
    assert merged.as_dict() == report.as_dict()


def test_max_changes_keeps_the_lowest_indexes_and_counts_the_rest(corpus):
    base, head, log, _, report = corpus
    capped = impact.run_impact(base, head, impact.AuditLog(io.BytesIO(log)), max_changes=10, chunk_size=64)
    assert [c["index"] for c in capped.changes] == [c["index"] for c in report.changes[:10]]
    assert capped.changes_omitted == len(report.changes) - 10
    assert capped.summary == report.summary


def test_a_dump_is_admitted_as_batch_admits_it():
    from evaluator.batch import run_chunk

    base, head = policy_change()
    objects = [e["requestObject"] for e in _creates(80)]
    report = impact.run_impact(base, head, impact.object_items(objects))
    before, after = run_chunk(base, objects), run_chunk(head, objects)
    changed = [
        i
        for i, (b, h) in enumerate(zip(before, after, strict=True))
        if (b["allowed"], b["message"], b["policies"]) != (h["allowed"], h["message"], h["policies"])
    ]
    assert [c["index"] for c in report.changes] == changed
    for change in report.changes:
        row = after[change["index"]]
        assert (change["head"]["allowed"], change["head"]["message"]) == (row["allowed"], row["message"])
        assert (change["kind"], change["namespace"], change["name"]) == (row["kind"], row["namespace"], row["name"])
    assert report.summary.as_dict()["timeline"] == {}


def _creates(count: int) -> list[dict]:
    from evaluator.batch.impact.sample_log import audit_events

    return [e for e in audit_events(count * 4, seed=3) if e.get("verb") == "create" and e.get("requestObject")][:count]


def test_explain_gives_both_full_results_of_a_change(corpus):
    base, head, _, items, report = corpus
    change = next(c for c in report.changes if "newlyDenied" in c["categories"])
    request = next(i["request"] for i in items if i["index"] == change["index"])
    full = impact.explain(base, head, request)
    assert side_of(full["base"]) == change["base"] and side_of(full["head"]) == change["head"]
    assert full["head"]["kubectl"]["text"].startswith("Error from server")


def test_the_policy_timeline_adds_up_to_each_policys_counts(corpus):
    summary = corpus[4].summary.as_dict()
    assert summary["policyTimeline"].keys() == {k for k, v in summary["policies"].items() if v["changed"]}
    for key, hours in summary["policyTimeline"].items():
        assert sum(c["changed"] for c in hours.values()) == summary["policies"][key]["changed"]
        assert sum(c["newlyDenied"] for c in hours.values()) == summary["policies"][key]["newlyDenied"]
        assert hours.keys() <= summary["timeline"].keys()
