"""The admission verdict of ValidatingPolicies, as Kyverno's vpol webhook handler words it
(pkg/webhooks/resource/vpol/handler.go admissionResponse) and the API server reports it.

Policies with `Deny` block on a `fail` or `error` ("Policy <name> failed: <message>" / "Policy <name> error:
<message>", joined with "; "); `Warn` turns the same texts into warnings; `Audit` only reports. Kyverno
registers ValidatingPolicies under their own webhooks (vpol.validate.kyverno.svc-fail, or -ignore for
failurePolicy Ignore; nvpol.… for NamespacedValidatingPolicies); the API server answers a webhook denial
without a code with 400 and `admission webhook "<name>" denied the request: <message>`. A webhook whose
matchConditions fail (see webhook_conditions) is refused by the API server itself: 403 Forbidden,
`<resource>.<group> "<name>" is forbidden: expression '<expr>' resulted in error: <error>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.response import forbidden_text

WEBHOOKS = {
    "ValidatingPolicy": "vpol.validate.kyverno.svc",
    "NamespacedValidatingPolicy": "nvpol.validate.kyverno.svc",
    "ImageValidatingPolicy": "ivpol.validate.kyverno.svc",
    "NamespacedImageValidatingPolicy": "ivpol.validate.kyverno.svc",
}


def webhook_name(result: Mapping[str, Any]) -> str:
    suffix = "-ignore" if result.get("failurePolicy") == "Ignore" else "-fail"
    return WEBHOOKS.get(str(result.get("kind")), WEBHOOKS["ValidatingPolicy"]) + suffix


def _texts(result: Mapping[str, Any]) -> list[str]:
    out = []
    for rule in result.get("rules") or []:
        if rule.get("result") == "fail":
            out.append(f"Policy {result['policy']} failed: {rule.get('message', '')}")
        elif rule.get("result") == "error":
            out.append(f"Policy {result['policy']} error: {rule.get('message', '')}")
    return out


def decision(results: list[Mapping[str, Any]], request: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """{"allowed", "status" (None or the API server's Status for the first denying webhook), "warnings"}.
    A policy whose webhook matchConditions failed (`refused`) is refused by the API server as Forbidden."""
    denials: dict[str, list[str]] = {}
    warnings: list[str] = []
    for result in results:
        if result.get("refused"):
            message = forbidden_text(request or {}, str(result["refused"]))
            return {
                "allowed": False,
                "warnings": warnings,
                "status": {"code": 403, "reason": "Forbidden", "message": message},
            }
        if result.get("mode") != "Kubernetes":  # JSON policies have no webhook; authz modes are unsupported
            continue
        actions = result.get("validationActions") or ["Deny"]
        texts = _texts(result)
        if "Deny" in actions and texts:
            denials.setdefault(webhook_name(result), []).extend(texts)
        if "Warn" in actions:
            warnings.extend(texts)
    if not denials:
        return {"allowed": True, "status": None, "warnings": warnings}
    name, texts = next(iter(denials.items()))
    message = f'admission webhook "{name}" denied the request: ' + "; ".join(texts)
    return {"allowed": False, "warnings": warnings, "status": {"code": 400, "reason": "", "message": message}}
