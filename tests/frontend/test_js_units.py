"""Runs the JavaScript unit tests (static/tests/*.test.mjs) with Node's built-in runner, inside pytest."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_javascript_unit_tests_pass():
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node.js (node) to run static/tests/*.test.mjs")
    if not (ROOT / "node_modules" / "@codemirror" / "state").exists():
        pytest.skip("front-end packages are not installed: run `make frontend` (npm ci)")
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "static" / "tests").glob("*.test.mjs"))
    assert tests, "no static/tests/*.test.mjs"
    run = subprocess.run([node, "--test", *tests], cwd=ROOT, capture_output=True, text=True, timeout=120)
    summary = [line for line in run.stdout.splitlines() if line.startswith(("# pass", "# fail", "not ok"))]
    assert run.returncode == 0, "\n".join(summary) + "\n" + run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout
