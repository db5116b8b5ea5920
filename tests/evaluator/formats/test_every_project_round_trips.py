"""Every gallery project (playground/examples) and every vendored kyverno test folder (tests/data: the
kyverno/policies and kyverno/kyverno folders copied there) through every format and back:

- project file → project: everything the file holds, unchanged;
- project → manifests → project: everything the page stores, unchanged (names, texts, expectations, title,
  Kubernetes version); a text that is not a manifest is named in the warnings;
- kyverno-test → project → kyverno-test: a fixed point, and every row of the export passes `kyverno-test`
  (this repository's `kyverno test`) unless a warning names its request; a folder imported without
  warnings keeps every row of its own;
- kaptest → project → kaptest: a fixed point; each request the suite cannot hold is named in the warnings.
Any change is reported by the name of the item (evaluator/formats/round_trips.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from evaluator.cli.kyverno_test import run_file
from evaluator.cli.kyverno_test.export import export_folder as export_kyverno_test
from evaluator.cli.kyverno_test.folder import load_folder
from evaluator.formats import kaptest, kyverno_test, manifests, project_files
from evaluator.formats.bounded_yaml import load_all
from evaluator.formats.objects import plain_object
from evaluator.formats.round_trips import changes

ROOT = Path(__file__).resolve().parents[3]
GALLERY = sorted((ROOT / "playground" / "examples").glob("*.yaml"))
TEST_FOLDERS = sorted((ROOT / "tests" / "data").rglob("kyverno-test.yaml"))
LISTS = ("policies", "resources", "clusterResources", "variables", "userinfo", "exceptions", "paramResources")


def _gallery(path: Path) -> dict:
    return project_files.read_project(path.read_text(), str(path))


def test_every_gallery_project_and_a_representative_set_of_kyverno_folders_is_here():
    assert len(GALLERY) >= 99
    policies_folders = [p for p in TEST_FOLDERS if p.parent.name == ".kyverno-test"]  # kyverno/policies' layout
    assert len(TEST_FOLDERS) >= 50 and len(policies_folders) >= 15


def kyverno_folder(test_file: Path) -> dict[str, str]:
    """The test file and every file it lists, relative to the folder they share (kyverno/policies keeps its
    tests in `<policy>/.kyverno-test/`, naming `../<policy>.yaml`)."""
    paths = [test_file]
    for test in load_folder(test_file):
        for key in LISTS:
            names = test.test.get(key)
            for name in [names] if isinstance(names, str) else names or []:
                paths.append(Path(os.path.normpath(test_file.parent / str(name))))
    root = Path(os.path.commonpath([str(p.parent) for p in paths]))
    return {str(p.relative_to(root)): p.read_text() for p in paths if p.is_file()}


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT / "tests" / "data").parent)


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_a_project_file_round_trips_everything_it_holds(path):
    project = _gallery(path)
    written = project_files.write_project(project)
    assert changes(project, project_files.read_project(written)) == []
    assert yaml.safe_load(written) == yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_a_project_round_trips_through_manifests(path):
    project = {**_gallery(path), "kubernetesVersion": "1.31"}
    bundle, warnings = manifests.export_bundle(project)
    assert changes(project, manifests.import_bundle(bundle), fields=("title", "description", "kubernetesVersion")) == []
    not_manifests = [
        f"{what} {item['name']!r}"
        for what, items in (("document", project["documents"]), ("request", project["requests"]))
        for item in items
        if any(w.startswith(f"{what} {item['name']!r} is not a Kubernetes object") for w in warnings)
    ]
    assert len(not_manifests) == len(warnings)
    for request in project["requests"]:  # every plain object is in the stream as itself
        if plain_object(request["text"], request["name"]) is not None:
            assert f"request {request['name']!r}" not in not_manifests


def _kyverno_round_trip(project: dict, tmp_path: Path) -> tuple[dict[str, str], list[str]]:
    """(the exported folder, its warnings), after checking the export is a fixed point and that
    `kyverno-test` passes every row no warning names."""
    files, warnings = export_kyverno_test(project)
    again, _ = export_kyverno_test(kyverno_test.import_folder(files))
    assert {name: load_all(text) for name, text in again.items()} == {
        name: load_all(text) for name, text in files.items()
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    report = run_file(tmp_path / kyverno_test.TEST_FILE)
    assert report.problems == []
    warned = "\n".join(warnings)
    unexplained = [
        (row.policy, row.rule, row.resource, row.expected, row.actual, row.message)
        for row in report.rows
        if not row.ok and f"policy {row.policy}, rule {row.rule or '(every rule)'}" not in warned
    ]
    assert unexplained == []
    return files, warnings


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_a_gallery_project_round_trips_through_kyverno_test(path, tmp_path):
    project = _gallery(path)
    files, warnings = _kyverno_round_trip(project, tmp_path)
    exported = [r for r in project["requests"] if plain_object(r["text"], r["name"]) is not None]
    left_out = [w for w in warnings if w.endswith("is not a plain object and is left out")]
    assert len(exported) + len(left_out) == len(project["requests"])
    # every exported request is a resource of the folder, as it was
    resources = [obj for name, text in files.items() if name.startswith("resources") for obj in load_all(text)]
    assert sorted(map(repr, resources)) == sorted(repr(load_all(r["text"])[0]) for r in exported)
    # and comes back named and typed as it was, its expected outcome too unless a warning says otherwise
    back = {r["name"]: r for r in kyverno_test.import_folder(files)["requests"]}
    for request in exported:
        again = back[request["name"]]
        assert again["text"] == request["text"]
        changed = (request.get("expected") or None) != again["expected"]
        assert changed == any(w.startswith(f"request {request['name']!r}: its expected outcome") for w in warnings)


OUTPUT_ROWS = ("patchedResources", "patchedResource", "generatedResource", "cloneSourceResource")


def _rows(files: dict[str, str]) -> dict[tuple, set[str]]:
    """{(policy, rule, resource): results} of a folder's kyverno-test.yaml (rows checking admission outcomes,
    not the mutated or generated objects the import leaves out)."""
    rows: dict[tuple, set[str]] = {}
    for test in load_all(files[kyverno_test.TEST_FILE]):
        for row in test.get("results") or []:
            if any(row.get(key) for key in OUTPUT_ROWS):
                continue
            for resource in row.get("resources") or []:
                key = (str(row.get("policy")).split("/")[-1], row.get("rule") or "", resource)
                rows.setdefault(key, set()).add(row.get("result"))
    return rows


@pytest.mark.parametrize("path", TEST_FOLDERS, ids=_id)
def test_a_kyverno_test_folder_round_trips(path, tmp_path):
    original = kyverno_folder(path)
    project = kyverno_test.import_folder(original)
    files, warnings = _kyverno_round_trip(project, tmp_path)
    if any("a project has no place for it" in w for w in project["warnings"]):
        return  # values, variables, userinfo or exceptions change what the rows decide; the import names them
    test = next(n for n in original if n.endswith(kyverno_test.TEST_FILE))
    ours = _rows(files)
    compared = 0
    theirs = _rows({kyverno_test.TEST_FILE: original[test]})
    for (policy, rule, resource), results in theirs.items():
        if any(f"policy {policy}," in w and resource.split("/")[-1] in w for w in warnings):
            continue  # the export says this row does not hold the playground's decision
        found = {
            r
            for (p, ru, res), rs in ours.items()
            if p == policy and (not rule or ru in (rule, f"autogen-{rule}")) and resource in (res, res.split("/")[-1])
            for r in rs
        }
        assert not found or found == results, (policy, rule, resource, results, found)
        compared += bool(found)
    assert compared or not theirs


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_a_gallery_project_round_trips_through_kaptest(path):
    project = _gallery(path)
    files, warnings = kaptest.export_suite(project)
    second = kaptest.import_suite(files)
    again, again_warnings = kaptest.export_suite(second)
    assert again_warnings == []
    assert {n: load_all(t) for n, t in again.items()} == {n: load_all(t) for n, t in files.items()}
    kept = [r["name"] for r in project["requests"] if not any(w.startswith(f"request {r['name']!r}") for w in warnings)]
    assert [r["name"] for r in second["requests"]] == kept
    assert (
        changes(
            {"requests": [r for r in project["requests"] if r["name"] in kept]},
            {"requests": second["requests"]},
            fields=(),
            as_data=True,
        )
        == []
    )
