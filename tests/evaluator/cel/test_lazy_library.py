"""The CEL library modules are imported when a name they declare is first looked up: what is declared, in
which order, and how expressions compile and evaluate is the same as with every module imported at once.
Each check runs in a fresh process (this one has long imported every module)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# Expressions touching names several modules declare (string, ip, compareTo, indexOf), constant checks
# (matches, format) and versions; each result or error as text.
EXPRESSIONS = [
    "string(1) + string(ip('10.0.0.1'))",
    "'abc'.matches('^a')",
    "'abc'.matches('[')",
    "semver('1.2.3').compareTo(semver('1.2.4'))",
    "quantity('1Gi').compareTo(quantity('1G'))",
    "[1, 2, 3].indexOf(2) + 'abcb'.indexOf('b')",
    "'%d items'.format([3])",
    "cidr('10.0.0.0/8').ip().family()",
    "url('https://example.com/a').getHost()",
    "isQuantity('1x')",
    "[3, 1, 2].sort()",
    "optional.of(1).orValue(2)",
]

SCRIPT = """
import json, sys
from evaluator import cel
from evaluator.cel.registry import REGISTRY
from evaluator.cel.versions import simulating
if sys.argv[1] == "eager":
    from evaluator.cel.library import load_all
    load_all()
else:  # modules imported out of their order first
    import evaluator.cel.library.semver, evaluator.cel.library.lists, evaluator.cel.library.cidr
loaded_before = sorted(m for m in sys.modules if m.startswith("evaluator.cel.library."))
results = []
for version in (None, "1.30", "1.37"):
    for expression in json.loads(sys.argv[2]):
        with simulating(version):
            try:
                results.append(repr(cel.evaluate(expression)))
            except cel.CELError as exc:
                results.append(f"{type(exc).__name__}: {exc}")
table = {name: [o.signature() for o in REGISTRY.overloads(name)] for name in REGISTRY.names()}
print(json.dumps({"results": results, "table": table, "loaded_before": loaded_before}))
"""


def run(mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, json.dumps(EXPRESSIONS)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_lazily_imported_modules_declare_and_decide_as_all_imported_at_once():
    eager, lazy = run("eager"), run("lazy")
    assert "evaluator.cel.library.urls" not in lazy["loaded_before"]  # the lazy run did import late
    assert lazy["results"] == eager["results"]
    assert lazy["table"] == eager["table"]
    assert eager["table"]["compareTo"][0].startswith("kubernetes.Quantity")  # quantity's before semver's


def test_a_simple_expression_imports_only_the_modules_it_names():
    script = (
        "import sys; from evaluator import cel; cel.evaluate('object.x <= 5', {'object': {'x': 3}});"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('evaluator.cel.library.')))"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout)  # noqa: S307 - a list of module names printed by the script above
    assert "stdlib" in loaded and not {"urls", "format", "quantity", "semver", "regex"} & set(loaded)


def test_the_declarations_file_is_up_to_date():
    done = subprocess.run(
        [sys.executable, "-m", "evaluator.cel.library.declarations"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    stored = (ROOT / "evaluator" / "cel" / "library" / "declarations.json").read_text(encoding="utf-8")
    assert done.stdout == stored, "run: python -m evaluator.cel.library.declarations --write"
