"""A `kyverno test` folder: kyverno-test.yaml naming policy and resource files, with result rows
{policy, rule, kind, resources, result: pass|fail|skip}.

Import: the policies (and clusterResources) become documents, each resource a request (a CREATE of it).
Kyverno's rows are per rule; a project's expectation is per request: a resource with a `fail` row of a rule
whose failure action is Enforce is expected denied, any other resource with rows is expected allowed.
Several test documents in kyverno-test.yaml are read in turn (`kyverno test` runs each as its own test).
Export: runs the engine on each request with an expected outcome and writes its per-rule results as rows;
requests whose objects share a name go in test documents of their own (`kyverno test` evaluates only the
first of a name). evaluator/cli/kyverno_test/export.py then rewrites the rows as `kyverno test` computes
them (what the page and the API export)."""

from __future__ import annotations

import posixpath

from evaluator.formats.archives import listed_objects, resolve, suite_path
from evaluator.formats.bounded_yaml import FormatError, dump_all, load_all
from evaluator.formats.manifests import SEPARATOR, has_marks, marked_item, marked_items
from evaluator.formats.objects import document_name, object_key, object_text, objects_of, plain_object, request_name

TEST_FILE = "kyverno-test.yaml"
KYVERNO_KINDS = ("ClusterPolicy", "Policy")
# what `kyverno test` loads as policies besides Kyverno's own kinds (bindings included: it binds them itself)
ADMISSION_POLICY_KINDS = (
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
)
# Test fields a project has no place for: the import names each one a test uses
NOT_IMPORTED = (
    "variables",
    "values",
    "userinfo",
    "exceptions",
    "context",
    "apiCallResponses",
    "globalContextEntries",
    "targetResources",
    "jsonPayload",
    "jsonPayloads",
    "httpPayloads",
    "envoyPayloads",
    "checks",
)


def _files(files: dict[str, str], base: str, names: object, what: str) -> list[dict]:
    return listed_objects(files, base, names, what, TEST_FILE)


def _enforced(policy: dict, rule_name: str) -> bool:
    spec = policy.get("spec") or {}
    for rule in spec.get("rules") or []:
        if isinstance(rule, dict) and rule.get("name") == rule_name:
            action = (rule.get("validate") or {}).get("failureAction")
            if action:
                return str(action).lower() == "enforce"
    return str(spec.get("validationFailureAction", "Audit")).lower() == "enforce"


def _folder_name(base: str) -> str:
    """The folder a test is about: its own, or for kyverno/policies' hidden `<policy>/.kyverno-test/` the
    policy's ("" when the upload starts at the hidden folder: the test's name is used then)."""
    parts = [p for p in base.split("/") if p]
    while parts and parts[-1].startswith("."):
        parts.pop()
    return parts[-1] if parts else ""


def _test_documents(files: dict[str, str]) -> tuple[str, str, list[dict]]:
    """(path, folder, test documents) of the kyverno-test.yaml nearest the folder's top: `kyverno test` runs
    every document of the file as its own test (an export writes one per set of same-named resources)."""
    path = suite_path(files, TEST_FILE)
    base = posixpath.dirname(path)
    tests = [t for t in load_all(files[path], path) if isinstance(t, dict)]
    if not tests:
        raise FormatError(f"{path}: not a kyverno test")
    return path, base, tests


def import_folder(files: dict[str, str], title: str | None = None) -> dict:
    path, base, tests = _test_documents(files)
    policies: list[dict] = []
    cluster: list[dict] = []
    requests: list[dict] = []
    read: set[tuple[str, str]] = set()  # (what, file) already read: test documents share their policy files
    warnings: list[str] = []
    for test in tests:
        new_policies = _unread(files, base, test.get("policies"), "policy", read)
        policies += new_policies
        loaded = _unread(files, base, test.get("clusterResources"), "clusterResources", read)
        loaded += _unread(files, base, test.get("paramResources"), "paramResources", read)
        cluster += [
            r
            for d in loaded
            for r in ((d.get("spec") or {}).get("resources") or [])
            if d.get("kind") == "ClusterResource"
        ] + [d for d in loaded if d.get("kind") != "ClusterResource"]
        denied, with_rows = _row_outcomes(test, policies)
        for resource, name, text in _resources(files, base, test.get("resources")):
            keys = {
                f"{resource.get('kind')}:{object_key(resource)}",
                f"{resource.get('kind')}:{(resource.get('metadata') or {}).get('name')}",
            }
            expected = {"allowed": False} if keys & denied else {"allowed": True} if keys & with_rows else None
            requests.append({"name": name, "text": text, "expected": expected})
        warnings += [w for w in _not_imported(test) if w not in warnings]
    name = (tests[0].get("metadata") or {}).get("name") or base or "kyverno test"
    return {
        "title": title or f"kyverno test: {_folder_name(base) or name}",
        "description": f"Imported from {path}",
        "documents": [{"name": document_name(d), "text": object_text(d)} for d in policies + cluster],
        "requests": requests,
        "warnings": warnings,
    }


def _resources(files: dict[str, str], base: str, names: object) -> list[tuple[dict, str, str]]:
    """(object, request name, request text) of each resource the test lists: a file the playground wrote
    marks each with its request's name and keeps its text as typed (manifests.py's marks); any other
    resource is named `CREATE <Kind> <namespace/name>`."""
    found = []
    for name in names if isinstance(names, list) else []:
        text = resolve(files, base, str(name))
        if text is None or not has_marks(text):
            found += [(r, request_name(r), object_text(r)) for r in _files(files, base, [name], "resource")]
            continue
        for mark, body, where in marked_items(text, str(name)):
            objects = [d for d in load_all(body, where) if isinstance(d, dict)]
            if isinstance(mark.get("request"), str) and len(objects) == 1:
                found.append((objects[0], mark["request"], body))
            else:
                found += [(o, request_name(o), object_text(o)) for o in objects]
    return found


def _unread(files: dict[str, str], base: str, names: object, what: str, read: set[tuple[str, str]]) -> list[dict]:
    """The objects of the files `names` lists that no earlier test document of the file listed."""
    fresh = [n for n in (names if isinstance(names, list) else []) if (what, str(n)) not in read]
    read.update((what, str(n)) for n in fresh)
    return _files(files, base, fresh, what)


def _rows(test: dict) -> list[dict]:
    return [row for row in test.get("results") or [] if isinstance(row, dict)]


def _row_denies(policy: dict, row: dict) -> bool:
    """Whether a `fail` row is a denial: an Enforce rule of a ClusterPolicy/Policy, a policy of another kind
    unless its validationActions leave Deny out (an Audit or Warn ValidatingPolicy admits)."""
    if policy.get("kind") in KYVERNO_KINDS:
        return _enforced(policy, str(row.get("rule")))
    actions = (policy.get("spec") or {}).get("validationActions")
    return not isinstance(actions, list) or "Deny" in actions


def _row_outcomes(test: dict, policies: list[dict]) -> tuple[set[str], set[str]]:
    """("<Kind>:<resource>" keys a row expects denied, keys any row names): a `fail` row denies when its
    rule's failure action is Enforce (a policy of another kind always denies)."""
    by_name = {(p.get("metadata") or {}).get("name"): p for p in policies}
    denied: set[str] = set()
    with_rows: set[str] = set()
    for row in _rows(test):
        resources = row.get("resources") or []
        fails = (
            bool(resources) and row.get("result") == "fail" and _row_denies(by_name.get(row.get("policy")) or {}, row)
        )
        for resource in resources:
            key = f"{row.get('kind')}:{resource}"
            with_rows.add(key)
            if fails:
                denied.add(key)
    return denied, with_rows


def _not_imported(test: dict) -> list[str]:
    warnings = [
        f"{TEST_FILE}: {key} is not imported (a project has no place for it)" for key in NOT_IMPORTED if test.get(key)
    ]
    flags = ("patchedResources", "patchedResource", "generatedResource", "cloneSourceResource")
    flagged = sorted({flag for row in _rows(test) for flag in flags if row.get(flag)})
    return warnings + [f"{TEST_FILE}: {flag} rows are not imported (only admission outcomes are)" for flag in flagged]


def layers(objects: list[tuple[dict, dict]]) -> list[list[tuple[dict, dict]]]:
    """The (request, object) pairs split so that no two objects of one layer share a name: `kyverno test`
    evaluates only the first of resources alike in kind, namespace and name, and a result row naming
    `name` or `namespace/name` is checked against every resource so named, whatever its kind."""
    found: list[list[tuple[dict, dict]]] = []
    names: list[set[str]] = []
    for request, obj in objects:
        name = str((obj.get("metadata") or {}).get("name"))
        depth = next((i for i, taken in enumerate(names) if name not in taken), len(names))
        if depth == len(found):
            found.append([])
            names.append(set())
        found[depth].append((request, obj))
        names[depth].add(name)
    return found


def _rows_of(simulation: object, layer: list[tuple[dict, dict]]) -> list[dict]:
    """The result rows of one layer: the per-rule Kyverno results of each request with an expected outcome."""
    rows: dict[tuple, list[str]] = {}
    for request, obj in layer:
        if not request.get("expected"):
            continue
        result = simulation.run(  # type: ignore[attr-defined]
            request["text"], trace=False, full=False, type_checks=False, request_name=request["name"]
        )
        for entry in result.get("kyverno") or []:
            for rule in entry.get("rules") or []:
                verdict = {"warn": "fail", "error": "error"}.get(rule.get("result"), rule.get("result"))
                key = (entry.get("policy"), rule.get("rule"), obj.get("kind"), verdict)
                rows.setdefault(key, []).append(object_key(obj))
    return [
        {"policy": p, "rule": r, "kind": k, "resources": sorted(set(names)), "result": v}
        for (p, r, k, v), names in sorted(rows.items(), key=lambda item: tuple(map(str, item[0])))
    ]


def export_folder(project: dict) -> tuple[dict[str, str], list[str]]:
    """({path: text} of the folder, warnings about what could not be written). The results are the
    playground's decisions; `evaluator.cli.kyverno_test.export` checks them against `kyverno test`."""
    from evaluator.simulation import Simulation  # the engine only when exporting

    policies, cluster, warnings = [], [], []
    for doc in project.get("documents", []):
        for obj in objects_of(doc["text"], doc["name"]):
            (
                policies
                if obj.get("kind") in KYVERNO_KINDS + ADMISSION_POLICY_KINDS
                or str(obj.get("apiVersion")).startswith("policies.kyverno.io/")
                else cluster
            ).append(obj)
    simulation = Simulation(
        [d["text"] for d in project.get("documents", [])], kubernetes_version=project.get("kubernetesVersion")
    )
    objects = []
    for request in project.get("requests", []):
        obj = plain_object(request["text"], request["name"])
        if obj is None:
            warnings.append(f"request {request['name']!r} is not a plain object and is left out")
        else:
            objects.append((request, obj))
    files = {"policies.yaml": dump_all(policies)}
    if cluster:
        files["cluster-resources.yaml"] = dump_all(cluster)
    tests = []
    for i, layer in enumerate(layers(objects) or [[]]):
        resources = "resources.yaml" if i == 0 else f"resources-{i + 1}.yaml"
        test: dict = {
            "apiVersion": "cli.kyverno.io/v1alpha1",
            "kind": "Test",
            "metadata": {"name": "kyverno-test" if i == 0 else f"kyverno-test-{i + 1}"},
            "policies": ["policies.yaml"],
            "resources": [resources],
        }
        if cluster:
            test["clusterResources"] = ["cluster-resources.yaml"]
        test["results"] = _rows_of(simulation, layer)
        files[resources] = SEPARATOR.join(
            marked_item({"request": r["name"]}, r["text"], "request", []) for r, _ in layer
        )
        tests.append(test)
    files[TEST_FILE] = dump_all(tests)
    return files, warnings
