"""`status.typeChecking`-style warnings for a ValidatingPolicy: its expressions type-checked against the
schemas of the kinds its matchConstraints select, as the API server checks a ValidatingAdmissionPolicy.

The policy's spec is read as a VAP of the same shape (matchConstraints, matchConditions, variables,
validations, auditAnnotations: the same field paths). Kyverno's own libraries (`resource.Get`,
`hash.md5`, `image(...)` …) are not in the Kubernetes environment: an expression the Kubernetes checker
cannot resolve is left out (its real compile errors are the policy's compile errors), so only the
warnings a VAP would get remain (undefined fields, mismatched overloads).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import spec as sp

_KEYS = ("matchConstraints", "matchConditions", "variables", "validations", "auditAnnotations")


def typecheck(policy: Mapping[str, Any], documents: Sequence[Any] = ()) -> dict[str, Any]:
    from evaluator.typechecking import typecheck as typecheck_vap

    spec = sp.spec_of(policy)
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": sp.name_of(policy)},
        "spec": {k: spec[k] for k in _KEYS if k in spec},
    }
    report = typecheck_vap(vap, list(documents))
    diagnostics = report.get("diagnostics") or []
    unresolved = {d.get("fieldRef") for d in diagnostics if d.get("code") == "undeclared-reference"}
    return {
        "typesChecked": report.get("typesChecked") or [],
        "diagnostics": [d for d in diagnostics if d.get("fieldRef") not in unresolved],
    }
