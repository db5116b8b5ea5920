"""The web app's layering, checked on the source (every import, lazy ones inside functions included).

From the bottom: the models; `core/` (errors, limits, access, caches: what every layer needs); `evaluation/`
(the engine behind the app: in-process service, worker pool, workshop judging); `collab/` (co-editing);
`services/` (projects, documents, snapshots, the live room, broadcasts); `workshops/services/`; and on top
the transports (REST `api/`, consumers, views, batch, MCP). A layer imports only layers below it, so the
packages form no cycle; in particular no service imports the API.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "playground"
APPS = ("workshops", "batch", "impact")  # apps spanning layers: their models and services are units of their own

# Bottom to top; a unit not named here is a transport (top) and may import any of these.
LAYERS = [
    {"playground.models", "playground.workshops.models", "playground.batch.models", "playground.impact.models"},
    {"playground.core"},
    {"playground.evaluation"},
    {"playground.collab"},
    {"playground.services"},
    {"playground.workshops.services"},
]
LAYER_OF = {unit: depth for depth, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str:
    parts = module.split(".")
    depth = 3 if len(parts) >= 3 and parts[1] in APPS and parts[2] in ("models", "services") else 2
    return ".".join(parts[:depth])


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(WEB.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(module: str) -> Iterator[tuple[str, int]]:
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""]) if node.level else ""
            source = (base.rstrip(".") if node.level else node.module) or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                yield (full if full in MODULES else source), node.lineno


EDGES = [
    (unit_of(m), unit_of(t), f"{m}:{line} imports {t}")
    for m in MODULES
    for t, line in _imports(m)
    if t.startswith("playground.") and unit_of(t) != unit_of(m)
]


def test_the_web_packages_form_no_cycle():
    graph: dict[str, set[str]] = {}
    for source, dest, _ in EDGES:
        graph.setdefault(source, set()).add(dest)
    try:
        tuple(graph and graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle between web packages: {' -> '.join(exc.args[1])}")


@pytest.mark.parametrize("unit", sorted(LAYER_OF))
def test_each_layer_imports_only_layers_below_it(unit):
    offending = [
        where for source, dest, where in EDGES if source == unit and LAYER_OF.get(dest, len(LAYERS)) >= LAYER_OF[unit]
    ]
    assert offending == []


def test_the_layer_check_sees_imports():
    """Guards the check itself: the services import the evaluation layer, and the API imports the services."""
    assert ("playground.services", "playground.evaluation") in {(s, d) for s, d, _ in EDGES}
    assert ("playground.api", "playground.services") in {(s, d) for s, d, _ in EDGES}
