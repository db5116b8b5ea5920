"""Expected outcomes and their verdicts (playground/core/expectations.py)."""

import pytest

from playground.core import expectations
from playground.core.errors import ServiceError


@pytest.mark.parametrize(
    "expected, result, verdict",
    [
        (None, {"allowed": True}, "none"),
        ({"allowed": True}, {"allowed": True}, "pass"),
        ({"allowed": True}, {"allowed": False, "status": {"message": "no"}}, "fail"),
        ({"outcome": "warned"}, {"allowed": True, "warnings": ["careful"]}, "pass"),
        ({"outcome": "allowed"}, {"allowed": True, "warnings": ["careful"]}, "fail"),
        (
            {"outcome": "denied", "messageContains": "too many"},
            {"allowed": False, "status": {"message": "too many x"}},
            "pass",
        ),
        ({"messageContains": "careful"}, {"allowed": True, "warnings": ["be careful"]}, "pass"),
        ({"messageContains": "absent"}, {"allowed": False, "status": {"message": "denied"}}, "fail"),
    ],
)
def test_verdicts_compare_expected_with_actual(expected, result, verdict):
    outcome, message = expectations.verdict(expected, result)
    assert outcome == verdict
    assert (message != "") == (verdict != "none")


def test_clean_expected_rejects_unknown_fields():
    with pytest.raises(ServiceError) as info:
        expectations.clean_expected({"allowd": True})
    assert info.value.path == "expected.allowd"
    assert expectations.clean_expected({}) is None
