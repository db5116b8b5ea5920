"""The labels Kyverno's background controller puts on what it generates and on clone sources
(pkg/background/common/labels.go, pkg/background/generate/source.go)."""

from __future__ import annotations

from evaluator.admission.api_versions import split_api_version

MANAGED_BY = "app.kubernetes.io/managed-by"
POLICY = "generate.kyverno.io/policy-name"
POLICY_NAMESPACE = "generate.kyverno.io/policy-namespace"
RULE = "generate.kyverno.io/rule-name"
TRIGGER_NAME = "generate.kyverno.io/trigger-name"
TRIGGER_UID = "generate.kyverno.io/trigger-uid"
TRIGGER_NAMESPACE = "generate.kyverno.io/trigger-namespace"
TRIGGER_KIND = "generate.kyverno.io/trigger-kind"
TRIGGER_VERSION = "generate.kyverno.io/trigger-version"
TRIGGER_GROUP = "generate.kyverno.io/trigger-group"
CLONE_SOURCE = "generate.kyverno.io/clone-source"


def _labels(obj: dict) -> dict:
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta.get("labels"), dict):
        meta["labels"] = {}
    return meta["labels"]


def trigger_labels(trigger: dict) -> dict:
    """common.TriggerInfo: the trigger's group, version, kind, namespace and uid (not its name)."""
    group, version = split_api_version(str(trigger.get("apiVersion", "")))
    meta = trigger.get("metadata") or {}
    return {
        TRIGGER_VERSION: version,
        TRIGGER_GROUP: group,
        TRIGGER_KIND: str(trigger.get("kind", "")),
        TRIGGER_NAMESPACE: str(meta.get("namespace", "") or ""),
        TRIGGER_UID: str(meta.get("uid", "") or ""),
    }


def policy_labels(policy: dict, rule_name: str) -> dict:
    meta = policy.get("metadata") or {}
    return {
        POLICY: str(meta.get("name", "")),
        POLICY_NAMESPACE: str(meta.get("namespace", "") or "") if policy.get("kind") == "Policy" else "",
        RULE: rule_name,
    }


def manage(obj: dict, trigger: dict, policy: dict, rule_name: str) -> None:
    """common.ManageLabels: managed-by kyverno, the policy and rule, the trigger."""
    labels = _labels(obj)
    labels[MANAGED_BY] = "kyverno"
    labels.update(policy_labels(policy, rule_name))
    labels.update(trigger_labels(trigger))


def tag_source(source: dict) -> bool:
    """common.TagSource: the clone-source label Kyverno adds to a source; whether it was missing."""
    labels = _labels(source)
    missing = CLONE_SOURCE not in labels
    labels[CLONE_SOURCE] = ""
    return missing


def add_source_labels(copy_of_source: dict) -> None:
    """addSourceLabels: where a cloned object came from."""
    group, version = split_api_version(str(copy_of_source.get("apiVersion", "")))
    meta = copy_of_source.get("metadata") or {}
    _labels(copy_of_source).update(
        {
            "generate.kyverno.io/source-group": group,
            "generate.kyverno.io/source-version": version,
            "generate.kyverno.io/source-kind": str(copy_of_source.get("kind", "")),
            "generate.kyverno.io/source-namespace": str(meta.get("namespace", "") or ""),
            "generate.kyverno.io/source-uid": str(meta.get("uid", "") or ""),
        }
    )
