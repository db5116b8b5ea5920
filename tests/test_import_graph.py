"""The engine's layering, checked on the source (every import, lazy ones inside functions included).

- `evaluator/` imports no Django (nor the web app);
- `evaluator/cel/` imports only itself and `evaluator/k8s/`; `evaluator/k8s/` only itself;
- `evaluator/admission/` (the core) only itself, `cel`, `k8s` and `authz`; no policy package imports
  `evaluator.simulation`; every layer may read `evaluator.shortcuts` (the fast paths' switch) and `evaluator.cache_dir`
  (importing nothing);
- no cycles between the packages of `evaluator/` (each policy kind counts as its own package);
- no private name (`_x`) is imported from, or read off a module of, another package.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "evaluator"
WEB_PACKAGES = ("django", "rest_framework", "channels", "daphne", "drf_spectacular", "playground", "workshops")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def package_of(module: str) -> str:
    """The unit of layering: `evaluator.<sub>` (a top-level module counts as its own), and each
    `evaluator.policies.<kind>`."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "policies":
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _resolve_from(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not _is_package(module):
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: str) -> Iterator[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import of `module`."""
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_from(module, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:
                    yield submodule, None, node.lineno
                else:
                    yield source, alias.name, node.lineno


def _engine_edges() -> list[tuple[str, str, str | None, int]]:
    return [(module, target, name, line) for module in MODULES for target, name, line in imports(module)]


EDGES = _engine_edges()


def _internal(target: str) -> bool:
    return target == "evaluator" or target.startswith("evaluator.")


def test_the_engine_imports_no_django():
    offending = [f"{m}:{line} imports {t}" for m, t, _, line in EDGES if t.split(".")[0] in WEB_PACKAGES]
    assert offending == []


# Modules every layer may import: they import nothing of the engine.
LEAVES = {"evaluator.shortcuts", "evaluator.cache_dir"}


@pytest.mark.parametrize(
    "layer, allowed",
    [
        ("evaluator.cel", {"evaluator.cel", "evaluator.k8s"}),
        ("evaluator.k8s", {"evaluator.k8s"}),
        ("evaluator.admission", {"evaluator.admission", "evaluator.cel", "evaluator.k8s", "evaluator.authz"}),
    ],
)
def test_layers_import_only_what_is_below_them(layer, allowed):
    offending = [
        f"{m}:{line} imports {t}"
        for m, t, _, line in EDGES
        if package_of(m) == layer and _internal(t) and package_of(t) not in allowed | LEAVES
    ]
    assert offending == []


def test_leaves_import_nothing_of_the_engine():
    assert [f"{m}:{line} imports {t}" for m, t, _, line in EDGES if m in LEAVES and _internal(t)] == []


def test_no_policy_package_imports_the_simulation():
    offending = [
        f"{m}:{line}" for m, t, _, line in EDGES if m.startswith("evaluator.policies.") and t == "evaluator.simulation"
    ]
    assert offending == []


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, target, _, _ in EDGES:
        if not _internal(target):
            continue
        source, dest = package_of(module), package_of(target)
        if source != dest and dest != "evaluator":  # `from evaluator import cel` resolves to evaluator.cel
            graph.setdefault(source, set()).add(dest)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_cycles_between_engine_packages():
    assert _cycle(_package_graph()) is None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}}) is None


def _private_attribute_reads(module: str) -> Iterator[tuple[str, str, int]]:
    """`alias._name` where `alias` is a module of another package imported by `module`."""
    tree = ast.parse(MODULES[module].read_text())
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_from(module, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            yield aliases[node.value.id], node.attr, node.lineno


def test_no_private_name_crosses_a_package_boundary():
    offending = [
        f"{m}:{line} imports {t}.{name}"
        for m, t, name, line in EDGES
        if name
        and name.startswith("_")
        and not name.startswith("__")
        and _internal(t)
        and package_of(t) != package_of(m)
    ]
    for module in MODULES:
        offending += [
            f"{module}:{line} reads {target}.{attr}"
            for target, attr, line in _private_attribute_reads(module)
            if package_of(target) != package_of(module)
        ]
    assert offending == []


def test_importing_the_simulation_loads_no_django():
    code = "import sys, evaluator.simulation, evaluator; evaluator.simulate('', {}); print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# Kyverno's own `kyverno test` command: it runs Kyverno test folders, so it reads Kyverno's packages by design.
KIND_SPECIFIC_CLI = "evaluator.cli.kyverno_test"


@pytest.mark.parametrize("layer", ["evaluator.admission", "evaluator.cli", "evaluator.batch"])
def test_the_core_cli_and_batch_reach_kinds_only_through_the_registry(layer):
    """No policy package (`evaluator.policies.<kind>`) is imported: the registry (`evaluator.policies`,
    `admission.policy_kind`) is the way to a kind."""
    offending = [
        f"{m}:{line} imports {t}"
        for m, t, _, line in EDGES
        if package_of(m) == layer
        and not (m == KIND_SPECIFIC_CLI or m.startswith(KIND_SPECIFIC_CLI + "."))
        and package_of(t).startswith("evaluator.policies.")
    ]
    assert offending == []


def test_the_core_names_no_policy_kind():
    """Each kind's rules live in its package: no kind name of k8s/kinds.py is spelled, nor imported, in the
    core, except the admissionregistration groupings the API server itself defaults and validates."""
    from evaluator.k8s import kinds

    # Namespaces and CRDs are what the core indexes the cluster by (namespaceSelector, the REST mapping).
    indexed = {kinds.NAMESPACE, kinds.CUSTOM_RESOURCE_DEFINITION}
    names = {
        name: value
        for name, value in vars(kinds).items()
        if name.isupper() and isinstance(value, str) and value[:1].isupper() and value not in indexed
    }
    offending = []
    for module, path in MODULES.items():
        if package_of(module) != "evaluator.admission":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names.values():
                offending.append(f"{module}:{node.lineno} spells {node.value!r}")
        offending += [
            f"{module}:{line} imports {name}"
            for t, name, line in imports(module)
            if t == "evaluator.k8s.kinds" and name in names
        ]
    assert offending == []
