"""A worker's warm-up leaves nothing for the first real evaluation to load: the policy packages a simulation
imports on demand (evaluator.policies.load_kinds) are all imported by it, so a room's first Kyverno, CRD,
webhook or Kyverno ValidatingPolicy project costs what its second does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = [
    "kyverno-disallow-latest-tag",
    "kyverno-mutate-add-labels",
    "kyverno-generate-default-pdb",
    "crd-list-map-keys",
    "vpol-policy-exception",
    "webhook-match-conditions",
    "vpol-http-mock",
    "map-sidecar",
]

SCRIPT = """
import json, sys, yaml
from pathlib import Path
from playground.evaluation import service as evaluation
from playground.evaluation.workshop import engine

def evaluate(slug):
    example = yaml.safe_load((Path("playground/examples") / f"{slug}.yaml").read_text())
    loaded = evaluation.load_documents([d["text"] for d in example["documents"]])
    for request in example["requests"]:
        evaluation.run_request(loaded, request["text"])
    loaded.typecheck()

slugs = json.loads(sys.argv[1])
if sys.argv[2] == "warm":
    engine.warm_up()
before = set(sys.modules)
for slug in slugs:
    evaluate(slug)
print(json.dumps(sorted(m for m in set(sys.modules) - before if m.startswith("evaluator."))))
"""


def _imported_by_first_evaluations(mode: str) -> list[str]:
    slugs = [slug for slug in EXAMPLES if (ROOT / "playground" / "examples" / f"{slug}.yaml").is_file()]
    assert len(slugs) >= 5, "the examples this test evaluates exist"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(slugs), mode], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_a_first_evaluation_of_any_kind_imports_nothing():
    assert _imported_by_first_evaluations("warm") == []


def test_without_it_the_first_evaluations_would_import_the_policy_packages():
    imported = _imported_by_first_evaluations("cold")
    assert "evaluator.policies.kyverno" in imported and "evaluator.policies.crd" in imported
