"""What the ValidatingAdmissionPolicy and MutatingAdmissionPolicy scenario tests share (tests/data/conformance/k8s-vap)."""

from __future__ import annotations

import json

from tests.shared_data import conformance_file

SCENARIOS = conformance_file("k8s-vap", "scenarios.jsonl")


def is_map(scenario: dict) -> bool:
    return any(str(d.get("kind", "")).startswith("MutatingAdmissionPolicy") for d in scenario["documents"])


def load_scenarios(*, mutating: bool) -> list[dict]:
    """The MAP scenarios (`mutating`) or the VAP ones, in file order."""
    scenarios = [json.loads(line) for line in SCENARIOS.read_text().splitlines() if line.strip()]
    return [s for s in scenarios if is_map(s) is mutating]


def api_validation_mode(scenario: dict) -> str:
    """Go tests build their objects in-process, past API validation: their documents take part even where
    `kubectl apply` would refuse them (e.g. resources ["*", "*/*"], a selector value "bad value")."""
    return "enforce" if scenario.get("origin") == "docs" else "report"


def defaulting_mode(scenario: dict) -> bool:
    """Go unit tests hand objects to the admission plugin directly, never through the API server's decoder,
    so nothing defaults them; scenarios from the documentation run against a real API server, which does."""
    return scenario.get("origin") == "docs"


def check_status(result: dict, expect: dict) -> None:
    """`allowed`, `message_contains`, `message_not_contains` and `code`: the expectations every scenario may state."""
    message = (result["status"] or {}).get("message", "")
    assert result["allowed"] is expect["allowed"], (message, result["policies"])
    if "message_contains" in expect:
        assert expect["message_contains"] in message
    if "message_not_contains" in expect:
        assert expect["message_not_contains"] not in message
    if "code" in expect:
        assert result["status"]["code"] == expect["code"]
