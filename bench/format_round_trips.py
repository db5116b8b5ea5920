"""Not a `*_bench.py` (it needs clones the tests may not read): every gallery project and every kyverno test
folder under the given clones through the kyverno-test and manifests round trips, each change named.

    .venv/bin/python bench/format_round_trips.py [KYVERNO_POLICIES_CLONE ...]

For each project: export to kyverno-test (rows as `kyverno test` computes them), run `kyverno-test` on the
folder, and count the rows that fail with no warning naming them (must be 0), the rows the export rewrote
from the playground's decision (warned), and the rows that cannot be checked offline (warned); then export
to manifests and import, listing what changed (must be nothing). Exit status 1 when a row fails unwarned or
a manifests round trip changes a project."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.cli.kyverno_test import run_file  # noqa: E402
from evaluator.cli.kyverno_test.export import export_folder  # noqa: E402
from evaluator.cli.kyverno_test.folder import load_folder  # noqa: E402
from evaluator.formats import kyverno_test, manifests, project_files  # noqa: E402
from evaluator.formats.bounded_yaml import FormatError  # noqa: E402
from evaluator.formats.round_trips import changes  # noqa: E402

LISTS = ("policies", "resources", "clusterResources", "variables", "userinfo", "exceptions", "paramResources")


def folder_files(test_file: Path) -> dict[str, str]:
    paths = [test_file]
    for test in load_folder(test_file):
        for key in LISTS:
            names = test.test.get(key)
            for name in [names] if isinstance(names, str) else names or []:
                paths.append(Path(os.path.normpath(test_file.parent / str(name))))
    root = Path(os.path.commonpath([str(p.parent) for p in paths]))
    return {str(p.relative_to(root)): p.read_text() for p in paths if p.is_file()}


def projects(clones: list[str]):
    for path in sorted((ROOT / "playground" / "examples").glob("*.yaml")):
        yield f"gallery {path.stem}", lambda path=path: project_files.read_project(path.read_text(), str(path))
    for clone in clones:
        for test in sorted(Path(clone).rglob(kyverno_test.TEST_FILE)):
            yield str(test.parent), lambda test=test: kyverno_test.import_folder(folder_files(test))


def main(clones: list[str]) -> int:
    totals = {"projects": 0, "rows": 0, "unwarned failures": 0, "rewritten (warned)": 0, "offline (warned)": 0}
    manifest_changes = 0
    for name, read in projects(clones):
        try:
            project = read()
        except (FormatError, OSError) as exc:
            print(f"{name}: not imported: {exc}")
            continue
        totals["projects"] += 1
        files, warnings = export_folder(project)
        totals["rewritten (warned)"] += sum("kyverno test gives" in w for w in warnings)
        totals["offline (warned)"] += sum("cannot be checked offline" in w for w in warnings)
        with tempfile.TemporaryDirectory() as tmp:
            for file, text in files.items():
                (Path(tmp) / file).write_text(text)
            report = run_file(Path(tmp) / kyverno_test.TEST_FILE)
        warned = "\n".join(warnings)
        for row in report.rows:
            totals["rows"] += 1
            if not row.ok and f"policy {row.policy}, rule {row.rule or '(every rule)'}" not in warned:
                totals["unwarned failures"] += 1
                print(f"{name}: row {row.policy}/{row.rule} {row.resource}: {row.expected} -> {row.actual}")
        bundle, _ = manifests.export_bundle(project)
        changed = changes(project, manifests.import_bundle(bundle), fields=("title", "description"))
        if changed:
            manifest_changes += 1
            print(f"{name}: manifests round trip: {'; '.join(changed)}")
    print(", ".join(f"{k}: {v:,}" for k, v in totals.items()) + f", manifests round trips changed: {manifest_changes}")
    return 1 if totals["unwarned failures"] or manifest_changes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
