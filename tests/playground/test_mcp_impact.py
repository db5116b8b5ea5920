"""The MCP `impact` tool ("what would this policy change break?"): called directly, and over the web mount
(/mcp) where it runs in the supervised evaluation workers under the REST API's size limits. Its counts agree
with the REST API's impact job over the same change and corpus; bad input comes back located, never raised."""

from __future__ import annotations

import pytest

from evaluator import mcp_server
from playground.batch import local
from tests.playground.impact.corpora import audit_log, limit_policy, newly_denied, project_body, replicas_dump
from tests.playground.playground_fixtures import binding
from tests.playground.test_mcp import fresh_rate_counters, post_mcp, tool_call  # noqa: F401 (a fixture)

REPLICAS = [2, 4, 9, 5, 3, 1, 4, 7]
BASE = [limit_policy(5), binding("max-replicas")]
HEAD = [limit_policy(3), binding("max-replicas")]


def test_a_dump_counts_what_the_change_newly_denies():
    result = mcp_server.impact(BASE, HEAD, objects=replicas_dump(REPLICAS))
    assert result["errors"] == []
    assert result["summary"]["newlyDenied"] == newly_denied(REPLICAS) == 3
    assert result["summary"]["requests"] == len(REPLICAS)
    assert [c["name"] for c in result["changes"]] == ["web-1", "web-3", "web-6"]
    assert all(c["base"]["allowed"] and not c["head"]["allowed"] for c in result["changes"])
    assert "max-replicas" in result["markdown"]
    # the other way round: as many newly allowed
    back = mcp_server.impact(HEAD, BASE, objects=replicas_dump(REPLICAS))
    assert back["summary"]["newlyAllowed"] == 3 and back["summary"]["newlyDenied"] == 0


def test_an_audit_log_replays_per_user_and_caps_the_listed_changes():
    result = mcp_server.impact(BASE, HEAD, audit_log=audit_log(REPLICAS), max_changes=1)
    assert result["summary"]["newlyDenied"] == 3
    assert set(result["summary"]["users"]) == {"alice", "bob"}
    assert len(result["changes"]) == 1 and result["changesOmitted"] == 2
    assert result["changes"][0]["line"] == 2  # the event's line in the log


def test_bad_input_comes_back_located():
    both = mcp_server.impact(BASE, HEAD, objects="a: 1", audit_log="{}")
    assert both["summary"] is None and "not both" in both["errors"][0]["message"]
    broken = mcp_server.impact(BASE, HEAD, objects="apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n")
    assert broken["summary"] is None and broken["errors"][0]["line"]
    bad_policy = mcp_server.impact(BASE, [limit_policy(3).replace("<= 3", "<="), binding()], objects=replicas_dump([1]))
    assert bad_policy["summary"] is None
    assert any(e["source"].startswith("head_documents") for e in bad_policy["errors"])
    metadata = audit_log([4]).replace('"RequestResponse"', '"Metadata"').replace('"requestObject"', '"x"')
    empty = mcp_server.impact(BASE, HEAD, audit_log=metadata)
    assert empty["summary"] is None and "nothing to replay" in empty["errors"][-1]["message"]
    assert mcp_server.impact(BASE, HEAD, objects="a: 1", kubernetes_version="2.0")["errors"][0]["message"].startswith(
        "unsupported Kubernetes version"
    )


@pytest.mark.django_db(transaction=True)
def test_over_the_web_mount_it_agrees_with_the_rest_api(client, settings, fresh_rate_counters):  # noqa: F811
    settings.PLAYGROUND_BATCH_BACKEND = "local"
    settings.PLAYGROUND_BATCH_PROCESSES = 0
    answer = post_mcp(
        tool_call("impact", {"base_documents": BASE, "head_documents": HEAD, "objects": replicas_dump(REPLICAS)})
    )
    assert answer.status_code == 200, answer.text
    mcp = answer.json()["result"]["structuredContent"]
    # the same change through the REST API: a kept version at limit 5, the project now at limit 3
    project = client.post("/api/v1/projects", project_body(), content_type="application/json").json()
    client.post(f"/api/v1/projects/{project['id']}/snapshots")
    client.put(
        f"/api/v1/projects/{project['id']}/documents/{project['documents'][0]['id']}",
        {"text": limit_policy(3)},
        content_type="application/json",
        HTTP_X_EDIT_TOKEN=project["editToken"],
    )
    body = {
        "base": {"project": project["id"], "version": 1},
        "head": {"project": project["id"]},
        "text": replicas_dump(REPLICAS),
    }
    job = client.post("/api/v1/impact/jobs", body, content_type="application/json").json()
    local.wait(timeout=60)
    rest = client.get(f"/api/v1/impact/jobs/{job['id']}/report", HTTP_X_EDIT_TOKEN=job["editToken"]).json()
    assert mcp["summary"] == rest["summary"]
    settings.PLAYGROUND_MAX_PROJECT_BYTES = 1000
    big = post_mcp(
        tool_call("impact", {"base_documents": BASE, "head_documents": HEAD, "objects": replicas_dump(REPLICAS)}, 2)
    )
    assert big.json()["result"]["isError"] is True and "too_large" in big.text
