"""The labels Kyverno's context provider puts on what a GeneratingPolicy generates (pkg/cel/libs/context.go
addGenerateLabels): managed by kyverno, the policy, and the trigger (name, namespace, uid, kind, group,
version)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.policies.kyverno.generate import labels as common


POLICY_LABEL = common.POLICY
TRIGGER_NAME_LABEL = "generate.kyverno.io/trigger-name"
TRIGGER_NAMESPACE_LABEL = common.TRIGGER_NAMESPACE
TRIGGER_KIND_LABEL = common.TRIGGER_KIND


def downstream_labels(policy: str, trigger: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, str]:
    meta = trigger.get("metadata") if isinstance(trigger.get("metadata"), Mapping) else {}
    kind = request.get("kind") if isinstance(request.get("kind"), Mapping) else {}
    return {
        common.MANAGED_BY: "kyverno",
        common.POLICY: policy,
        TRIGGER_NAME_LABEL: str(request.get("name") or meta.get("name") or ""),
        common.TRIGGER_NAMESPACE: str(meta.get("namespace") or ""),  # the object's (a Namespace has none)
        common.TRIGGER_UID: str(meta.get("uid") or ""),
        common.TRIGGER_KIND: str(kind.get("kind") or ""),
        common.TRIGGER_GROUP: str(kind.get("group") or ""),
        common.TRIGGER_VERSION: str(kind.get("version") or ""),
    }
