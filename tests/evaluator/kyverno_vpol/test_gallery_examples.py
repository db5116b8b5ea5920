"""The ValidatingPolicy gallery examples show what their descriptions say (beyond the verdicts the gallery
test checks): the rule each request produced, per policy."""

from pathlib import Path

import pytest
import yaml

from evaluator import simulate

EXAMPLES = Path(__file__).resolve().parents[3] / "playground" / "examples"


def _run(slug: str) -> list[dict]:
    example = yaml.safe_load((EXAMPLES / f"{slug}.yaml").read_text())
    text = "\n---\n".join(d["text"] for d in example["documents"])
    return [simulate(text, yaml.safe_load(r["text"])) for r in example["requests"]]


def _rows(result: dict) -> list[tuple]:
    return [(p["policy"], r["rule"], r["autogen"], r["result"]) for p in result["kyverno"] for r in p["rules"]]


@pytest.mark.parametrize(
    "slug,expected",
    [
        (
            "vpol-autogen-pod-controllers",
            [
                [("disallow-latest-tag", "", "", "pass")],
                [("disallow-latest-tag", "", "defaults", "fail")],
                [("disallow-latest-tag", "", "cronjobs", "fail")],
            ],
        ),
        (
            "vpol-policy-exception",
            [
                [("require-run-as-non-root", "", "", "fail")],
                [("require-run-as-non-root", "exception", "", "skip")],
                [("require-run-as-non-root", "", "", "fail")],
            ],
        ),
        (
            "vpol-json-mode",
            [
                [("config-has-owner", "", "", "pass"), ("configmaps-need-data", "", "", "pass")],
                [("config-has-owner", "", "", "fail"), ("configmaps-need-data", "", "", "fail")],
            ],
        ),
        ("vpol-http-mock", [[("approved-images", "", "", "pass")], [("approved-images", "", "", "fail")]]),
    ],
)
def test_example_rule_results(slug, expected):
    assert [_rows(r) for r in _run(slug)] == expected


def test_the_json_mode_example_notes_that_no_webhook_runs_it():
    results = _run("vpol-json-mode")
    json_result = next(p for p in results[1]["kyverno"] if p["policy"] == "config-has-owner")
    assert "do not run this policy" in json_result["note"] and results[1]["allowed"]
