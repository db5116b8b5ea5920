"""The impact pool survives a worker that dies: the chunks it had not returned run again in a new pool, and
the report is the serial one; a chunk that kills its worker every time fails with ChunkFailed."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from evaluator.batch import impact
from evaluator.batch.impact import run as run_module
from evaluator.batch.impact.sample_log import audit_log_lines, policy_change
from evaluator.batch.parallel import ChunkFailed

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the patched chunk reaches workers by fork"
)


def items() -> list[dict]:
    import io

    return list(impact.AuditLog(io.BytesIO("".join(audit_log_lines(150, seed=4)).encode())))


def dying(marker: Path | None):
    """compare_chunk, but the worker that gets request 40 dies (once when `marker` is given, else always)."""
    real = run_module.compare_chunk

    def chunk(base, head, piece, **options):
        if any(item["index"] == 40 for item in piece) and (marker is None or not marker.exists()):
            if marker is not None:
                marker.write_text("died once")
            os._exit(1)
        return real(base, head, piece, **options)

    return chunk


def test_a_dead_worker_chunks_run_again(monkeypatch, tmp_path):
    base, head = policy_change()
    serial = impact.run_impact(base, head, items())
    monkeypatch.setattr(run_module, "compare_chunk", dying(tmp_path / "marker"))
    pooled = impact.run_impact(base, head, items(), jobs=2, chunk_size=16, start_method="fork")
    assert (tmp_path / "marker").exists()
    assert pooled.as_dict() == serial.as_dict()


def test_a_chunk_that_always_kills_its_worker_fails(monkeypatch):
    base, head = policy_change()
    monkeypatch.setattr(run_module, "compare_chunk", dying(None))
    with pytest.raises(ChunkFailed, match="requests 32..47 died 2 times"):
        impact.run_impact(base, head, items(), jobs=2, chunk_size=16, start_method="fork", max_attempts=2)


@pytest.mark.parametrize("jobs", [1, 2])
def test_cancelled_stops_after_a_chunk(jobs):
    from evaluator.batch.parallel import Cancelled

    base, head = policy_change()
    seen: list[int] = []
    with pytest.raises(Cancelled, match="cancelled after 16 requests"):
        impact.run_impact(
            base, head, items(), jobs=jobs, chunk_size=16, on_progress=seen.append, cancelled=lambda: bool(seen)
        )
    assert seen == [16]
