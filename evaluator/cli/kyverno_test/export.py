"""A project exported as a `kyverno test` folder whose result rows `kyverno test` reproduces.

The folder (evaluator/formats/kyverno_test.py) holds the playground's per-rule decisions. `kyverno test`
decides otherwise where the API server differs from the CLI: the CLI applies no API defaulting (a Pod's
`imagePullPolicy`, `serviceAccountName`, a Service's `externalTrafficPolicy` are absent), runs no mutation
before a validate rule and makes no admission request. So every row is run here as `kyverno test` runs it
(this package's runners) and written with what it computes; each row where that differs from the
playground, or that the CLI cannot evaluate offline (registries, signatures), gets a warning naming the
request, the policy and the rule. Rules `kyverno test` reports on that the playground's admission result has
no row for (a mutate rule it skipped, a DeletingPolicy, a policy of a kind admission does not run) get the
row `kyverno test` computes too, so importing the folder and exporting it again keeps its rows. A request's
expected outcome the rows give back otherwise (an `outcome`, a `messageContains`) is named too."""

from __future__ import annotations

import tempfile
from pathlib import Path

from evaluator.cli.kyverno_test.folder import TEST_FILE, TestFolder, load_folder
from evaluator.cli.kyverno_test.rows import ERROR, EXCLUDED, FAILED, OK, SKIPPED, Row, run_rows
from evaluator.formats import kyverno_test
from evaluator.formats.bounded_yaml import dump_all
from evaluator.formats.objects import object_key, plain_object
from evaluator.k8s.kinds import KYVERNO_POLICY_KINDS

RESULTS = ("pass", "fail", "warn", "error", "skip")


def export_folder(project: dict) -> tuple[dict[str, str], list[str]]:
    """({path: text} of the folder, warnings): rows as `kyverno test` computes them."""
    files, warnings = kyverno_test.export_folder(project)
    names, expected = _request_names(project)
    with tempfile.TemporaryDirectory(prefix="kyverno-test-export-") as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text)
        folders = load_folder(Path(tmp) / TEST_FILE)
        tests = []
        for layer, folder in enumerate(folders):
            rows, row_warnings = _checked(folder, names.get(layer, {}), expected.get(layer, set()))
            tests.append({**folder.test, "results": rows})
            warnings += [w for w in row_warnings if w not in warnings]
    files[TEST_FILE] = dump_all(tests)
    return files, warnings + _expectations_kept(project, files)


def _expectations_kept(project: dict, files: dict[str, str]) -> list[str]:
    """A warning per request whose expected outcome the folder gives back otherwise: its rows hold a result
    per rule, from which an import reads only allowed or denied (no outcome, no message)."""
    objects = [(r, o) for r in project.get("requests", []) for o in [plain_object(r["text"], r["name"])] if o]
    written = [request for layer in kyverno_test.layers(objects) for request, _ in layer]
    back = kyverno_test.import_folder(files)["requests"]
    return [
        f"request {request['name']!r}: its expected outcome {request.get('expected')} comes back from the folder "
        f"as {again.get('expected')} (kyverno test rows hold a result per rule, not the request's outcome or message)"
        for request, again in zip(written, back, strict=True)
        if (request.get("expected") or None) != (again.get("expected") or None)
    ]


def _request_names(project: dict) -> tuple[dict[int, dict[str, str]], dict[int, set[str]]]:
    """({test document: {resource name in its rows: the request's name}}, {test document: the resource names
    of requests with an expected outcome}), as the folder was written."""
    objects = []
    for request in project.get("requests", []):
        obj = plain_object(request["text"], request["name"])
        if obj is not None:
            objects.append((request, obj))
    layers = kyverno_test.layers(objects)
    names = {i: {object_key(obj): request["name"] for request, obj in layer} for i, layer in enumerate(layers)}
    expected = {
        i: {object_key(obj) for request, obj in layer if request.get("expected")} for i, layer in enumerate(layers)
    }
    return names, expected


def _unlisted(folder: TestFolder, singles: list[dict], resources: set[str]) -> list[dict]:
    """Rows for what `kyverno test` may report on and the playground's rows leave out: each rule of a
    ClusterPolicy/Policy, or each policy of another kind, on each resource with an expected outcome."""
    covered = {(s["policy"], s.get("rule") or "", s["resources"][0]) for s in singles}
    kinds = {object_key(r): str(r.get("kind")) for r in folder.resources}
    extra = []
    for policy in folder.policies:
        name = str((policy.get("metadata") or {}).get("name", ""))
        if policy.get("kind") in KYVERNO_POLICY_KINDS:
            rules = [str(r.get("name")) for r in (policy.get("spec") or {}).get("rules") or [] if isinstance(r, dict)]
        else:
            rules = [""]
        for resource in sorted(resources):
            for rule in rules:
                variants = {rule, f"autogen-{rule}", f"autogen-cronjob-{rule}"} if rule else {""}
                if any((name, variant, resource) in covered for variant in variants):
                    continue
                if not rule and any(p == name and res == resource for p, _, res in covered):
                    continue
                row = {"policy": name, "kind": kinds.get(resource, ""), "resources": [resource], "result": "pass"}
                extra.append({**row, "rule": rule} if rule else row)
    return extra


def _checked(folder: TestFolder, names: dict[str, str], expected: set[str]) -> tuple[list[dict], list[str]]:
    """The folder's result rows as `kyverno test` computes them, and a warning per row that differs."""
    singles = [
        {**result, "resources": [resource]}
        for result in folder.test.get("results") or []
        for resource in result.get("resources") or []
    ]
    extra = _unlisted(folder, singles, expected)
    rows = run_rows(TestFolder(folder.path, {**folder.test, "results": singles + extra}, **_loaded(folder)))
    grouped: dict[tuple, list[str]] = {}
    warnings = []
    for single, row in zip(singles, rows[: len(singles)], strict=True):
        result, warning = _verdict(single, row)
        if warning:
            resource = single["resources"][0]
            request = names.get(resource, resource)
            warnings.append(
                f"request {request!r}: policy {single['policy']}, rule {single.get('rule') or '(every rule)'}: "
                f"{warning}"
            )
        key = (single["policy"], single.get("rule"), single.get("kind"), result)
        grouped.setdefault(key, []).append(single["resources"][0])
    for single in _reproduced(folder, extra, rows[len(singles) :]):
        key = (single["policy"], single.get("rule"), single.get("kind"), single["result"])
        grouped.setdefault(key, []).append(single["resources"][0])
    results = [
        {"policy": p, **({"rule": r} if r else {}), "kind": k, "resources": sorted(set(resources)), "result": v}
        for (p, r, k, v), resources in sorted(grouped.items(), key=lambda item: tuple(map(str, item[0])))
    ]
    return results, warnings


def _reproduced(folder: TestFolder, extra: list[dict], rows: list[Row]) -> list[dict]:
    """The extra rows with the result `kyverno test` gave them, kept only when it then passes them (a row it
    reports on whatever the expectation, e.g. a DeletingPolicy's `Not found`, is left out)."""
    candidates = [
        {**single, "result": row.actual}
        for single, row in zip(extra, rows, strict=True)
        if row.status in (OK, FAILED) and row.actual in RESULTS
    ]
    checked = run_rows(TestFolder(folder.path, {**folder.test, "results": candidates}, **_loaded(folder)))
    return [single for single, row in zip(candidates, checked, strict=True) if row.status == OK]


def _loaded(folder: TestFolder) -> dict:
    return {
        "policies": folder.policies,
        "exceptions": folder.exceptions,
        "resources": folder.resources,
        "cluster": folder.cluster,
        "values": folder.values,
        "user": folder.user,
        "problems": folder.problems,
    }


def _verdict(single: dict, row: Row) -> tuple[str, str]:
    """(the result the row is written with, a warning when `kyverno test` would not reproduce the
    playground's result, or "")."""
    ours = str(single.get("result"))
    if row.status == FAILED and row.actual in RESULTS:
        why = f" ({row.message})" if row.message else ""
        return (
            row.actual,
            f"kyverno test gives {row.actual}{why} where the playground gives {ours}: the row says {row.actual}",
        )
    if row.status == FAILED:
        return ours, f"kyverno test gives {row.actual} (several rule results) where the playground gives {ours}"
    if row.status == SKIPPED:
        return ours, f"kyverno test cannot be checked offline ({row.message}): the row holds the playground's {ours}"
    if row.status == ERROR:
        return ours, f"kyverno test cannot evaluate the row ({row.message}): the row holds the playground's {ours}"
    if row.status == EXCLUDED and ours != "skip":
        return ours, (
            f"kyverno test has no result for it and reports it passed (Excluded) whatever it says; the playground "
            f"gives {ours}"
        )
    return ours, ""
