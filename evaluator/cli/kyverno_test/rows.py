"""One result row of a kyverno-test.yaml, and which runner evaluates it.

Kyverno's CLI marks what engine a result is for with a flag (`isValidatingAdmissionPolicy: true`, ...);
a row with no flag is for a ClusterPolicy/Policy, or for a ValidatingAdmissionPolicy when that is what the
named policy is. `_runners()` maps each flag to its runner, `(folder, result, resource name) -> Row`: a new
policy type adds one entry there. Other keys are ignored, as the CLI ignores them (kyverno/policies holds an
`isMUtatingPolicy: true`): such a row is evaluated by the kind of the policy it names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evaluator.cli.kyverno_test.folder import TestFolder
from evaluator.cli.located import located

# statuses: the row matched its expectation (ok), had no rule response, which `kyverno test` counts as
# pass (excluded), did not match (failed), could not be evaluated here (skipped), or broke (error)
OK, EXCLUDED, FAILED, SKIPPED, ERROR = "ok", "excluded", "failed", "skipped", "error"
PASSING = {OK, EXCLUDED}


@dataclass
class Row:
    policy: str
    rule: str
    resource: str
    kind: str
    expected: str
    actual: str
    status: str
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in PASSING


RowRunner = Callable[[TestFolder, dict, str], Row]


def _runners() -> dict[str, RowRunner]:
    from evaluator.cli.kyverno_test import (
        dpol_rows,
        gpol_rows,
        ivpol_rows,
        map_rows,
        mpol_rows,
        mutate_rows,
        policy_rows,
        vap_rows,
        vpol_rows,
    )

    return {
        "": policy_rows.run_row,
        "mutate": mutate_rows.run_row,
        "isValidatingAdmissionPolicy": vap_rows.run_row,
        "isValidatingPolicy": vpol_rows.run_row,
        "isDeletingPolicy": dpol_rows.run_row,
        "isGeneratingPolicy": gpol_rows.run_row,
        "isMutatingPolicy": mpol_rows.run_row,
        "isMutatingAdmissionPolicy": map_rows.run_row,
        "isImageValidatingPolicy": ivpol_rows.run_row,
    }


def result_resources(result: dict) -> list[str]:
    """The resource names a result lists (`resources:`, or the old singular `resource:`)."""
    names = [str(n) for n in result.get("resources") or []]
    return names + ([str(result["resource"])] if result.get("resource") else [])


def spec_resources(folder: TestFolder, result: dict) -> list[str]:
    """The resources a result's `resourceSpecs` name, as `kyverno test` reads them: only when the result has
    a `resources` list (even an empty one); a spec names each resource of its apiVersion (`group/version`,
    or `version` without a group), namespace (as created: a namespaced resource without one is in
    `default`) and name, whatever its kind."""
    specs = result.get("resourceSpecs")
    if not isinstance(result.get("resources"), list) or not isinstance(specs, list):
        return []
    from evaluator.cli.kyverno_test.policy_rows import as_created

    names = []
    for spec in specs:
        if not isinstance(spec, dict):
            continue
        group, version = str(spec.get("group") or ""), str(spec.get("version") or "")
        api_version = f"{group}/{version}" if group else version
        for doc in folder.resources:
            obj = as_created(doc)
            meta = obj.get("metadata") or {}
            namespace = str(meta.get("namespace") or "")
            if (
                obj.get("apiVersion") == api_version
                and namespace == str(spec.get("namespace") or "")
                and meta.get("name") == spec.get("name")
            ):
                names.append(f"{namespace}/{meta['name']}" if namespace else str(meta["name"]))
    return names


def row_for(
    folder: TestFolder, result: dict, resource: str, reason: str, status: str = SKIPPED, actual: str = ""
) -> Row:
    return Row(
        str(result.get("policy", "")),
        str(result.get("rule") or ""),
        resource,
        str(result.get("kind", "")),
        str(result.get("result", "")),
        actual or status,
        status,
        reason,
    )


SCORED = "policies.kyverno.io/scored"


def reported(policy: dict | None, result: str) -> str:
    """A result as `kyverno test` reports it: a failure of a policy annotated `policies.kyverno.io/scored:
    "false"` is a warn (whatever the policy's kind)."""
    annotations = ((policy or {}).get("metadata") or {}).get("annotations") or {}
    if result == "fail" and isinstance(annotations, dict) and annotations.get(SCORED) == "false":
        return "warn"
    return result


def no_such_policy(folder: TestFolder, result: dict, resource: str) -> Row:
    """A result naming a policy the test does not load: `kyverno test` reports it as pass (Excluded)."""
    name = str(result.get("policy", ""))
    reason = f"no policy named {name!r} in the test's policies (kyverno test reports pass (Excluded))"
    return row_for(folder, result, resource, reason, EXCLUDED, "excluded")


# the flag a row without one gets from the kind of the policy it names
KIND_FLAGS = {
    "ValidatingAdmissionPolicy": "isValidatingAdmissionPolicy",
    "MutatingAdmissionPolicy": "isMutatingAdmissionPolicy",
    "ValidatingPolicy": "isValidatingPolicy",
    "NamespacedValidatingPolicy": "isValidatingPolicy",
    "ImageValidatingPolicy": "isImageValidatingPolicy",
    "DeletingPolicy": "isDeletingPolicy",
    "NamespacedDeletingPolicy": "isDeletingPolicy",
    "GeneratingPolicy": "isGeneratingPolicy",
    "NamespacedGeneratingPolicy": "isGeneratingPolicy",
    "MutatingPolicy": "isMutatingPolicy",
    "NamespacedMutatingPolicy": "isMutatingPolicy",
}


def _flag(folder: TestFolder, result: dict) -> str:
    for flag in (
        "isValidatingAdmissionPolicy",
        "isValidatingPolicy",
        "isImageValidatingPolicy",
        "isDeletingPolicy",
        "isGeneratingPolicy",
        "isMutatingPolicy",
        "isMutatingAdmissionPolicy",
    ):
        if result.get(flag):
            return flag
    name = str(result.get("policy", "")).split("/")[-1]
    kinds = {p.get("kind") for p in folder.policies if (p.get("metadata") or {}).get("name") == name}
    if kinds & {"ClusterPolicy", "Policy"}:
        from evaluator.cli.kyverno_test.mutate_rows import involves_mutation

        return "mutate" if involves_mutation(folder, result) else ""
    return next((KIND_FLAGS[k] for k in sorted(k for k in kinds if k in KIND_FLAGS)), "")


def unread_policy(folder: TestFolder, result: dict) -> str | None:
    """When the policy a result names was not loaded and a policy file could not be read or parsed: that
    problem, located (the row is an error, never a pass (Excluded) for a policy that is not there)."""
    name = str(result.get("policy", "")).split("/")[-1]
    if any((p.get("metadata") or {}).get("name") == name for p in folder.policies):
        return None
    files = folder.test.get("policies") or []
    sources = {str(folder.base / str(f)) for f in ([files] if isinstance(files, str) else files)}
    for problem in folder.problems:
        if problem.get("source") in sources and problem.get("severity", "error") == "error":
            return f"policy {name!r} was not loaded: {located(problem)}"
    return None


def run_rows(folder: TestFolder) -> list[Row]:
    """Every row of the folder's results: evaluated by its runner, or skipped with the reason."""
    runners = _runners()
    rows = []
    for result in folder.test.get("results") or []:
        if not isinstance(result, dict):
            continue
        flag = _flag(folder, result)
        runner = runners[flag]
        unread = unread_policy(folder, result)
        # a result naming no resource still gets its row
        for name in result_resources(result) + spec_resources(folder, result) or [""]:
            if unread:
                rows.append(row_for(folder, result, name, unread, ERROR, "error"))
                continue
            try:
                rows.append(runner(folder, result, name))
            except Exception as exc:  # one broken row must not hide the others
                rows.append(row_for(folder, result, name, f"{type(exc).__name__}: {exc}", ERROR))
    return rows
