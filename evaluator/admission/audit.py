"""The audit.k8s.io/v1 Event the API server would record for the request (level Metadata, ResponseComplete)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

from evaluator.admission.response import VERB_BY_OPERATION, mapping_at, request_name


def _request_uri(request: Mapping[str, Any]) -> str:
    resource = mapping_at(request, "resource")
    group, version, plural = (
        resource.get("group") or "",
        resource.get("version") or "v1",
        resource.get("resource") or "",
    )
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    namespace = request.get("namespace") or ""
    if namespace and plural != "namespaces":
        base += f"/namespaces/{namespace}"
    base += f"/{plural}"
    operation = request.get("operation") or "CREATE"
    name = request.get("name") or ""
    if operation != "CREATE" or request.get("subResource"):
        if name:
            base += f"/{name}"
    if request.get("subResource"):
        base += f"/{request['subResource']}"
    if request.get("dryRun"):
        base += "?dryRun=All"
    return base


def _audit_id(request: Mapping[str, Any]) -> str:
    if request.get("uid"):
        return str(request["uid"])
    digest = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()
    return str(uuid.UUID(digest[:32]))


def _timestamp(now: dt.datetime | None) -> str:
    """`%Y-%m-%dT%H:%M:%S.%fZ` (metav1.MicroTime), through isoformat: several times faster than strftime."""
    now = now or dt.datetime.now(dt.timezone.utc)
    if now.year < 1000:  # isoformat pads the year to four digits, strftime does not
        return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if type(now) is dt.datetime:  # isoformat's text; the text up to the second is formatted once per second
        key = (now.second, now.minute, now.hour, now.day, now.month, now.year)
        last = _SECOND[0]
        if key != last[0]:
            last = _SECOND[0] = (key, now.isoformat(timespec="seconds")[:19] + ".")
        return last[1] + str(1_000_000 + now.microsecond)[1:] + "Z"
    return now.isoformat(timespec="microseconds")[:26] + "Z"


# The last second _timestamp formatted: ((second, ..., year), its text up to the "."), replaced as one value.
_SECOND: list[tuple[tuple, str]] = [((), "")]


def audit_event(
    request: Mapping[str, Any],
    status: Mapping[str, Any] | None,
    annotations: Mapping[str, str],
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    resource = mapping_at(request, "resource")
    object_ref: dict[str, Any] = {"resource": resource.get("resource") or ""}
    if request.get("namespace"):
        object_ref["namespace"] = request["namespace"]
    name = request_name(request) if request.get("name") or request.get("object") else ""
    if name and name != "Unknown":
        object_ref["name"] = name
    if resource.get("group"):
        object_ref["apiGroup"] = resource["group"]
    object_ref["apiVersion"] = resource.get("version") or ""
    if request.get("subResource"):
        object_ref["subresource"] = request["subResource"]
    if status is None:
        response_status = {"metadata": {}, "code": 201 if request.get("operation") == "CREATE" else 200}
    else:
        response_status = {
            "metadata": {},
            "status": "Failure",
            "message": status["message"],
            "reason": status["reason"],
            "code": status["code"],
        }
    stamp = _timestamp(now)
    user = dict(request.get("userInfo") or {})
    return {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "Metadata",
        "auditID": _audit_id(request),
        "stage": "ResponseComplete",
        "requestURI": _request_uri(request),
        "verb": VERB_BY_OPERATION.get(str(request.get("operation") or ""), "create"),
        "user": user,
        "sourceIPs": ["127.0.0.1"],
        "userAgent": "kubectl",
        "objectRef": object_ref,
        "responseStatus": response_status,
        "requestReceivedTimestamp": stamp,
        "stageTimestamp": stamp,
        "annotations": {
            "authorization.k8s.io/decision": "allow",
            "authorization.k8s.io/reason": "",
            **dict(annotations),
        },
    }
