"""`make bench` (bench/run_all.py): every script runs, every verdict is listed, any miss makes it fail."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_runner():
    spec = importlib.util.spec_from_file_location("bench_run_all", ROOT / "bench" / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_script_runs_and_every_verdict_is_listed(tmp_path, monkeypatch, capsys):
    runner = load_runner()
    (tmp_path / "a_bench.py").write_text("print('target: x — met')\n")
    (tmp_path / "b_bench.py").write_text("import sys\nprint('target: y — NOT met')\nsys.exit(1)\n")
    (tmp_path / "c_bench.py").write_text("raise SystemExit('broken before measuring')\n")
    (tmp_path / "d_bench.py").write_text("import sys\nprint('quick' if '--quick' in sys.argv else 'full')\n")
    monkeypatch.setattr(runner, "HERE", tmp_path)
    assert runner.main(["--quick"]) == 1
    out = capsys.readouterr().out
    summary = out.split("== targets", 1)[1]
    assert "a_bench.py             met" in summary and "target: x — met" in summary
    assert "b_bench.py             NOT met  (" in summary and "target: y — NOT met" in summary
    assert "c_bench.py             NOT met: the script failed (exit 1) before stating its targets" in summary
    assert "quick" in out.split("== d_bench.py", 1)[1]
    assert "2 of 4 benchmarks met their targets; not met: b_bench.py, c_bench.py" in summary


def test_all_met_exits_0(tmp_path, monkeypatch, capsys):
    runner = load_runner()
    (tmp_path / "a_bench.py").write_text("print('target: x — met')\n")
    monkeypatch.setattr(runner, "HERE", tmp_path)
    assert runner.main([]) == 0
    assert "1 of 1 benchmarks met their targets" in capsys.readouterr().out
