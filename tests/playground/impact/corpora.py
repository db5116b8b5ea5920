"""A project whose policy change is known, and corpora to compare it over: a dump and an audit log made the way
the API server writes them (audit.k8s.io/v1 Events, one JSON object a line)."""

from __future__ import annotations

import json

from tests.playground.batch.dumps import deployment_object, dump
from tests.playground.playground_fixtures import binding, policy

LIMIT_BEFORE, LIMIT_AFTER = 5, 3


def limit_policy(limit: int) -> str:
    return policy("max-replicas").replace("<= 5", f"<= {limit}")


def project_body() -> dict:
    """max-replicas at 5 (Deny), and a warn-only label rule that the change leaves alone."""
    return {
        "title": "Replica limits",
        "documents": [
            {"name": "policy", "text": limit_policy(LIMIT_BEFORE)},
            {"name": "binding", "text": binding("max-replicas")},
        ],
    }


def replicas_dump(replicas: list[int]) -> str:
    """A List of Deployments web-<i> with the given replica counts, over three namespaces."""
    text = dump(len(replicas))
    import yaml

    data = yaml.safe_load(text)
    for item, count in zip(data["items"], replicas, strict=True):
        item["spec"]["replicas"] = count
    return yaml.safe_dump(data)


def newly_denied(replicas: list[int]) -> int:
    """Allowed at the old limit, denied at the new one."""
    return sum(1 for n in replicas if LIMIT_AFTER < n <= LIMIT_BEFORE)


def audit_event(index: int, replicas: int, verb: str = "create", user: str = "alice", hour: int = 10) -> dict:
    obj = deployment_object(index, replicas, "prod" if index % 2 else "dev")
    return {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "RequestResponse",
        "auditID": f"id-{index}",
        "stage": "ResponseComplete",
        "requestURI": f"/apis/apps/v1/namespaces/{obj['metadata']['namespace']}/deployments",
        "verb": verb,
        "user": {"username": user, "groups": ["system:authenticated"]},
        "objectRef": {
            "resource": "deployments",
            "namespace": obj["metadata"]["namespace"],
            "name": obj["metadata"]["name"],
            "apiGroup": "apps",
            "apiVersion": "v1",
        },
        "responseStatus": {"metadata": {}, "code": 201},
        "requestObject": obj,
        "responseObject": obj,
        "requestReceivedTimestamp": f"2026-12-01T{hour:02d}:0{index % 10}:00.000000Z",
        "stageTimestamp": f"2026-12-01T{hour:02d}:0{index % 10}:00.100000Z",
    }


def audit_log(replicas: list[int], users: tuple[str, ...] = ("alice", "bob")) -> str:
    """One create event per replica count, alternating users, spread over two hours."""
    return "".join(
        json.dumps(audit_event(i, n, user=users[i % len(users)], hour=10 + i % 2)) + "\n"
        for i, n in enumerate(replicas)
    )
