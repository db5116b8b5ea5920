"""The impact REST API end to end on the batch runner's local backend: a project's version history, an impact
job between a kept version and the project now over a dump and over an audit log, its progress, report,
changed requests, every export, and refusals of bad input. Every figure is computed by the engine; the
expected ones follow from the policy change (a replica limit lowered from 5 to 3)."""

from __future__ import annotations

import csv
import io
import json
import tarfile
import xml.etree.ElementTree as ET

import pytest

from playground.batch import local
from tests.playground.impact.corpora import audit_log, limit_policy, newly_denied, project_body, replicas_dump

pytestmark = pytest.mark.django_db(transaction=True)

JOBS = "/api/v1/impact/jobs"
REPLICAS = [2, 4, 9, 5, 3, 1, 4, 7, 2, 5, 4, 6] * 3  # 36 Deployments
NEWLY = newly_denied(REPLICAS)


def auth(token: str) -> dict:
    return {"HTTP_X_EDIT_TOKEN": token}


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    return error


@pytest.fixture
def changed(client):
    """A project with version 1 kept at limit 5, and its policy now at limit 3."""
    project = client.post("/api/v1/projects", project_body(), content_type="application/json").json()
    assert client.post(f"/api/v1/projects/{project['id']}/snapshots").status_code == 201
    document = project["documents"][0]
    response = client.put(
        f"/api/v1/projects/{project['id']}/documents/{document['id']}",
        {"text": limit_policy(3)},
        content_type="application/json",
        **auth(project["editToken"]),
    )
    assert response.status_code == 200, response.content
    return project


def create(client, project, text, **fields):
    body = {
        "base": {"project": project["id"], "version": 1},
        "head": {"project": project["id"]},
        "text": text,
        **fields,
    }
    return client.post(JOBS, body, content_type="application/json")


def finished(client, job) -> dict:
    local.wait(timeout=60)
    state = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()
    assert state["status"] == "done", state
    return state


def test_version_history_lists_each_kept_snapshot_once(client, changed):
    history = client.get(f"/api/v1/projects/{changed['id']}/versions").json()
    assert [v["number"] for v in history["versions"]] == [1]
    assert history["versions"][0]["policies"] == ["max-replicas"]
    assert history["current"]["policies"] == ["max-replicas"]
    # a snapshot of unchanged content adds no version; one after a change does
    client.post(f"/api/v1/projects/{changed['id']}/snapshots")
    assert len(client.get(f"/api/v1/projects/{changed['id']}/versions").json()["versions"]) == 2
    client.post(f"/api/v1/projects/{changed['id']}/snapshots")
    versions = client.get(f"/api/v1/projects/{changed['id']}/versions").json()["versions"]
    assert [v["number"] for v in versions] == [2, 1]  # newest first
    assert_error(client.get("/api/v1/projects/missing/versions"), 404, "not_found")


def test_a_dump_between_a_version_and_now_counts_exactly_what_the_change_denies(client, changed):
    response = create(client, changed, replicas_dump(REPLICAS))
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["kind"] == "impact" and job["corpus"] == "objects" and job["total"] == len(REPLICAS)
    assert job["sides"]["base"]["version"] == 1 and job["sides"]["head"]["version"] is None
    state = finished(client, job)
    assert state["done"] == len(REPLICAS) and state["denied"] == NEWLY
    report = client.get(f"{JOBS}/{job['id']}/report", **auth(job["editToken"])).json()
    summary = report["summary"]
    assert summary["requests"] == len(REPLICAS)
    assert summary["newlyDenied"] == summary["changed"] == NEWLY
    assert summary["newlyAllowed"] == 0
    assert summary["policies"]["max-replicas"]["newlyDenied"] == NEWLY
    assert summary["base"]["denied"] == sum(1 for n in REPLICAS if n > 5)
    assert summary["head"]["denied"] == sum(1 for n in REPLICAS if n > 3)
    assert sum(n["newlyDenied"] for n in summary["namespaces"].values()) == NEWLY
    # the changed requests: both answers, paged and filtered
    page = client.get(f"{JOBS}/{job['id']}/changes?limit=5", **auth(job["editToken"])).json()
    assert page["count"] == NEWLY and len(page["items"]) == 5
    first = page["items"][0]
    assert REPLICAS[first["index"]] in (4, 5)
    assert first["base"]["allowed"] is True and first["head"]["allowed"] is False
    assert "replicas must be no greater than 5" in first["head"]["message"]
    assert first["categories"] == ["newlyDenied"] and first["changedPolicies"] == ["max-replicas"]
    one = client.get(f"{JOBS}/{job['id']}/changes?q=web-1%20&limit=200", **auth(job["editToken"])).json()
    assert all("web-1" in c["name"] for c in one["items"])
    prod = client.get(f"{JOBS}/{job['id']}/changes?namespace=prod&limit=200", **auth(job["editToken"])).json()
    assert prod["count"] == summary["namespaces"]["prod"]["newlyDenied"]
    none = client.get(f"{JOBS}/{job['id']}/changes?category=newlyAllowed", **auth(job["editToken"])).json()
    assert none["count"] == 0
    detail = client.get(f"{JOBS}/{job['id']}/changes/{first['index']}", **auth(job["editToken"])).json()
    assert detail["change"]["index"] == first["index"]
    assert detail["request"]["object"]["spec"]["replicas"] == REPLICAS[first["index"]]
    full = client.get(f"{JOBS}/{job['id']}/changes/{first['index']}/results", **auth(job["editToken"])).json()
    assert full["base"]["allowed"] is True and full["head"]["allowed"] is False
    assert full["head"]["status"]["message"] == first["head"]["message"]
    assert full["head"]["policies"][0]["trace"]  # the whole answer, traces included
    unchanged = REPLICAS.index(9)
    assert client.get(f"{JOBS}/{job['id']}/changes/{unchanged}", **auth(job["editToken"])).json()["change"] is None


def test_every_export_downloads_the_same_report(client, changed):
    job = create(client, changed, replicas_dump(REPLICAS)).json()
    finished(client, job)
    headers = auth(job["editToken"])

    def export(fmt: str):
        response = client.get(f"{JOBS}/{job['id']}/export/{fmt}", **headers)
        assert response.status_code == 200, response.content
        assert response["Content-Disposition"].startswith("attachment; filename=")
        return response.content.decode()

    data = json.loads(export("json"))
    assert data["summary"]["newlyDenied"] == NEWLY and len(data["changes"]) == NEWLY
    rows = list(csv.DictReader(io.StringIO(export("csv"))))
    assert len(rows) == NEWLY
    suite = ET.fromstring(export("junit"))
    cases = suite.iter("testcase")
    assert sum(1 for _ in cases) == NEWLY
    markdown = export("markdown")
    assert "max-replicas" in markdown and str(NEWLY) in markdown
    assert "max-replicas" in export("text")
    assert_error(client.get(f"{JOBS}/{job['id']}/export/xlsx", **headers), 404, "unknown_format")


def test_an_audit_log_replays_with_users_and_hours(client, changed):
    upload = io.BytesIO(audit_log(REPLICAS).encode())
    upload.name = "audit.log"
    response = client.post(JOBS, {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "file": [upload]})
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["corpus"] == "auditLog" and job["total"] == len(REPLICAS)
    finished(client, job)
    summary = client.get(f"{JOBS}/{job['id']}/report", **auth(job["editToken"])).json()["summary"]
    assert summary["newlyDenied"] == NEWLY
    assert set(summary["users"]) == {"alice", "bob"}
    assert sum(u["newlyDenied"] for u in summary["users"].values()) == NEWLY
    assert set(summary["timeline"]) == {"2026-12-01T10:00Z", "2026-12-01T11:00Z"}
    assert sum(h["newlyDenied"] for h in summary["timeline"].values()) == NEWLY
    assert sum(h["newlyDenied"] for h in summary["policyTimeline"]["max-replicas"].values()) == NEWLY
    bob = client.get(f"{JOBS}/{job['id']}/changes?user=bob&limit=200", **auth(job["editToken"])).json()
    assert bob["count"] == summary["users"]["bob"]["newlyDenied"]
    assert all(c["line"] for c in bob["items"])  # located by the log's line


def test_a_log_with_no_request_bodies_says_so(client, changed):
    metadata_only = []
    for line in audit_log([2, 4]).splitlines():
        event = json.loads(line)
        event["level"] = "Metadata"
        del event["requestObject"], event["responseObject"]
        metadata_only.append(json.dumps(event))
    error = assert_error(create(client, changed, "\n".join(metadata_only) + "\n"), 400, "no_requests")
    assert "Request or RequestResponse" in error["message"]


def test_compare_with_another_project(client, changed):
    other = client.post("/api/v1/projects", project_body(), content_type="application/json").json()
    body = {"base": {"project": other["id"]}, "head": {"project": changed["id"]}, "text": replicas_dump(REPLICAS)}
    job = client.post(JOBS, body, content_type="application/json").json()
    state = finished(client, job)
    assert state["denied"] == NEWLY
    # and the other way round, everything newly denied is newly allowed
    body = {"base": {"project": changed["id"]}, "head": {"project": other["id"]}, "text": replicas_dump(REPLICAS)}
    job = client.post(JOBS, body, content_type="application/json").json()
    finished(client, job)
    summary = client.get(f"{JOBS}/{job['id']}/report", **auth(job["editToken"])).json()["summary"]
    assert summary["newlyAllowed"] == NEWLY and summary["newlyDenied"] == 0


def test_bad_input_gets_a_clear_4xx(client, changed, settings):
    pid = changed["id"]
    error = assert_error(
        create(client, changed, "apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n"), 400, "invalid_objects"
    )
    assert error["line"] and "pasted text" in error["message"]
    assert_error(create(client, changed, "a: \x00"), 400, "invalid_request")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9)
    )
    error = assert_error(create(client, changed, bomb), 400, "invalid_objects")
    assert "excessive aliasing" in error["message"]
    missing = assert_error(create(client, changed, "a: 1", base={"project": pid, "version": 7}), 404, "not_found")
    assert missing["message"].startswith("base.version: project") and "versions 1–1" in missing["message"]
    assert_error(create(client, changed, "a: 1", base={"project": "missing"}), 404, "not_found")
    assert_error(create(client, changed, "a: 1", base={"project": pid, "version": "1"}), 400, "invalid_request")
    assert_error(create(client, changed, "a: 1", head="abc"), 400, "invalid_request")
    assert_error(create(client, changed, "a: 1", head={"project": pid, "colour": 1}), 400, "invalid_request")
    assert_error(create(client, changed, "a: 1", corpus="tcpdump"), 400, "invalid_request")
    same = assert_error(create(client, changed, "a: 1", base={"project": pid}), 400, "same_sides")
    assert same["path"] == "head" and "same policy set" in same["message"]
    assert_error(create(client, changed, "a: 1", colour="red"), 400, "invalid_request")
    assert_error(client.post(JOBS, [1], content_type="application/json"), 400, "invalid_request")
    no_text = assert_error(
        client.post(JOBS, {"base": {"project": pid}, "head": {"project": pid}}, content_type="application/json"),
        400,
        "invalid_request",
    )
    assert no_text["path"] == "text"
    assert_error(
        client.post(JOBS, {"base": pid, "head": pid, "baseVersion": "x", "text": "a: 1"}), 400, "invalid_request"
    )
    assert_error(client.post(JOBS, {"base": pid, "head": pid, "colour": "red", "text": "a: 1"}), 400, "invalid_request")
    # a tar bomb: more than the archive reader accepts
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        data = b"a" * (300 * 1024 * 1024 // 100)
        for n in range(120):
            info = tarfile.TarInfo(f"m/{n}.yaml")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    archive.seek(0)
    archive.name = "bomb.tar.gz"
    response = client.post(JOBS, {"base": pid, "baseVersion": "1", "head": pid, "file": [archive]})
    assert 400 <= response.status_code < 500 and response.json()["error"]["message"], response.content
    settings.PLAYGROUND_BATCH_MAX_BYTES = 1000
    assert_error(create(client, changed, replicas_dump(REPLICAS)), 413, "too_large")


def test_a_policy_that_does_not_load_is_refused_naming_its_side(client, changed):
    broken = limit_policy(3).replace("object.spec.replicas <= 3", "object.spec.replicas <=")
    client.put(
        f"/api/v1/projects/{changed['id']}/documents/{changed['documents'][0]['id']}",
        {"text": broken},
        content_type="application/json",
        **auth(changed["editToken"]),
    )
    error = assert_error(create(client, changed, replicas_dump([1])), 400, "invalid_policy")
    assert error["message"].startswith("head: 'max-replicas' of Replica limits (now) does not load")


def test_jobs_need_their_token_and_stay_apart_from_batch_jobs(client, changed):
    job = create(client, changed, replicas_dump([4, 2])).json()
    finished(client, job)
    for path in ("", "/report", "/changes", "/changes/0", "/export/json"):
        assert_error(client.get(f"{JOBS}/{job['id']}{path}"), 403, "forbidden")
        assert client.get(f"{JOBS}/{job['id']}{path}", **auth(changed["editToken"])).status_code == 200
    # the batch endpoints know it is not theirs; its progress is the batch job's
    assert_error(client.get(f"/api/v1/batch/jobs/{job['id']}/results", **auth(job["editToken"])), 404, "not_found")
    assert client.get(f"/api/v1/batch/jobs/{job['id']}", **auth(job["editToken"])).json()["done"] == 2
    assert_error(client.get(f"{JOBS}/{job['id']}/changes/99", **auth(job["editToken"])), 404, "not_found")
    assert_error(
        client.get(f"{JOBS}/{job['id']}/changes?category=worse", **auth(job["editToken"])), 400, "invalid_request"
    )
    assert_error(client.get(f"{JOBS}/{job['id']}/changes?limit=x", **auth(job["editToken"])), 400, "invalid_request")


def test_the_page_shows_the_version_history(client, changed):
    page = client.get(f"/p/{changed['id']}/impact")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Version 1" in text and 'data-compare-version="1"' in text
    assert client.get("/p/missing/impact").status_code == 404


def test_a_hostile_audit_log_is_located_line_by_line_and_the_rest_replays(client, changed):
    good = audit_log([4, 2, 4]).splitlines()
    hostile = [
        good[0],
        "[" * 100_000 + "]" * 100_000,  # nesting past any parser's depth
        '{"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": NaN}',
        good[1],
        '{"kind": "Event", "apiVersion": "audit.k8s.io/v1", "verb": "create", "x": true',
        "\x00\x01 not json",
        good[2],
    ]
    upload = io.BytesIO(("\n".join(hostile) + "\n").encode() + b"\xff\xfe broken utf-8\n")
    upload.name = "audit.log"
    response = client.post(JOBS, {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "file": [upload]})
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["total"] == 3 and job["corpus"] == "auditLog"
    lines = sorted(w["line"] for w in job["warnings"] if w.get("line"))
    assert {2, 3, 6}.issubset(lines), job["warnings"]
    assert job["sources"][0]["malformed"] >= 4
    finished(client, job)
    report = client.get(f"{JOBS}/{job['id']}/report", **auth(job["editToken"])).json()
    assert report["summary"]["newlyDenied"] == 2
    assert report["source"]["malformed"] == job["sources"][0]["malformed"]
    # nothing but malformed lines: refused, with the count
    upload = io.BytesIO(b"{not json\n[1, 2]\n")
    upload.name = "audit.log"
    error = assert_error(
        client.post(
            JOBS,
            {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "corpus": "auditLog", "file": [upload]},
        ),
        400,
        "no_requests",
    )
    assert "2 malformed lines" in error["message"]
    # an integer of 5,000 digits: a clear 4xx naming where, never a server error
    upload = io.BytesIO(("\n".join([good[0], '{"kind": "Event", "x": 1' + "0" * 5000 + "}", good[1]]) + "\n").encode())
    upload.name = "audit.log"
    response = client.post(JOBS, {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "file": [upload]})
    assert response.status_code in (201, 400), response.content
    if response.status_code == 400:  # the reader stopped there (playground/impact/audit.py keeps it a 4xx)
        assert response.json()["error"]["line"] == 2
    else:  # the reader located it and replayed the rest
        assert response.json()["total"] == 2 and 2 in [w.get("line") for w in response.json()["warnings"]]


def test_an_update_whose_old_object_the_log_never_showed_is_replayed_with_a_note(client, changed):
    from tests.playground.impact.corpora import audit_event

    update = audit_event(0, 4, verb="update")
    update["requestURI"] += "/web-0"
    response = create(client, changed, json.dumps(update) + "\n")
    assert response.status_code == 201, response.content
    job = response.json()
    finished(client, job)
    change = client.get(f"{JOBS}/{job['id']}/changes/0", **auth(job["editToken"])).json()["change"]
    assert change["operation"] == "UPDATE" and change["categories"] == ["newlyDenied"]
    assert any("old object" in note for note in change["notes"]), change["notes"]


def test_unfiltered_pages_read_only_their_chunks_and_match_a_full_scan(client, changed):
    job = create(client, changed, replicas_dump(REPLICAS)).json()
    finished(client, job)
    headers = auth(job["editToken"])
    every = client.get(f"{JOBS}/{job['id']}/changes?q=web&limit=200", **headers).json()  # a filter: the full scan
    assert every["count"] == NEWLY
    for offset, limit in ((0, 5), (3, 7), (NEWLY - 2, 10), (NEWLY, 5), (NEWLY + 4, 5)):
        page = client.get(f"{JOBS}/{job['id']}/changes?offset={offset}&limit={limit}", **headers).json()
        assert page["count"] == NEWLY
        assert [c["index"] for c in page["items"]] == [c["index"] for c in every["items"][offset : offset + limit]]


def test_a_gzip_audit_log_is_told_apart_and_a_gzip_bomb_is_refused(client, changed, settings):
    import gzip

    def post(data: bytes):
        upload = io.BytesIO(data)
        upload.name = "audit.log.gz"
        return client.post(JOBS, {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "file": [upload]})

    compressed = gzip.compress(audit_log(REPLICAS).encode())
    job = post(compressed).json()
    assert job["corpus"] == "auditLog" and job["total"] == len(REPLICAS)
    finished(client, job)
    # two members (an appended log) read as one
    assert post(gzip.compress(audit_log([4]).encode()) + gzip.compress(audit_log([4]).encode())).json()["total"] == 2
    settings.PLAYGROUND_BATCH_MAX_BYTES = 1_000_000
    bomb = gzip.compress(audit_log([4]).encode() + b" " * 50_000_000 + b"\n")  # 50 MB of blanks in ~50 KB
    assert len(bomb) < 100_000
    error = assert_error(post(bomb), 413, "too_large")
    assert "inflates past" in error["message"]
    mixed = io.BytesIO(replicas_dump([4]).encode())
    mixed.name = "dump.yaml"
    log = io.BytesIO(compressed)
    log.name = "audit.log.gz"
    both = {"base": changed["id"], "baseVersion": "1", "head": changed["id"], "file": [log, mixed]}
    assert "not both" in assert_error(client.post(JOBS, both), 400, "invalid_request")["message"]
    truncated = assert_error(post(compressed[: len(compressed) // 2]), 400, "invalid_audit_log")
    assert "ends before its end" in truncated["message"]
    settings.PLAYGROUND_BATCH_MAX_BYTES = 10**8
    settings.PLAYGROUND_BATCH_MAX_OBJECTS = 10
    assert_error(post(compressed), 413, "too_large")
