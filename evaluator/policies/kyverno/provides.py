"""What the Kyverno package offers the layers above the core (batch, CLI), which reach kinds only through
the registry (`policy_kind.provide`): its kind-selector matcher and its PolicyReport envelope."""

from __future__ import annotations

from evaluator.admission.policy_kind import KIND_SELECTOR, POLICY_REPORT, provide
from evaluator.policies.kyverno.match import check_kind
from evaluator.policies.kyverno.policy_report import report_envelope

provide(KIND_SELECTOR, check_kind)
provide(POLICY_REPORT, report_envelope)
