"""The repository works on its own: a fresh clone with nothing beside it collects the whole suite.

The clone lives in a temporary folder with nothing beside it, so a test that reads the old shared folder
next to the checkout (or anything else outside the repository) fails to collect there, and this test fails
with pytest's own report of what was missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# how tests used to reach data outside the repository (spelled in pieces so this file does not match itself)
OUTSIDE = ("../" + "shared", "SHARED" + "_DIR", 'parent / "' + 'shared"')


def _clone(tmp_path: Path) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--local", str(ROOT), str(target)], check=True, timeout=120)
    return target


def _environment(clone: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", OUTSIDE[1], "KYVERNO_CASES")}
    env["PYTHONPATH"] = str(clone)
    return env


@pytest.mark.slow
def test_a_fresh_clone_collects_every_test_without_anything_beside_it(tmp_path):
    clone = _clone(tmp_path)
    assert [p.name for p in clone.parent.iterdir()] == ["clone"]  # nothing beside it
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not browser"],
        cwd=clone,
        env=_environment(clone),
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = "\n".join(run.stdout.splitlines()[-15:]) + run.stderr[-2000:]
    assert run.returncode == 0, tail
    last = run.stdout.splitlines()[-1]
    assert "error" not in last, tail
    # every conformance suite took part (a suite with no data would have collected nothing or failed)
    for suite in (
        "test_kyverno.py",
        "test_cel_spec.py",
        "test_k8s_vap.py",
        "test_k8s_map.py",
        "test_k8s_cel_library.py",
        "test_k8s_typecheck.py",
    ):
        assert f"tests/conformance/{suite}::" in run.stdout, suite

    # and a suite whose data is missing fails to collect, it does not shrink to nothing
    for suite_data, test_file in (("kyverno", "test_kyverno.py"), ("cel-spec", "test_cel_spec.py")):
        shutil.rmtree(clone / "tests" / "data" / "conformance" / suite_data)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                f"tests/conformance/{test_file}",
            ],
            cwd=clone,
            env=_environment(clone),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode != 0 and "conformance data missing" in run.stdout, run.stdout[-2000:]


def test_the_conformance_data_carries_its_notice():
    data = ROOT / "tests" / "data"
    notice = (data / "NOTICE.md").read_text()
    for suite in sorted(p.name for p in (data / "conformance").iterdir() if p.is_dir()):
        assert f"conformance/{suite}/" in notice, f"tests/data/NOTICE.md names no source for {suite}"
        assert (data / "conformance" / suite / "README.md").is_file(), suite


def test_no_test_reads_outside_the_repository():
    offenders = []
    for path in [*(ROOT / "tests").rglob("*.py"), ROOT / "Makefile", ROOT / ".ci" / "run"]:
        text = path.read_text()
        if any(pattern in text for pattern in OUTSIDE):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders
