"""Where in a Kyverno policy a rule's error is: the path of the rule's field the message is about.

Mutate and generate rules fail at run time with Kyverno's messages (`failed to load context: ...`, `failed to
evaluate preconditions: ...`, `source resource ... not found`); the editor points at the field behind the
message, found from the message's start, else at the rule's mutate or generate block itself. An autogen
rule's error is placed at the rule it was generated from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# by the message's start: the field of the rule it is about (a leading "mutate."/"generate." is the block)
_MESSAGE_FIELDS = {
    "mutate": (
        ("failed to load context", "context"),
        ("failed to evaluate preconditions", "preconditions"),
        ("failed to evaluate list", "mutate.foreach"),
        ("failed to mutate elements", "mutate.foreach"),
    ),
    "generate": (
        ("failed to load rule level context", "context"),
        ("failed to load context", "context"),
        ("failed to evaluate conditions", "preconditions"),
        ("failed to evaluate preconditions", "preconditions"),
        ("failed to evaluate ", "generate.foreach"),  # failed to evaluate <i> foreach list
        ("failed to process ", "generate.foreach"),
        ("source resource ", "generate.clone"),
    ),
}
# the block's own kinds, in the order the engine looks for them
_BLOCK_KINDS = {
    "mutate": ("patchStrategicMerge", "patchesJson6902", "foreach"),
    "generate": ("foreach", "clone", "cloneList", "data"),
}


def rule_index(policy: Mapping[str, Any], rule_name: str) -> int | None:
    """The index of the rule named `rule_name` (or the rule an autogen rule came from) in `spec.rules`."""
    rules = (policy.get("spec") or {}).get("rules") or []
    base = rule_name.removeprefix("autogen-cronjob-").removeprefix("autogen-")
    return next((i for i, r in enumerate(rules) if isinstance(r, dict) and r.get("name") in (rule_name, base)), None)


def error_path(policy: Mapping[str, Any], rule_name: str, message: str, block: str = "mutate") -> str | None:
    """The path in `policy` of the field a `block` ("mutate" or "generate") rule's error is about."""
    index = rule_index(policy, rule_name)
    if index is None:
        return None
    field = next((f for prefix, f in _MESSAGE_FIELDS[block] if message.startswith(prefix)), None)
    spec = policy["spec"]["rules"][index].get(block) or {}
    if block == "generate" and field is None and "metadata.name" in message and "name" in spec:
        field = "generate.name"  # the generated object's name is not a valid object name
    if field is None:
        kind = next((k for k in _BLOCK_KINDS[block] if isinstance(spec, dict) and k in spec), None)
        field = f"{block}.{kind}" if kind else block
    return f"spec.rules[{index}].{field}"


def locate_generate_errors(results: list[dict], policies: list[dict], locate: Any) -> None:
    """Each generate rule error of `results` (the `kyverno` entries) gets `location`: its place in its policy."""
    by_name = {(p.get("metadata") or {}).get("name", ""): p for p in policies}
    for entry in results:
        policy = by_name.get(entry.get("policy"))
        for rule in entry.get("generate") or ():
            if rule.get("result") != "error" or policy is None:
                continue
            path = error_path(policy, str(rule.get("rule", "")), str(rule.get("message", "")), "generate")
            if path is not None:
                rule["location"] = locate(policy, severity="error", path=path, message=rule["message"])
