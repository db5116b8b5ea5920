"""Webhook configurations read with the API server's defaults (admissionregistration/v1 SetDefaults)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.k8s.kinds import MUTATING_WEBHOOK_CONFIGURATION, VALIDATING_WEBHOOK_CONFIGURATION

GROUP = "admissionregistration.k8s.io"
KINDS = {VALIDATING_WEBHOOK_CONFIGURATION: "validating", MUTATING_WEBHOOK_CONFIGURATION: "mutating"}


@dataclass(frozen=True)
class Webhook:
    configuration: str
    kind: str  # "validating" | "mutating"
    index: int  # position in its configuration
    spec: Mapping[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or "")

    @property
    def failure_policy(self) -> str:
        return str(self.spec.get("failurePolicy") or "Fail")

    @property
    def reinvocation_policy(self) -> str:
        """Mutating webhooks: IfNeeded calls it again when a later mutation changed the object (default Never)."""
        return str(self.spec.get("reinvocationPolicy") or "Never")

    @property
    def uid(self) -> str:
        """What the API server tells webhooks apart by (the accessor's UID: configuration and position)."""
        return f"{self.configuration}/{self.index}"

    @property
    def match_policy(self) -> str:
        return str(self.spec.get("matchPolicy") or "Equivalent")

    @property
    def timeout_seconds(self) -> int:
        value = self.spec.get("timeoutSeconds")
        return value if isinstance(value, int) and not isinstance(value, bool) else 10

    @property
    def match_conditions(self) -> list[Mapping[str, Any]]:
        value = self.spec.get("matchConditions")
        return [c for c in value if isinstance(c, Mapping)] if isinstance(value, list) else []

    def criteria(self) -> dict[str, Any]:
        """The webhook's matching fields as a MatchResources object (same predicates in the API server)."""
        return {
            "matchPolicy": self.match_policy,
            "namespaceSelector": self.spec.get("namespaceSelector") or {},
            "objectSelector": self.spec.get("objectSelector") or {},
            "resourceRules": self.spec.get("rules") or [],
        }

    def url(self) -> str:
        """Where the API server posts the AdmissionReview (as its client error messages name it)."""
        client = self.spec.get("clientConfig") if isinstance(self.spec.get("clientConfig"), Mapping) else {}
        query = f"?timeout={self.timeout_seconds}s"
        if isinstance(client.get("url"), str):
            return client["url"] + query
        service = client.get("service") if isinstance(client.get("service"), Mapping) else {}
        port = service.get("port") or 443
        path = str(service.get("path") or "")
        return f"https://{service.get('name')}.{service.get('namespace')}.svc:{port}{path}{query}"


def webhooks_of(documents: list[Any], kind: str) -> list[Webhook]:
    """Every webhook of the given kind, configurations sorted by name as the API server's source does."""
    configs = [
        d
        for d in documents
        if isinstance(d, Mapping)
        and KINDS.get(str(d.get("kind"))) == kind
        and str(d.get("apiVersion") or "").startswith(GROUP + "/")
    ]
    configs.sort(key=lambda d: str((d.get("metadata") or {}).get("name") or ""))
    out = []
    for config in configs:
        name = str((config.get("metadata") or {}).get("name") or "")
        for i, hook in enumerate(config.get("webhooks") or ()):
            if isinstance(hook, Mapping):
                out.append(Webhook(name, kind, i, hook))
    return out
