"""Rows for Kyverno generate rules, compared as `kyverno test` compares them (commands/test/output.go,
compare.go; resource/labels.go, tidy.go, compare.go).

The CLI generates against a fake cluster holding only the trigger and the `cloneSourceResource` files of the
policy's clone rules. A rule's row checks the status its background checks gave it and, for each object it
generated, that the object is in the `generatedResource` file (same apiVersion, kind, namespace and name) and
equal to it once both are normalised: the `generate.kyverno.io/*` labels dropped, `managed-by: kyverno` set,
null values and empty maps and lists removed. When generating fails for any rule of the policy, the CLI keeps
the statuses and compares no objects."""

from __future__ import annotations

import copy

from evaluator.cli.kyverno_test.folder import TestFolder, read_yaml
from evaluator.cli.kyverno_test.rows import FAILED, OK, Row

_MANAGED_BY = "app.kubernetes.io/managed-by"


def clone_sources(folder: TestFolder, policy: dict) -> list[dict]:
    """The objects of the `cloneSourceResource` files the test names for the policy's clone rules (the first
    result naming each rule, as the CLI's ruleToCloneSourceResource)."""
    name = (policy.get("metadata") or {}).get("name", "")
    namespace = (policy.get("metadata") or {}).get("namespace", "") or ""
    docs: list[dict] = []
    for rule in (policy.get("spec") or {}).get("rules") or []:
        spec = (rule or {}).get("generate") or {}
        if not (spec.get("clone") or (spec.get("cloneList") or {}).get("kinds")):
            continue
        for result in folder.test.get("results") or []:
            if not isinstance(result, dict) or result.get("rule") != rule.get("name"):
                continue
            res_ns, _, res_name = str(result.get("policy", "")).rpartition("/")
            if res_name != name or res_ns != namespace:
                continue
            if result.get("cloneSourceResource"):
                path = folder.base / str(result["cloneSourceResource"])
                docs += [d for d in read_yaml(path, folder.problems) if isinstance(d, dict)]
            break
    return docs


def fixup_labels(obj: dict) -> dict:
    """resource.FixupGenerateLabels: managed-by kyverno, no generate.kyverno.io/ labels."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata")
    meta = out["metadata"] = meta if isinstance(meta, dict) else {}
    found = meta.get("labels")
    old: dict = found if isinstance(found, dict) else {}
    meta["labels"] = {
        _MANAGED_BY: "kyverno",
        **{k: v for k, v in old.items() if not k.startswith("generate.kyverno.io/")},
    }
    return out


def tidy(value: object) -> object:
    """resource.Tidy: nulls, empty maps and empty lists removed, recursively."""
    if isinstance(value, dict):
        out = {k: t for k, v in value.items() if (t := tidy(v)) is not None}
        return out or None
    if isinstance(value, list):
        items = [t for v in value if (t := tidy(v)) is not None]
        return items or None
    return value


def same(a: object, b: object) -> bool:
    """JSON equality: a boolean is never a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _identity(obj: dict) -> tuple:
    meta = obj.get("metadata") or {}
    return obj.get("apiVersion"), obj.get("kind"), meta.get("namespace") or "", meta.get("name") or ""


def _compare_file(folder: TestFolder, path: str, actual: dict, what: str) -> str | None:
    """None when `actual` equals its counterpart in the file, else why not."""
    docs = [d for d in read_yaml(folder.base / path, folder.problems) if isinstance(d, dict)]
    expected = next((d for d in docs if _identity(d) == _identity(actual)), None)
    if expected is None:
        name = _identity(actual)[3]
        return f"error: failed to load {what} resource (resource with name {name} not found in manifest)"
    if same(tidy(fixup_labels(actual)), tidy(fixup_labels(expected))):
        return None
    return f"{_identity(actual)[1]}/{_identity(actual)[3]}: generated resource differs from {path}"


def object_problem(folder: TestFolder, result: dict, obj: dict) -> str | None:
    if result.get("generatedResource") and not result.get("generatedResources"):
        return _compare_file(folder, str(result["generatedResource"]), obj, "GeneratedResource")
    files = [str(f) for f in result.get("generatedResources") or []]
    if not files:
        return None
    problems = [_compare_file(folder, f, obj, "GeneratedResources") for f in files]
    if any(p is None for p in problems):
        return None
    return "Generated resource didn't match any of the expected generated resources: " + "; ".join(
        p for p in problems if p
    )


def compared(folder: TestFolder, result: dict, name: str, generated: list[dict]) -> Row | None:
    """The row of the generate rules a result names, or None when it names none of them."""
    rule = result.get("rule")
    rules = [g for g in generated if not rule or g["rule"] in {rule, "autogen-" + rule, "autogen-cronjob-" + rule}]
    if not rules:
        return None
    failed_generation = any(g["result"] == "error" and g.get("triggerResult") != "error" for g in generated)
    expected = str(result.get("result", ""))
    problems: list[str] = []
    actual = set()
    for g in rules:
        status = g.get("triggerResult", g["result"])
        actual.add(status)
        objects = [] if failed_generation else [o for o in g["objects"] if _counts(o)]
        for obj in objects:
            problem = object_problem(folder, result, obj["object"])
            if problem:
                problems.append(problem)
        if status != expected:
            problems.append(f"Want {expected}, got {status}" + (f": {g['message']}" if g["message"] else ""))
    if failed_generation:
        problems += [f"generation failed: {g['message']}" for g in generated if g["result"] == "error"]
    ok = not any(p for p in problems if not p.startswith("generation failed"))
    return Row(
        str(result.get("policy", "")),
        str(rule or ""),
        name,
        str(result.get("kind", "")),
        expected,
        ",".join(sorted(actual)),
        OK if ok else FAILED,
        "; ".join(problems),
    )


def _counts(obj: dict) -> bool:
    """What the CLI reads back as the rule's generated resources: downstream it created or updated."""
    return obj["role"] == "downstream" and obj["action"] in ("create", "update")
