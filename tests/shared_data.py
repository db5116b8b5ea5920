"""Where the shared conformance data lives: `../shared` beside the repository (as in CI), or $SHARED_DIR."""
from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("SHARED_DIR") or Path(__file__).resolve().parents[1].parent / "shared")
CONFORMANCE = SHARED / "conformance"
SEEDS = SHARED / "seeds"
