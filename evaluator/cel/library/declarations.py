"""`python -m evaluator.cel.library.declarations [--write]`: the `declarations.json` of the library modules as
they are (printed, or written in place). Run in a fresh process: the order is the one importing every module
at once registers them in."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evaluator.cel.library import _MODULES, load_all
from evaluator.cel.registry import REGISTRY, VALIDATOR_ORIGINS

PREFIX = "evaluator.cel.library."


def build() -> dict[str, Any]:
    load_all()
    first: dict[str, int] = {}
    modules_of: dict[str, set[str]] = {}
    for sequence, (name, overload) in enumerate(
        sorted(
            ((n, o) for n in REGISTRY.names() for o in REGISTRY.overloads(n)), key=lambda p: REGISTRY._position(p[1])
        )
    ):
        module = REGISTRY.origin(overload)
        first.setdefault(module, sequence)
        modules_of.setdefault(name, set()).add(module)
    for name, modules in VALIDATOR_ORIGINS.items():
        modules_of.setdefault(name, set()).update(modules)
        for module in modules:
            first.setdefault(module, len(first) + 10_000)
    order = sorted(first, key=first.__getitem__)
    if not all(m.startswith(PREFIX) for m in order):
        raise SystemExit(f"a function declared outside the library: {[m for m in order if not m.startswith(PREFIX)]}")
    short = {m: m.removeprefix(PREFIX) for m in order}
    return {
        "order": [short[m] for m in order],
        "names": {
            name: sorted((short[m] for m in modules), key=[short[m] for m in order].index)
            for name, modules in sorted(modules_of.items())
        },
    }


def text() -> str:
    return json.dumps(build(), indent=1) + "\n"


if __name__ == "__main__":
    assert _MODULES
    if sys.argv[1:] == ["--write"]:
        (Path(__file__).parent / "declarations.json").write_text(text(), encoding="utf-8")
    else:
        sys.stdout.write(text())
