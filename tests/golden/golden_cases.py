"""What the golden-case tests share: the YAML case files of a folder and the request/expect pairs of one case.

A case file holds `documents` and either one `request` + `expect` or a list of `requests` (each with its
`expect`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).parent


def golden_cases(folder: str) -> list:
    """One pytest parameter per YAML file under `folder`, named by its stem, in name order."""
    return [pytest.param(path, id=path.stem) for path in sorted((HERE / folder).glob("*.yaml"))]


def load_case(path: Path) -> tuple[list[dict], list[tuple[dict, dict]]]:
    """The case's documents and its (request, expect) pairs."""
    case = yaml.safe_load(path.read_text())
    if "requests" in case:
        pairs = [(item["request"], item["expect"]) for item in case["requests"]]
    else:
        pairs = [(case["request"], case["expect"])]
    return case["documents"], pairs


def check_status(result: dict, expect: dict) -> None:
    """`allowed` and the exact status `message`, which every case may state."""
    status = result["status"] or {}
    assert result["allowed"] is expect["allowed"], (status, result["policies"])
    if "message" in expect:
        assert status["message"] == expect["message"]
