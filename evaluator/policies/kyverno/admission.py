"""The admission verdict as Kyverno's webhook words it (pkg/webhooks/utils/block.go)."""

from __future__ import annotations

import yaml


class _GoYamlDumper(yaml.SafeDumper):
    """go-yaml v3 style: multi-line strings as literal blocks, no line wrapping."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_GoYamlDumper.add_representer(str, _str)


def _resource_name(request: dict) -> str:
    obj = request.get("object") or request.get("oldObject") or {}
    meta = obj.get("metadata") or {}
    kind = (request.get("kind") or {}).get("kind") or obj.get("kind", "")
    return f"{kind}/{meta.get('namespace', request.get('namespace', '')) or ''}/{meta.get('name', request.get('name', '')) or ''}"


def admission_decision(results: list[dict], request: dict) -> dict:
    """{"allowed": bool, "message": str, "warnings": [...]}: blocked by an Enforce failure, or an error."""
    blocked = False
    failures: dict[str, dict[str, str]] = {}
    warnings = []
    for policy in results:
        reasons = {}
        for r in policy.get("rules", []):
            if r["result"] in ("pass", "skip"):
                continue
            reasons[r["rule"]] = r["message"]
            if r["result"] == "error" or (r["result"] == "fail" and r.get("action") == "Enforce"):
                blocked = True
            elif r["result"] in ("fail", "warn"):
                warnings.append(f"policy {policy['policy']}.{r['rule']}: {r['message']}")
        if reasons:
            failures[policy["policy"]] = reasons
    if not blocked:
        return {"allowed": True, "message": "", "warnings": warnings}
    body = yaml.dump(
        failures,
        Dumper=_GoYamlDumper,
        indent=2,
        default_flow_style=False,
        sort_keys=True,
        width=10**9,
        allow_unicode=True,
    )
    message = f"\n\nresource {_resource_name(request)} was blocked due to the following policies \n\n{body}"
    return {"allowed": False, "message": message, "warnings": warnings}
