"""Cluster dumps for the batch tests, made the way `kubectl get deployments -A -o yaml` prints them."""

from __future__ import annotations

import yaml

from tests.playground.playground_fixtures import binding, policy


def deployment_object(index: int, replicas: int, namespace: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"web-{index}", "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def dump(count: int, deny_every: int = 4, namespaces: tuple[str, ...] = ("default", "prod", "dev")) -> str:
    """A `kind: List` of `count` Deployments; every `deny_every`-th one has 9 replicas (over the limit of 5)."""
    items = [
        deployment_object(i, 9 if i % deny_every == 0 else 2, namespaces[i % len(namespaces)]) for i in range(count)
    ]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})


def denied_count(count: int, deny_every: int = 4) -> int:
    return len(range(0, count, deny_every))


def two_policy_project() -> dict:
    """Two replica limits (5 and 10) with their bindings, so choosing one policy changes the totals."""
    return {
        "title": "Two limits",
        "documents": [
            {"name": "policy", "text": policy("max-replicas")},
            {"name": "binding", "text": binding("max-replicas")},
            {
                "name": "lenient",
                "text": policy("max-ten", '"at most 10"').replace("<= 5", "<= 10") + "---\n" + binding("max-ten"),
            },
        ],
    }
