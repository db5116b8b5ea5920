"""`validate.podSecurity`: Pod Security Standards levels, versions and exclusions (kyverno pkg/pss and
pkg/engine/handlers/validation/validate_pss.go)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from . import wildcard
from .pss_base import BASELINE, CheckResult, FieldError
from .pss_checks import CHECKS
from .rule_validator import ERROR, FAIL, PASS, RuleResponse

LATEST = (10**6, 0)
CONTROL_IDS = {
    "Capabilities": ["capabilities_baseline", "capabilities_restricted"],
    "Seccomp": ["seccompProfile_baseline", "seccompProfile_restricted"],
    "Privileged Containers": ["privileged"],
    "Host Ports": ["hostPorts"],
    "/proc Mount Type": ["procMount"],
    "HostProcess": ["windowsHostProcess"],
    "SELinux": ["seLinuxOptions"],
    "Host Namespaces": ["hostNamespaces"],
    "HostPath Volumes": ["hostPathVolumes"],
    "Sysctls": ["sysctls"],
    "AppArmor": ["appArmorProfile"],
    "Privilege Escalation": ["allowPrivilegeEscalation"],
    "Running as Non-root": ["runAsNonRoot"],
    "Running as Non-root user": ["runAsUser"],
    "Volume Types": ["restrictedVolumes"],
}
_CONTROLLERS = ("DaemonSet", "Deployment", "Job", "StatefulSet", "ReplicaSet", "ReplicationController")


@dataclass
class PSSResult:
    id: str
    result: CheckResult


class VersionError(ValueError):
    pass


def parse_version(version: str | None) -> tuple[int, int]:
    if not version or version == "latest":
        return LATEST
    m = re.fullmatch(r"v1\.(0|[1-9][0-9]*)", version)
    if not m:
        raise VersionError('must be "latest" or "v1.x"')
    return (1, int(m.group(1)))


def evaluate_pss(level: str, version: tuple[int, int], meta: dict, spec: dict) -> list[PSSResult]:
    results = []
    for check in CHECKS:
        if level == BASELINE and check.level != level:
            continue
        selected = check.versions[0]
        for nxt in check.versions[1:]:
            if not version < nxt[0] and selected[0] < nxt[0]:
                selected = nxt
        result = selected[1](meta, spec)
        if not result.allowed:
            results.append(PSSResult(check.id, result))
    return results


_INDEX = re.compile(r"\d+")
_WORD = re.compile(r"[a-zA-Z]+")


def _parse_field(text: str) -> tuple[str, list[int], str, bool]:
    indexes = [int(x) for x in _INDEX.findall(text)]
    words = _WORD.findall(text)
    ctype = words[1] if len(words) > 1 else ""
    return _INDEX.sub("*", text), indexes, ctype, ctype in ("containers", "initContainers", "ephemeralContainers")


def _container(pod_spec: dict, index: int, ctype: str) -> dict:
    items = pod_spec.get(ctype) or []
    return items[index] if 0 <= index < len(items) and isinstance(items[index], dict) else {}


def _bad_values(err: FieldError) -> list[str]:
    v = err.bad_value
    if isinstance(v, bool):
        return ["true" if v else "false"]
    if isinstance(v, str):
        return [v] if v else []
    if isinstance(v, int):
        return [str(v)]
    if isinstance(v, list):
        return [str(x) for x in v]
    return []


def _field_of(text: str, container_level: bool) -> tuple[str, list[int], str, bool]:
    """(field with indexes as *, indexes, container type, whether it is a container's field); a pod-level
    exclusion compares fields only."""
    if container_level:
        return _parse_field(text)
    return _INDEX.sub("*", text), [], "", False


def _excluded_field(err: FieldError, matching_spec: dict | None, container_level: bool) -> tuple[str, dict | None]:
    """The field an exclusion's check failed on, and the container it failed in (when it is one)."""
    field, idx, ctype, is_container = _field_of(err.field, container_level)
    if is_container and matching_spec is not None:
        return field, _container(matching_spec, idx[0], ctype)
    return field, None


def _exclusion_covers(exclude: dict, field: str, err: FieldError) -> bool:
    """restrictedField must name the field, and values (wildcards) must cover every bad value."""
    restricted_field = exclude.get("restrictedField") or ""
    if restricted_field and field != restricted_field:
        return False
    values = exclude.get("values") or []
    return not values or all(any(wildcard.match(p, bad) for p in values) for bad in _bad_values(err))


def _drop_same_error(
    errs: list[FieldError], field: str, container: dict | None, pod_spec: dict, container_level: bool
) -> None:
    """Remove the first default error on the same field (and container), the way Go removes from a slice:
    the last error takes its place."""
    for idx, err in enumerate(list(errs)):
        d_field, d_idx, d_type, d_is_container = _field_of(err.field, container_level)
        same = d_field == field
        if d_is_container:
            d_name = _container(pod_spec, d_idx[0], d_type).get("name")
            same = same and (container or {}).get("name") == d_name
        if not same:
            continue
        errs[idx] = errs[-1]
        errs.pop()
        return


def _exempt(
    defaults: list[PSSResult],
    excluded: list[PSSResult],
    exclude: dict,
    pod_spec: dict,
    matching_spec: dict | None,
    container_level: bool,
) -> list[PSSResult]:
    """The default results left once the errors an exclusion covers are removed (a check with no error left
    is dropped)."""
    by_id = {r.id: r for r in defaults}
    ids = CONTROL_IDS.get(exclude.get("controlName", ""), [])
    for ex in excluded:
        if ex.id not in ids or ex.result.errors is None:
            continue
        for ex_err in list(ex.result.errors):
            field, container = _excluded_field(ex_err, matching_spec, container_level)
            if not _exclusion_covers(exclude, field, ex_err):
                continue
            default = by_id.get(ex.id)
            if default is None or default.result.errors is None:
                continue
            _drop_same_error(default.result.errors, field, container, pod_spec, container_level)
            if not default.result.errors:
                del by_id[ex.id]
    return list(by_id.values())


def apply_exclusions(
    level: str, version: tuple[int, int], excludes: list[dict], results: list[PSSResult], meta: dict, spec: dict
) -> list[PSSResult]:
    for exclude in excludes:
        images = exclude.get("images") or []
        if not images:
            fake_spec = copy.deepcopy(spec)
            fake_spec["containers"] = [{"name": "fake"}]
            fake_spec.pop("initContainers", None)
            fake_spec.pop("ephemeralContainers", None)
            excluded = evaluate_pss(level, version, meta, fake_spec)
            results = _exempt(results, excluded, exclude, spec, None, False)
        else:
            matching: dict = {}
            for ctype in ("containers", "initContainers", "ephemeralContainers"):
                picked = [
                    c
                    for c in spec.get(ctype) or []
                    if isinstance(c, dict) and any(wildcard.match(p, str(c.get("image", ""))) for p in images)
                ]
                if picked:
                    matching[ctype] = picked
            excluded = evaluate_pss(
                level, version, {"name": meta.get("name"), "namespace": meta.get("namespace")}, matching
            )
            results = _exempt(results, excluded, exclude, spec, matching, True)
    return results


def pod_spec_of(resource: dict) -> tuple[dict, dict] | None:
    kind = resource.get("kind")
    spec = resource.get("spec") if isinstance(resource.get("spec"), dict) else {}
    if kind in _CONTROLLERS:
        template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
        return (template.get("metadata") or {}), (template.get("spec") or {})
    if kind == "CronJob":
        job = spec.get("jobTemplate") if isinstance(spec.get("jobTemplate"), dict) else {}
        jspec = job.get("spec") if isinstance(job.get("spec"), dict) else {}
        template = jspec.get("template") if isinstance(jspec.get("template"), dict) else {}
        return (job.get("metadata") or {}), (template.get("spec") or {})
    if kind == "Pod":
        return (resource.get("metadata") or {}), spec
    return None


def _format_bad(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + " ".join(str(x) for x in v) + "]"
    return str(v)


def format_checks(results: list[PSSResult]) -> str:
    out = []
    for r in results:
        parts = []
        for err in r.result.errors or []:
            if err.type == "Forbidden" and not (isinstance(err.bad_value, str) and err.bad_value == ""):
                parts.append(f"{err.field} is forbidden, forbidden values found: {_format_bad(err.bad_value)}")
            else:
                parts.append(err.error())
        out.append(f"(Forbidden reason: {r.result.reason}, field error list: [{', '.join(parts)}])")
    return "".join(out)


def _convert_fields(results: list[PSSResult], kind: str) -> None:
    for r in results:
        for err in r.result.errors or []:
            if kind in _CONTROLLERS:
                err.field = err.field.replace("spec", "spec.template.spec")
            elif kind == "CronJob":
                err.field = err.field.replace("spec", "spec.jobTemplate.spec.template.spec")
            err.field = err.field.replace("metadata", "spec.template.metadata")


def check_resource(
    rule: dict, resource: dict, exception_excludes: list[dict] | None = None
) -> tuple[RuleResponse, list[PSSResult]]:
    name = rule.get("name", "")
    ps = (rule.get("validate") or {}).get("podSecurity") or {}
    found = pod_spec_of(resource)
    if found is None:
        return RuleResponse(name, ERROR, "Error while getting new resource: could not find correct resource type"), []
    meta, spec = found
    meta = meta if isinstance(meta, dict) else {}
    spec = spec if isinstance(spec, dict) else {}
    level = str(ps.get("level") or "")
    try:
        version = parse_version(ps.get("version"))
    except VersionError as err:
        return RuleResponse(name, ERROR, f"failed to parse pod security api version: {err}"), []
    results = evaluate_pss(level, version, meta, spec)
    if ps.get("exclude"):
        results = apply_exclusions(level, version, ps["exclude"], results, meta, spec)
    if not results:
        return RuleResponse(name, PASS, f"Validation rule '{name}' passed."), []
    if exception_excludes:
        remaining = apply_exclusions(level, version, exception_excludes, results, meta, spec)
        if not remaining:
            return RuleResponse(name, "skip", "rule is skipped due to policy exceptions"), []
        results = remaining
    _convert_fields(results, resource.get("kind", ""))
    message = (
        f"Validation rule '{name}' failed. It violates PodSecurity \"{level}:{ps.get('version', '')}\": "
        f"{format_checks(results)}"
    )
    return RuleResponse(name, FAIL, message), results


def evaluate_rule(
    rule: dict,
    resource: dict,
    operation: str,
    old: dict | None = None,
    enforce: bool = False,
    exception_excludes: list[dict] | None = None,
) -> RuleResponse | None:
    if operation == "DELETE":
        return None
    response, _ = check_resource(rule, resource, exception_excludes)
    allow_existing = (rule.get("validate") or {}).get("allowExistingViolations", True) is not False
    if response.status == FAIL and enforce and operation == "UPDATE" and allow_existing and old:
        prior, _ = check_resource(rule, old, exception_excludes)
        if prior.status == response.status:
            return RuleResponse(
                rule.get("name", ""), "skip", "skipping the rule evaluation as pre-existing violations are allowed"
            )
    return response
