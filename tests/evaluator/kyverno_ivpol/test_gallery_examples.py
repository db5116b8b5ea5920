"""The ImageValidatingPolicy gallery examples show what their descriptions say: the result of the policy on
each request, including the signature check reported as not evaluated."""

from pathlib import Path

import pytest
import yaml

from evaluator import simulate

WEB = "ghcr.io/acme/web@sha256:4c1e997385b8fb4ad4d1d3c7e5af7ff3f882e94d07cf5b78de9e889bc60830e6"
API = "ghcr.io/acme/api@sha256:9b2a6e9ac4e0b8a9e5f1f37d3d1ad8c2f1e6a7c3b0d4e5f6a7b8c9d0e1f2a3b4"
EXAMPLES = Path(__file__).resolve().parents[3] / "playground" / "examples"


def _results(slug: str) -> list[list[tuple]]:
    example = yaml.safe_load((EXAMPLES / f"{slug}.yaml").read_text())
    text = "\n---\n".join(d["text"] for d in example["documents"])
    out = []
    for request in example["requests"]:
        result = simulate(text, yaml.safe_load(request["text"]))
        assert result["errors"] == []
        out.append(
            [(p["policy"], r["result"], tuple(p.get("images") or ())) for p in result["kyverno"] for r in p["rules"]]
        )
    return out


@pytest.mark.parametrize(
    "slug,expected",
    [
        (
            "kyverno-ivpol-allowed-tags",
            [
                [("no-latest-from-acme", "pass", ("ghcr.io/acme/web:1.4.2",))],
                [("no-latest-from-acme", "fail", ("ghcr.io/acme/web:latest", "ghcr.io/acme/proxy:2.0"))],
                [("no-latest-from-acme", "pass", ())],
            ],
        ),
        (
            "kyverno-ivpol-image-data-and-signatures",
            [
                [("signed-non-root-images", "fail", (WEB,))],
                [("signed-non-root-images", "not evaluated", (API,))],
                [("signed-non-root-images", "fail", ("ghcr.io/acme/web:1.0",))],
            ],
        ),
    ],
)
def test_gallery_example_results(slug, expected):
    assert _results(slug) == expected
