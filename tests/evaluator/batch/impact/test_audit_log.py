"""Reading audit logs: layouts (JSON lines, EventList compact and pretty, gzip), what each event replays as
(user, impersonation, old objects, patches, dry runs, subresources, connect), what is skipped and why, bad
lines located, unknown resources reported once, a bounded old-object index, and a lazy read."""

from __future__ import annotations

import gzip
import io
import json
from typing import Any

from evaluator.batch.impact import AuditLog
from evaluator.batch.impact.sample_log import audit_events


def deployment(name: str, replicas: int = 1, namespace: str = "prod") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {"replicas": replicas},
    }


def event(verb: str, name: str, *, sub: str = "", query: str = "", code: int = 200, **fields: Any) -> dict:
    uri = (
        f"/apis/apps/v1/namespaces/prod/deployments/{name}"
        + (f"/{sub}" if sub else "")
        + (f"?{query}" if query else "")
    )
    ref = {"resource": "deployments", "namespace": "prod", "name": name, "apiGroup": "apps", "apiVersion": "v1"}
    if sub:
        ref["subresource"] = sub
    return {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "RequestResponse",
        "auditID": f"{verb}-{name}-{sub}",
        "stage": "ResponseComplete",
        "requestURI": uri,
        "verb": verb,
        "user": {"username": "alice", "groups": ["dev", "system:authenticated"]},
        "objectRef": ref,
        "responseStatus": {"code": code},
        "requestReceivedTimestamp": "2026-12-01T10:00:00.000000Z",
        **fields,
    }


def read(*events: dict | str, **options: Any) -> tuple[list[dict], AuditLog]:
    text = "\n".join(e if isinstance(e, str) else json.dumps(e) for e in events) + "\n"
    log = AuditLog(io.BytesIO(text.encode()), "audit.log", **options)
    return list(log), log


def test_an_update_gets_its_old_object_from_an_earlier_response():
    items, log = read(
        event("create", "web", requestObject=deployment("web", 1), responseObject=deployment("web", 1), code=201),
        event("update", "web", requestObject=deployment("web", 3), responseObject=deployment("web", 3)),
        event("delete", "web", requestObject={"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}),
    )
    create, update, delete = (i["request"] for i in items)
    assert create["operation"] == "CREATE" and create["oldObject"] is None
    assert create["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert create["options"] == {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    assert update["operation"] == "UPDATE" and update["oldObject"]["spec"]["replicas"] == 1
    assert update["object"]["spec"]["replicas"] == 3
    assert delete["operation"] == "DELETE" and delete["object"] is None and delete["oldObject"]["spec"]["replicas"] == 3
    assert delete["options"]["kind"] == "DeleteOptions"
    assert [i["line"] for i in items] == [1, 2, 3]
    assert log.stats()["missingOldObjects"] == 0


def test_a_missing_old_object_is_noted_and_the_request_still_replayed():
    items, log = read(event("update", "web", requestObject=deployment("web", 3)))
    assert items[0]["request"]["oldObject"] is None
    assert items[0]["notes"] == ["old object not in the log before this event: replayed with oldObject null"]
    assert log.stats()["missingOldObjects"] == 1


def test_a_delete_without_earlier_events_takes_the_object_its_response_holds():
    items, _ = read(event("delete", "web", responseObject=deployment("web", 2)))
    assert items[0]["request"]["oldObject"]["spec"]["replicas"] == 2
    assert "notes" not in items[0]


def test_dry_run_is_replayed_as_dry_run_and_stores_no_old_object():
    items, log = read(
        event(
            "create",
            "web",
            query="dryRun=All&fieldManager=kubectl",
            requestObject=deployment("web", 9),
            responseObject=deployment("web", 9),
            code=201,
        ),
        event("update", "web", requestObject=deployment("web", 3)),
    )
    dry, update = (i["request"] for i in items)
    assert dry["dryRun"] is True
    assert dry["options"] == {
        "apiVersion": "meta.k8s.io/v1",
        "kind": "CreateOptions",
        "dryRun": ["All"],
        "fieldManager": "kubectl",
    }
    assert update["oldObject"] is None  # the dry run stored nothing
    assert log.stats()["dryRun"] == 1


def test_failed_requests_store_no_old_object():
    items, _ = read(
        event(
            "update",
            "web",
            requestObject=deployment("web", 7),
            responseObject={"kind": "Status", "code": 422},
            code=422,
        ),
        event("update", "web", requestObject=deployment("web", 3)),
    )
    assert items[1]["request"]["oldObject"] is None


def test_the_impersonated_user_is_the_user_admission_sees():
    impersonated = {"username": "dave", "groups": ["team-c", "system:authenticated"]}
    items, log = read(event("create", "web", requestObject=deployment("web"), impersonatedUser=impersonated))
    assert items[0]["request"]["userInfo"] == impersonated
    assert log.stats()["impersonated"] == 1


def test_patches_take_the_response_else_are_applied_to_the_old_object():
    merge = {"spec": {"replicas": 5}}
    json_patch = [{"op": "replace", "path": "/spec/replicas", "value": 6}]
    items, log = read(
        event("get", "web", responseObject=deployment("web", 1)),
        event("patch", "web", requestObject=merge, level="Request"),
        event("patch", "web", requestObject=json_patch, level="Request"),
        event("patch", "web", requestObject=merge, responseObject=deployment("web", 8)),
    )
    merged, patched, responded = (i["request"] for i in items)
    assert merged["object"]["spec"]["replicas"] == 5 and merged["oldObject"]["spec"]["replicas"] == 1
    assert merged["options"]["kind"] == "PatchOptions"
    assert items[0]["notes"] == ["patch applied to the old object as a JSON merge patch"]
    assert patched["object"]["spec"]["replicas"] == 6
    assert responded["object"]["spec"]["replicas"] == 8
    assert log.stats()["skipped"] == {"read (get): admission does not see it": 1}


def test_subresources_keep_their_own_objects_and_the_status_one_shares_the_parents():
    scale = {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {"replicas": 4},
    }
    items, _ = read(
        event("create", "web", requestObject=deployment("web", 1), responseObject=deployment("web", 1), code=201),
        event("update", "web", sub="scale", requestObject=scale, responseObject=scale),
        event("update", "web", sub="status", requestObject=deployment("web", 2), responseObject=deployment("web", 2)),
    )
    scaled, status = items[1]["request"], items[2]["request"]
    assert scaled["subResource"] == "scale" and scaled["kind"]["kind"] == "Scale"
    assert scaled["oldObject"] is None  # no earlier Scale in the log
    assert status["subResource"] == "status" and status["oldObject"]["kind"] == "Deployment"


def test_pods_exec_is_a_connect_with_the_options_the_query_names():
    exec_event = event(
        "create", "web", sub="exec", query="command=sh&command=-c&container=main&stdin=true&tty=true", code=101
    )
    exec_event["objectRef"].update(resource="pods", apiGroup="")
    items, _ = read(exec_event)
    request = items[0]["request"]
    assert request["operation"] == "CONNECT"
    assert request["object"] == {
        "apiVersion": "v1",
        "kind": "PodExecOptions",
        "stdin": True,
        "tty": True,
        "container": "main",
        "command": ["sh", "-c"],
    }
    assert request["kind"]["kind"] == "PodExecOptions"


def test_what_is_skipped_is_counted_by_reason():
    forbidden = event("create", "web", requestObject=deployment("web"), code=403)
    forbidden["annotations"] = {"authorization.k8s.io/decision": "forbid"}
    items, log = read(
        event("create", "web", requestObject=deployment("web"), stage="RequestReceived"),
        forbidden,
        event("update", "gone", requestObject=deployment("gone"), code=404),
        event("deletecollection", "web"),
        event("update", "web", level="Metadata"),
        event("list", "web"),
        {**event("create", "x"), "objectRef": None, "requestURI": "/healthz"},
    )
    assert items == []
    assert log.stats()["skipped"] == {
        "stage RequestReceived: replayed once, from its ResponseComplete event": 1,
        "refused by authorization: it never reached admission": 1,
        "update of an object that did not exist (404): it never reached admission": 1,
        "deletecollection: the event does not name the objects deleted": 1,
        "update without a request body (level Metadata)": 1,
        "read (list): admission does not see it": 1,
        "not a resource request (no objectRef)": 1,
    }


def test_a_log_without_bodies_says_so():
    items, log = read(
        *(
            {k: v for k, v in e.items() if k not in ("requestObject", "responseObject")} | {"level": "Metadata"}
            for e in audit_events(40)
        )
    )
    stats = log.stats()
    assert stats["events"] == 40 and stats["noRequestBodies"] is True
    # a delete needs no body (policies on its user and namespace still decide); it is replayed, noted
    assert items and {i["request"]["operation"] for i in items} == {"DELETE"}
    assert all(
        i["notes"] == ["old object not in the log before this event: replayed with oldObject null"] for i in items
    )
    assert stats["levels"] == {"Metadata": 40}


def test_malformed_lines_are_located_and_the_rest_replays():
    good = event("create", "web", requestObject=deployment("web"), code=201)
    items, log = read(good, '{"verb": "create", "objectRef": ', "[1, 2]", good, "")
    assert len(items) == 2 and [i["line"] for i in items] == [1, 4]
    assert [(e["line"], e["column"], e["severity"]) for e in log.errors] == [(2, 33, "warning"), (3, 1, "warning")]
    assert log.errors[0]["message"].startswith("not JSON: Expecting value")
    assert "not an audit.k8s.io Event" in log.errors[1]["message"]
    assert log.stats()["malformed"] == 2


def test_numbers_past_64_bits_are_read_and_past_python_s_digit_limit_are_located():
    """orjson refuses integers past 64 bits: such a line is still an event; one past 4,300 digits is a warning."""
    big = deployment("web")
    big["metadata"]["annotations"] = {"n": "1"}
    big["spec"]["replicas"] = 10**30
    huge = json.dumps(event("create", "huge", requestObject=deployment("huge"), code=201))
    huge = huge.replace('"code": 201', '"code": 201, "x": ' + "9" * 5000)
    good = event("create", "ok", requestObject=deployment("ok"), code=201)
    items, log = read(event("create", "web", requestObject=big, code=201), huge, good)
    assert [i["line"] for i in items] == [1, 3]
    assert items[0]["request"]["object"]["spec"]["replicas"] == 1e30  # past int64: a float, as Kubernetes decodes it
    assert [(e["line"], e["severity"]) for e in log.errors] == [(2, "warning")]
    assert "4,300 digits" in log.errors[0]["message"]


def test_an_unknown_resource_is_reported_once_with_its_count():
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "prod"}}
    events = []
    for i in range(3):
        e = event("create", f"w{i}", requestObject=widget, code=201)
        e["objectRef"] = {
            "resource": "widgets",
            "namespace": "prod",
            "name": f"w{i}",
            "apiGroup": "example.com",
            "apiVersion": "v1",
        }
        events.append(e)
    items, log = read(*events)
    assert len(items) == 3 and items[0]["request"]["kind"] == {
        "group": "example.com",
        "version": "v1",
        "kind": "Widget",
    }
    assert log.stats()["unknownResources"] == [{"resource": "widgets.example.com/v1", "line": 1, "events": 3}]


def test_the_old_object_index_is_bounded():
    events = [
        event("create", f"d{i}", requestObject=deployment(f"d{i}"), responseObject=deployment(f"d{i}"), code=201)
        for i in range(5)
    ]
    events += [
        event("update", "d0", requestObject=deployment("d0", 2)),
        event("update", "d4", requestObject=deployment("d4", 2)),
    ]
    items, log = read(*events, max_objects=3)
    assert items[5]["request"]["oldObject"] is None  # d0 was let go
    assert items[6]["request"]["oldObject"] is not None
    assert log.stats()["oldObjectsEvicted"] == 2
    assert len(log.index.items) <= 3


def _requests(items: list[dict]) -> list[dict]:
    return [{k: v for k, v in i.items()} for i in items]


def test_event_lists_compact_pretty_and_gzip_read_as_lines_do():
    events = list(audit_events(120, seed=5))
    lines = "".join(json.dumps(e) + "\n" for e in events).encode()
    expected = [(i["request"], i["index"]) for i in AuditLog(io.BytesIO(lines))]
    document = {"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": {}, "items": events}
    for data in (
        json.dumps(document).encode(),
        json.dumps(document, indent=2).encode(),
        gzip.compress(lines),
        gzip.compress(json.dumps(document, indent=1).encode()),
    ):
        log = AuditLog(io.BytesIO(data))
        assert [(i["request"], i["index"]) for i in log] == expected
    pretty = AuditLog(io.BytesIO(json.dumps(document, indent=2).encode()))
    first = next(iter(pretty))
    assert pretty.stats()["format"] == "EventList" and first["line"] == 6  # `{`, apiVersion, kind, metadata, items, `{`


def test_a_broken_event_list_stops_at_the_break_and_says_where():
    events = [event("create", f"d{i}", requestObject=deployment(f"d{i}"), code=201) for i in range(3)]
    text = json.dumps({"kind": "EventList", "items": events}, indent=2)
    cut = text.rindex('"kind": "Event"')
    items, log = read(text[:cut] + "oops" + text[cut:])
    assert len(items) == 2
    assert log.errors[0]["line"] == text[:cut].count("\n") + 1 and "rest of the EventList" in log.errors[0]["message"]


class CountingStream(io.RawIOBase):
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self.data[self.pos : self.pos + len(buffer)]
        buffer[: len(chunk)] = chunk
        self.pos += len(chunk)
        return len(chunk)


def test_the_log_is_read_as_it_is_replayed_not_whole():
    data = "".join(json.dumps(e) + "\n" for e in audit_events(3000)).encode()
    stream = CountingStream(data)
    items = iter(AuditLog(io.BufferedReader(stream)))
    for _ in range(10):
        next(items)
    assert stream.pos < len(data) / 10


def test_a_broken_gzip_stream_is_a_located_problem():
    whole = gzip.compress("".join(json.dumps(e) + "\n" for e in audit_events(50)).encode())
    for data in (b"\x1f\x8b not gzip at all", whole[: len(whole) // 2]):
        log = AuditLog(io.BytesIO(data))
        items = list(log)
        assert log.errors[-1]["message"].startswith("cannot read the log further: ")
        assert log.errors[-1]["line"] == log.stats()["lines"] + 1
        assert len(items) < 50


def test_events_with_fields_of_any_type_are_replayed_or_skipped_never_raise():
    import random

    from evaluator.batch.impact import run_impact
    from evaluator.batch.impact.sample_log import policy_change

    rng = random.Random(1)
    values = [None, 1, "x", [], {}, [1], {"a": 1}, True, 10**30, "\u0000", {"kind": "Status"}]
    lines = []
    for e in audit_events(200, seed=9):
        for _ in range(rng.randint(1, 3)):
            e[rng.choice([*e, "objectRef", "user", "impersonatedUser", "responseStatus"])] = rng.choice(values)
        if isinstance(e.get("objectRef"), dict):
            e["objectRef"][rng.choice(["resource", "namespace", "name", "apiGroup", "subresource"])] = rng.choice(
                values
            )
        lines.append(json.dumps(e))
    log = AuditLog(io.BytesIO(("\n".join(lines) + "\n" + "[" * 5000 + "]" * 5000 + "\n").encode()))
    report = run_impact(*policy_change(), log)
    stats = log.stats()
    assert stats["events"] + stats["malformed"] == 201
    assert report.summary.totals["requests"] == stats["replayed"] == stats["events"] - sum(stats["skipped"].values())


def test_an_object_its_finalizers_keep_stays_the_old_object_of_later_updates():
    terminating = deployment("web", 2) | {
        "metadata": {"name": "web", "namespace": "prod", "deletionTimestamp": "2026-12-01T10:00:00Z"}
    }
    items, _ = read(
        event("create", "web", requestObject=deployment("web", 1), responseObject=deployment("web", 1), code=201),
        event("delete", "web", responseObject=terminating),
        event("update", "web", requestObject=deployment("web", 3)),
        event("delete", "other", responseObject=deployment("other")),
        event("update", "other", requestObject=deployment("other", 3)),
    )
    assert items[2]["request"]["oldObject"]["metadata"]["deletionTimestamp"] == "2026-12-01T10:00:00Z"
    assert items[4]["request"]["oldObject"] is None  # deleted: gone from the index
