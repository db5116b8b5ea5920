"""Where the conformance data lives: `tests/data/` inside the repository (sources in tests/data/NOTICE.md).

A suite whose data is missing must fail, not shrink to nothing: `conformance_file` raises at collection.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
CONFORMANCE = DATA / "conformance"


def conformance_file(suite: str, name: str) -> Path:
    """`tests/data/conformance/<suite>/<name>`, or FileNotFoundError naming what is missing."""
    path = CONFORMANCE / suite / name
    if not path.is_file():
        raise FileNotFoundError(f"conformance data missing: {path} (see tests/data/NOTICE.md)")
    return path


def read_jsonl(path: Path) -> list[dict]:
    """One JSON object per non-blank line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
