"""Small builders for type-checking tests."""

from __future__ import annotations

from evaluator.typechecking import typecheck

DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}


def policy(*validations, rules=(DEPLOYMENTS,), **spec) -> dict:
    body = {
        "matchConstraints": {"resourceRules": list(rules)},
        "validations": [v if isinstance(v, dict) else {"expression": v} for v in validations],
    }
    body.update(spec)
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": body,
    }


def warnings(result: dict) -> list[dict]:
    return result["status"]["typeChecking"].get("expressionWarnings", [])


def server_warning(expression: str, **spec) -> str | None:
    """The status warning text for one validation expression on Deployments (None when clean)."""
    found = warnings(typecheck(policy(expression, **spec)))
    return found[0]["warning"] if found else None


def diagnostics(result: dict, field_ref: str | None = None, severity: str = "warning") -> list[dict]:
    return [
        d
        for d in result["diagnostics"]
        if (field_ref is None or d["fieldRef"] == field_ref) and d["severity"] == severity
    ]
