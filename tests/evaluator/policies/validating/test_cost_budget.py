"""CEL cost: 1e6 per expression, 1e7 per binding evaluation shared by the validations."""

from __future__ import annotations

import pytest

from evaluator.simulation import simulate
from evaluator.admission.conditions import OUT_OF_BUDGET

L40 = "[" + ",".join(str(i) for i in range(40)) + "]"
HEAVY = f"{L40}.map(a, {L40}.map(b, {L40}.map(c, c))).size() > 0"  # about 850,000 units
L100 = "[" + ",".join(str(i) for i in range(100)) + "]"
BOMB = f"{L100}.all(a, {L100}.all(b, {L100}.all(c, a + b + c >= 0)))"

# cost, not speed: without this a loaded machine hits the 1 s wall clock first and the message changes
pytestmark = pytest.mark.usefixtures("no_wall_clock_limit")


def run(vap, validations, failure_policy=None):
    policy = vap.policy(validations=validations, failure_policy=failure_policy)
    return simulate([policy, vap.binding(), vap.namespace()], vap.create(vap.configmap()))


def test_per_call_limit(vap):
    result = run(vap, [{"expression": BOMB}])
    assert result["allowed"] is False
    assert result["status"]["message"].endswith("resulted in error: operation cancelled: actual cost limit exceeded")
    assert run(vap, [{"expression": BOMB}], failure_policy="Ignore")["allowed"] is True


def test_binding_budget_is_shared_by_validations(vap):
    assert run(vap, [{"expression": HEAVY}] * 11)["allowed"] is True
    result = run(vap, [{"expression": HEAVY}] * 12)
    assert result["allowed"] is False
    assert result["status"]["message"].endswith("denied request: " + OUT_OF_BUDGET)
    trace = result["policies"][0]["trace"]
    assert sum(1 for v in trace["validations"] if v["evaluated"]) == 12


def test_message_expressions_share_what_the_validations_left(vap):
    heavy_message = f"{L40}.map(a, {L40}.map(b, {L40}.map(c, c))).size() > 0 ? 'heavy' : 'light'"
    validations = [{"expression": HEAVY}] * 11 + [{"expression": "false", "messageExpression": heavy_message}]
    result = run(vap, validations)
    assert result["allowed"] is False
    assert result["status"]["message"].endswith("denied request: failed messageExpression: " + OUT_OF_BUDGET)
    decisions = result["policies"][0]["decisions"]
    assert len(decisions) == 12 and all(d["evaluation"] == "error" for d in decisions)


def test_audit_annotations_get_a_fresh_budget(vap):
    policy = vap.policy(
        validations=[{"expression": HEAVY}] * 11,
        auditAnnotations=[{"key": "k", "valueExpression": f"{HEAVY} ? 'ok' : ''"}],
    )
    result = simulate([policy, vap.binding(), vap.namespace()], vap.create(vap.configmap()))
    assert result["allowed"] is True and result["auditAnnotations"] == {"p/k": "ok"}
