"""`AuditLog`: a Kubernetes audit log (`audit.k8s.io/v1`) as the admission requests it records, streamed.

Each create, update, patch and delete of a resource or subresource at level Request or RequestResponse
becomes a replay item (items.py) with the request as the API server gave it to admission:
- `userInfo`: the impersonated user when the event has one (the impersonation filter replaces the request's
  user before admission; its groups, `system:authenticated` included, are those the event records), else
  the event's `user`;
- `kind`/`resource`/`subResource`, `namespace`, `name` from `objectRef` (the kind by the built-in REST
  mapping; a resource it does not know takes the object's own kind, and is reported once per resource);
- `object`: the `requestObject` (create, update); for a patch, the object the API server returned
  (`responseObject`), else the patch applied to the old object (a JSON merge patch or a JSON Patch), noted;
- `oldObject` (update, patch, delete): the object as the log last showed it -- the `responseObject` of an
  earlier successful, not dry-run, request for it (a get, create, update or patch; the status subresource's
  responses are the object too; a delete its finalizers hold, whose response is the object marked for
  deletion) -- else, for a delete, its own `responseObject`; when neither holds it the
  request is replayed with a null old object and a note says so;
- `dryRun` and the `options` (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions) from the request
  URI's query (`dryRun=All`, `fieldManager`, `force`, `propagationPolicy`, `gracePeriodSeconds`); a dry-run
  request's response never becomes an old object (the API server stored nothing);
- `pods/exec`, `attach`, `portforward` and `proxy` as CONNECT with the options object the API server
  builds from the query.

Skipped, counted by reason (`stats()["skipped"]`): reads, events of an earlier stage than ResponseComplete
(the same request is replayed once, from its last stage), requests refused by authorization (they never
reached admission), updates and deletes of objects that did not exist (404), `deletecollection`, non-resource
URLs, and create/update events without a request body (level Metadata or None). A log with no request body at
all says so (`noRequestBodies`). Lines that are not events are counted and located (`errors`, the first
MAX_PROBLEMS). The old-object index is bounded (`max_objects`, `max_bytes`: least recently written first
out; `oldObjectsEvicted` counts what it let go), so memory stays flat over any log size.
"""

from __future__ import annotations

import copy
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

import jsonpatch
import orjson

from evaluator.batch.impact.audit_stream import events
from evaluator.batch.impact.items import Item
from evaluator.k8s.restmapping import GVR, builtin_mapper

__all__ = ["AuditLog", "MAX_PROBLEMS", "MAX_OBJECTS", "MAX_BYTES"]

MAX_PROBLEMS = 100
MAX_OBJECTS = 100_000
MAX_BYTES = 256 * 1024 * 1024
_OPERATIONS = {"create": "CREATE", "update": "UPDATE", "patch": "UPDATE", "delete": "DELETE"}
_OPTIONS = {"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions", "delete": "DeleteOptions"}
_FINAL_STAGES = (None, "ResponseComplete", "Panic")
# subresources whose requests and responses carry the whole object (the parent's old object serves them)
_WHOLE_OBJECT = frozenset(("", "status", "ephemeralcontainers", "resize", "finalize", "approval"))
_CONNECT = {
    "exec": "PodExecOptions",
    "attach": "PodAttachOptions",
    "portforward": "PodPortForwardOptions",
    "proxy": "PodProxyOptions",
}
_BOOLS = ("stdin", "stdout", "stderr", "tty")


class _Index:
    """The last object seen per (group, resource, subresource, namespace, name), as compact JSON, bounded
    by count and bytes (least recently written out first)."""

    def __init__(self, max_objects: int, max_bytes: int):
        self.max_objects, self.max_bytes = max_objects, max_bytes
        self.items: OrderedDict[tuple, bytes] = OrderedDict()
        self.bytes = 0
        self.evicted = 0

    def put(self, key: tuple, obj: Mapping[str, Any]) -> None:
        data = orjson.dumps(obj)
        self.drop(key)
        if len(data) > self.max_bytes:
            return
        self.items[key] = data
        self.bytes += len(data)
        while len(self.items) > self.max_objects or self.bytes > self.max_bytes:
            _, old = self.items.popitem(last=False)
            self.bytes -= len(old)
            self.evicted += 1

    def get(self, key: tuple) -> dict | None:
        data = self.items.get(key)
        return None if data is None else orjson.loads(data)

    def drop(self, key: tuple) -> None:
        old = self.items.pop(key, None)
        if old is not None:
            self.bytes -= len(old)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


class AuditLog:
    """Iterate for the replay items; `stats()` and `errors` say what was read, skipped and unreadable."""

    def __init__(
        self,
        stream: IO[bytes],
        source: str = "audit.log",
        *,
        max_objects: int = MAX_OBJECTS,
        max_bytes: int = MAX_BYTES,
        start: int = 0,
    ):
        self.stream, self.source, self.start = stream, source, start
        self.index = _Index(max_objects, max_bytes)
        self.mapper = builtin_mapper()
        self._kinds: dict[tuple[GVR, str], Any] = {}
        self.layout = "lines"
        self.lines = self.events = self.replayed = self.malformed = 0
        self.missing_old = self.dry_run = self.impersonated = self.bodies = 0
        self.skipped: dict[str, int] = {}
        self.levels: dict[str, int] = {}
        self.unknown: dict[str, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []  # located problems, severity warning (the rest still replays)

    # --- reading ------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Item]:
        try:
            yield from self._items()
        except (OSError, EOFError, zlib.error) as exc:  # a broken gzip stream, a failing disk
            self._problem(self.lines + 1, None, f"cannot read the log further: {exc}")

    def _items(self) -> Iterator[Item]:
        index = self.start
        for line, event, problem in events(self.stream):
            if line == 0:
                self.layout = event
                continue
            self.lines = max(self.lines, line)
            if problem is not None:
                self._problem(*problem)
                continue
            self.events += 1
            item = self._replay(event, line, index)
            if item is not None:
                self.replayed += 1
                index += 1
                yield item

    def _problem(self, line: int, column: int | None, message: str) -> None:
        self.malformed += 1
        if len(self.errors) < MAX_PROBLEMS:
            self.errors.append(
                {"severity": "warning", "source": self.source, "line": line, "column": column, "message": message}
            )

    def _skip(self, reason: str) -> Item | None:
        """None (the event is not replayed), counted under `reason`."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        return None

    def stats(self) -> dict[str, Any]:
        """What the reader saw: `{format, source, lines, events, replayed, skipped: {reason: n}, malformed,
        levels, unknownResources: [{resource, line, events}], missingOldObjects, oldObjectsEvicted, dryRun,
        impersonated, noRequestBodies}`."""
        return {
            "format": "EventList" if self.layout == "EventList" else "JSON lines",
            "source": self.source,
            "lines": self.lines,
            "events": self.events,
            "replayed": self.replayed,
            "skipped": dict(sorted(self.skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
            "malformed": self.malformed,
            "levels": dict(sorted(self.levels.items())),
            "unknownResources": [{"resource": k, **v} for k, v in sorted(self.unknown.items())],
            "missingOldObjects": self.missing_old,
            "oldObjectsEvicted": self.index.evicted,
            "dryRun": self.dry_run,
            "impersonated": self.impersonated,
            "noRequestBodies": self.events > 0 and self.bodies == 0,
        }

    # --- one event ----------------------------------------------------------------------------------
    def _replay(self, event: dict, line: int, index: int) -> Item | None:
        """The event's replay item (None: skipped, counted); then its response becomes the object's state."""
        query = _query(event.get("requestURI"))
        item = self._request_of(event, line, index, query)
        response = event.get("responseObject")
        verb = event.get("verb")
        if (
            verb in ("get", "create", "update", "patch")
            and isinstance(response, dict)
            and _is_object(response)
            and event.get("stage") in _FINAL_STAGES
        ):
            ref = _mapping(event.get("objectRef"))
            dry_run = "All" in query.get("dryRun", ())
            if _code(event) < 300 and not dry_run and ref.get("resource") and not _connect_sub(ref):
                self.index.put(self._key(ref), response)
        return item

    def _request_of(self, event: dict, line: int, index: int, query: Mapping[str, list[str]]) -> Item | None:
        level = _text(event.get("level")) or "unknown"
        self.levels[level] = self.levels.get(level, 0) + 1
        request_object, response_object = event.get("requestObject"), event.get("responseObject")
        if request_object is not None or response_object is not None:
            self.bodies += 1
        verb = _text(event.get("verb"))
        ref = _mapping(event.get("objectRef"))
        if event.get("stage") not in _FINAL_STAGES:
            return self._skip(f"stage {event.get('stage')}: replayed once, from its ResponseComplete event")
        if not ref.get("resource"):
            return self._skip("not a resource request (no objectRef)")
        dry_run = "All" in query.get("dryRun", ())
        code = _code(event)
        sub = _text(ref.get("subresource"))
        key = self._key(ref)
        if verb in ("get", "list", "watch") and sub not in _CONNECT:
            return self._skip(f"read ({verb}): admission does not see it")
        if verb == "deletecollection":
            return self._skip("deletecollection: the event does not name the objects deleted")
        if verb not in _OPERATIONS and not (sub in _CONNECT and verb in ("get", "create")):
            return self._skip(f"verb {verb or '(none)'}: not an admission request")
        annotations = _mapping(event.get("annotations"))
        if annotations.get("authorization.k8s.io/decision") == "forbid" or (
            code == 403 and not annotations.get("authorization.k8s.io/decision")
        ):
            return self._skip("refused by authorization: it never reached admission")
        if sub in _CONNECT:
            return self._item(event, line, index, "CONNECT", self._connect(sub, query), None, query, [])
        operation = _OPERATIONS[verb]
        if code == 404 and operation != "CREATE":
            return self._skip(f"{verb} of an object that did not exist (404): it never reached admission")
        notes: list[str] = []
        old = None
        if operation != "CREATE":
            old = self.index.get(key)
            if old is None and operation == "DELETE" and _is_object(response_object):
                old = response_object
            if old is None:
                self.missing_old += 1
                notes.append("old object not in the log before this event: replayed with oldObject null")
        if operation == "DELETE":
            if code < 300 and not dry_run:
                if (
                    isinstance(response_object, dict)
                    and _is_object(response_object)
                    and _mapping(response_object.get("metadata")).get("deletionTimestamp")
                ):
                    self.index.put(key, response_object)  # finalizers hold it: it lives on, marked for deletion
                else:
                    self.index.drop(key)
            obj = None
        elif verb == "patch":
            obj = self._patched(request_object, response_object, old, code, notes)
            if obj is None:
                return self._skip(
                    "patch without a request body" if request_object is None else "patch whose result is not in the log"
                )
        elif not isinstance(request_object, dict):
            return self._skip(f"{verb} without a request body (level {level})")
        else:
            obj = request_object
        if dry_run:
            self.dry_run += 1
        return self._item(event, line, index, operation, obj, old, query, notes, request_object)

    def _key(self, ref: Mapping[str, Any]) -> tuple:
        sub = _text(ref.get("subresource"))
        return (
            _text(ref.get("apiGroup")),
            _text(ref.get("resource")),
            "" if sub in _WHOLE_OBJECT else sub,
            _text(ref.get("namespace")),
            _text(ref.get("name")),
        )

    def _patched(self, patch: Any, response: Any, old: dict | None, code: int, notes: list[str]) -> dict | None:
        if code < 300 and _is_object(response):
            notes.append("patched object taken from the response (after mutating admission)")
            return response
        if old is None or patch is None:
            return None
        try:
            if isinstance(patch, list):
                notes.append("patch applied to the old object as a JSON Patch")
                return jsonpatch.apply_patch(old, patch)
            if isinstance(patch, dict):
                notes.append("patch applied to the old object as a JSON merge patch")
                return _merge(copy.deepcopy(old), patch)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, ValueError):
            return None
        return None

    def _connect(self, sub: str, query: Mapping[str, list[str]]) -> dict:
        """The options object the API server builds from a connect request's query."""
        obj: dict[str, Any] = {"apiVersion": "v1", "kind": _CONNECT[sub]}
        if sub in ("exec", "attach"):
            for name in _BOOLS:
                if name in query:
                    obj[name] = query[name][-1] in ("true", "1")
            if "container" in query:
                obj["container"] = query["container"][-1]
            if sub == "exec" and "command" in query:
                obj["command"] = list(query["command"])
        elif sub == "portforward" and "ports" in query:
            obj["ports"] = [int(p) for p in query["ports"] if p.isdigit()]
        elif sub == "proxy" and "path" in query:
            obj["path"] = query["path"][-1]
        return obj

    def _item(
        self,
        event: dict,
        line: int,
        index: int,
        operation: str,
        obj: dict | None,
        old: dict | None,
        query: Mapping[str, list[str]],
        notes: list[str],
        body: Any = None,
    ) -> Item:
        ref = _mapping(event["objectRef"])
        group, version = _text(ref.get("apiGroup")), _text(ref.get("apiVersion"))
        resource = GVR(group, version, _text(ref.get("resource")))
        sub = _text(ref.get("subresource"))
        kind = self._kinds.get((resource, sub), False)
        if kind is False:  # one lookup per resource (the mapping's own is per request)
            if len(self._kinds) >= 4096:  # resources come from the log: a bound
                self._kinds.clear()
            kind = self._kinds[(resource, sub)] = self.mapper.kind_for(resource, sub)
        source = obj if obj is not None else old
        request: dict[str, Any] = {
            "uid": _text(event.get("auditID")),
            "operation": operation,
            "resource": resource.to_dict(),
            "subResource": sub,
            "name": _text(ref.get("name")) or _text(_mapping(_mapping(source).get("metadata")).get("name")),
            "namespace": _text(ref.get("namespace")),
            "userInfo": self._user(event),
            "object": obj,
            "oldObject": old,
            "dryRun": "All" in query.get("dryRun", ()),
            "options": self._options(event, operation, query, body),
        }
        if kind is not None:
            request["kind"] = kind.to_dict()
        else:
            self._unknown(resource, sub, line)
            api_version = _text(_mapping(source).get("apiVersion"))
            if _text(_mapping(source).get("kind")) and api_version:
                group_of, _, version_of = api_version.rpartition("/")
                request["kind"] = {"group": group_of, "version": version_of, "kind": source["kind"]}  # type: ignore[index]
        item: Item = {
            "index": index,
            "request": request,
            "line": line,
            "time": _text(event.get("requestReceivedTimestamp")) or _text(event.get("stageTimestamp")) or None,
            "auditID": _text(event.get("auditID")) or None,
        }
        if notes:
            item["notes"] = notes
        return item

    def _user(self, event: dict) -> dict:
        impersonated = event.get("impersonatedUser")
        if isinstance(impersonated, dict) and impersonated.get("username"):
            self.impersonated += 1
            return dict(impersonated)
        return dict(_mapping(event.get("user")))

    def _options(self, event: dict, operation: str, query: Mapping[str, list[str]], body: Any) -> dict | None:
        if operation == "CONNECT":
            return None
        verb = _text(event.get("verb"))
        if verb == "delete" and isinstance(body, dict) and body.get("kind") == "DeleteOptions":
            return body
        options: dict[str, Any] = {"apiVersion": "meta.k8s.io/v1", "kind": _OPTIONS[verb]}
        if "dryRun" in query:
            options["dryRun"] = list(query["dryRun"])
        if "fieldManager" in query and verb != "delete":
            options["fieldManager"] = query["fieldManager"][-1]
        if verb == "patch" and "force" in query:
            options["force"] = query["force"][-1] == "true"
        if verb == "delete":
            if "propagationPolicy" in query:
                options["propagationPolicy"] = query["propagationPolicy"][-1]
            if query.get("gracePeriodSeconds", [""])[-1].isdigit():
                options["gracePeriodSeconds"] = int(query["gracePeriodSeconds"][-1])
        return options

    def _unknown(self, resource: GVR, sub: str, line: int) -> None:
        name = f"{resource.resource}{'/' + sub if sub else ''}.{resource.group or 'core'}/{resource.version}"
        entry = self.unknown.get(name)
        if entry is None:
            self.unknown[name] = {"line": line, "events": 1}
        else:
            entry["events"] += 1


def _query(uri: Any) -> dict[str, list[str]]:
    """The request URI's query parameters (most URIs have none: no parsing then)."""
    if not isinstance(uri, str) or "?" not in uri:
        return {}
    return parse_qs(urlsplit(uri).query)


def _code(event: Mapping[str, Any]) -> int:
    """The response's HTTP status (200 when the event has none)."""
    code = _mapping(event.get("responseStatus")).get("code")
    return code if isinstance(code, int) else 200


def _connect_sub(ref: Mapping[str, Any]) -> bool:
    return _text(ref.get("subresource")) in _CONNECT


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("kind"), str) and value.get("kind") != "Status"


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge(target.get(key), value)
    return target
