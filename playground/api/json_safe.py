"""Make a result strictly JSON-serialisable before it leaves the API (one copy, in the engine)."""

from evaluator.json_safe import json_safe  # noqa: F401 (re-exported)
