"""Kyverno DeletingPolicy / NamespacedDeletingPolicy as a policy kind of the admission core.

A DeletingPolicy is not an admission policy: Kyverno's cleanup controller runs it on its `schedule`. So the
kind never denies nor warns; each simulation reports, under `result["deletions"]`, the dry run of every
deleting policy's next scheduled run over the project's documents (when, which objects, why), at the
simulation's `now` (the current time by default). It runs in the validating stage after Kyverno's webhooks;
a request denied in the mutating stage leaves the key empty, as every later key.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import VALIDATING, KindOutcome, RequestContext, Setup, register
from evaluator.k8s.kinds import KYVERNO_DELETING_POLICY

from .dry_run import DeletingPolicies


@register
class KyvernoDeletingPolicies:
    name = KYVERNO_DELETING_POLICY
    stage = VALIDATING
    order = 230  # after Kyverno's webhooks (ClusterPolicy 200, ValidatingPolicy 210, GeneratingPolicy 220)
    result_keys: Mapping[str, Any] = {"deletions": []}

    def __init__(self) -> None:
        self.policies = DeletingPolicies([])
        self.active = False
        self.idle = True
        self._memo: tuple[dt.datetime, list[dict[str, Any]]] | None = None

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        return []

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.policies = DeletingPolicies(setup.documents)
        self.active = bool(self.policies.policies)
        self.idle = not self.active
        return self.policies.problems(lambda document, **fields: setup.locate(document, **fields))

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        now = context.now or dt.datetime.now(dt.timezone.utc)
        if self._memo is None or self._memo[0] != now:
            try:
                self._memo = (now, self.policies.run(now))
            except Exception as err:  # a defect must come out as data, never as a crash
                self._memo = (now, [{"error": f"internal error: {type(err).__name__}: {err}", "objects": []}])
        return KindOutcome(keys={"deletions": self._memo[1]})
