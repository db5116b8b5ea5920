"""Which mutating phase changed what: `result["mutationPhases"]`, and the patch the AdmissionReview carries.

The API server's mutating chain is MutatingAdmissionPolicy, then the mutating webhooks (Kyverno's among
them), then, when one of them changed the object, the same chain once more for whatever asked to be
reinvoked. Each kind evaluation that changed the object says per policy (or webhook) what it changed
(`KindOutcome.changes`); this module stamps each with its phase and round, in the order they happened, so a
reader sees e.g. that a Kyverno rule added a label and a MutatingAdmissionPolicy then changed it again on
reinvocation. The response's patch is computed once, from the request's object to the final one, so it holds
every phase's change whichever kind ran last.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import jsonpatch

from evaluator.admission.policy_kind import UNCHANGED, KindOutcome


def phase_entries(kind: Any, round_number: int, before: Any, outcome: KindOutcome) -> list[dict[str, Any]]:
    """The `mutationPhases` entries of one mutating kind evaluation (round 0, or 1 on reinvocation)."""
    if outcome.object is UNCHANGED:
        return []
    phase = getattr(kind, "phase", kind.name)
    changes = outcome.changes
    if not changes:
        patch = patch_between(before, outcome.object)
        changes = [{"policy": None, "patch": patch}] if patch else []
    return [{"phase": phase, "round": round_number, **change} for change in changes if change.get("patch")]


def patch_between(before: Any, after: Any) -> list[dict[str, Any]]:
    """RFC 6902 operations from `before` to `after` (a whole-document replace when one side is missing)."""
    if before is None or after is None:
        return [] if before == after else [{"op": "replace", "path": "", "value": after}]
    return list(jsonpatch.make_patch(before, after).patch)


def response_patch(original: Any, final: Any) -> str | None:
    """The base64 JSONPatch an allowed AdmissionReview response carries (None when nothing changed)."""
    if final is original:
        return None
    patch = patch_between(original, final)
    if not patch:
        return None
    text = json.dumps(patch, separators=(",", ":"), ensure_ascii=False)
    return base64.b64encode(text.encode()).decode()
