"""A pfnet/kaptest suite: kaptest.yaml naming policy files and resource files, and per policy the test cases
that exercise it alone: v0.2 `{version: v1alpha1, policies, resources, vapTestSuites, mapTestSuites}`, or
v0.1 `{validatingAdmissionPolicies, resources, testSuites}`; a case is `{object: {kind, name, namespace?},
param?: {name, namespace?}, expect: admit|deny|skip|error, deniedMessage?}`.

kaptest evaluates each suite's policy alone, without bindings; a project evaluates every bound policy on each
request. So import binds each policy only where its suite tests it: one Deny binding per policy and param
(`kaptest-<policy>[-<param>]`) whose `matchResources.resourceRules` name exactly the objects of its cases
(group, resource and `resourceNames`), so another suite's policy does not apply to them. An object tested
under two policies (or params) still meets both in the project; the import says so in a warning. The
policy's own matchConstraints apply as in a cluster (kaptest skips them). Each case becomes a request named
`<policy>: <Kind> <namespace/name>[ (param <ns/name>)]`, expected allowed (admit, skip) or denied (deny,
error: an error denies under failurePolicy Fail), with `deniedMessage` as `messageContains`.
Export writes the v0.2 suite back from those names (the generated bindings are left out: kaptest needs none).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from evaluator.formats.archives import listed_objects, suite_file
from evaluator.formats.bounded_yaml import FormatError, dump, dump_all
from evaluator.formats.objects import document_name, object_key, object_text, objects_of, plain_object
from evaluator.k8s.restmapping import builtin_mapper, guess_resource, parse_api_version

TEST_FILE = "kaptest.yaml"
VERSION = "v1alpha1"
BINDING_PREFIX = "kaptest-"
_ALLOWED = {"admit": True, "skip": True, "deny": False, "error": False}
_REQUEST = re.compile(r"^(?P<policy>[^:]+): (?P<kind>\S+) (?P<key>\S+?)(?: \(param (?P<param>[^)]+)\))?$")


def _files(files: dict[str, str], base: str, names: object, what: str) -> list[dict]:
    return listed_objects(files, base, names, what, TEST_FILE)


def _resource(obj: dict) -> tuple[str, str]:
    """The (API group, resource) a request for the object names, as the API server maps its kind."""
    api_version = str(obj.get("apiVersion", ""))
    group = (parse_api_version(api_version) or ("", ""))[0]
    info = builtin_mapper().resource_for(api_version, str(obj.get("kind", "")))
    return group, info.gvr.resource if info is not None else guess_resource(str(obj.get("kind", "")))


def _binding(policy: str, param: dict | None, objects: list[dict]) -> dict:
    """A Deny binding of `policy` (with `param`) matching only `objects`."""
    name = BINDING_PREFIX + policy + (f"-{param['name']}" if param else "")
    names: dict[tuple[str, str], set[str]] = {}
    for obj in objects:
        names.setdefault(_resource(obj), set()).add(str((obj.get("metadata") or {}).get("name")))
    rules = [
        {
            "apiGroups": [group],
            "apiVersions": ["*"],
            "operations": ["*"],
            "resources": [resource],
            "resourceNames": sorted(found),
        }
        for (group, resource), found in sorted(names.items())
    ]
    spec: dict = {"policyName": policy, "validationActions": ["Deny"], "matchResources": {"resourceRules": rules}}
    if param:
        spec["paramRef"] = {k: v for k, v in param.items() if k in ("name", "namespace")}
        spec["paramRef"]["parameterNotFoundAction"] = "Deny"
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": spec,
    }


def _key(ref: dict) -> str:
    return "/".join(str(p) for p in (ref.get("namespace"), ref.get("name")) if p)


def import_suite(files: dict[str, str], title: str | None = None) -> dict:
    path, base, suite = suite_file(files, TEST_FILE, "a kaptest suite")
    policies = _files(files, base, suite.get("policies", suite.get("validatingAdmissionPolicies")), "policy")
    resources = _files(files, base, suite.get("resources"), "resource")
    index = {(r.get("kind"), object_key(r)): r for r in resources}
    warnings: list[str] = []
    if suite.get("mapTestSuites"):
        warnings.append(f"{path}: mapTestSuites are not imported (a project has no expected mutated object)")
    cases = [
        _case(path, policy, case, index, warnings)
        for group in suite.get("vapTestSuites", suite.get("testSuites")) or []
        for policy, case in _group_cases(group)
    ]
    tested: dict[tuple, list[dict]] = {}
    params: dict[tuple, dict | None] = {}
    for case in cases:
        if all(o is not case.object for o in tested.setdefault(case.key, [])):
            tested[case.key].append(case.object)
        params[case.key] = case.param
    bindings = [_binding(key[0], params[key], objs) for key, objs in tested.items()]
    warnings += _overlaps(cases, tested)
    used = {id(o) for objs in tested.values() for o in objs}
    others_docs = [r for r in resources if id(r) not in used]
    documents = policies + bindings + others_docs
    return {
        "title": title or f"kaptest: {posixpath.basename(base) or 'suite'}",
        "description": f"Imported from {path}",
        "documents": [{"name": document_name(d), "text": object_text(d)} for d in documents],
        "requests": [c.request for c in cases],
        "warnings": warnings,
    }


@dataclass
class _Case:
    key: tuple[str, str | None]  # (policy, param key): the binding the case is tested through
    param: dict | None
    object: dict
    request: dict


def _group_cases(group: object) -> list[tuple[str, dict]]:
    """(policy, case) of one test suite entry."""
    if not isinstance(group, dict):
        return []
    policy = str(group.get("policy"))
    return [(policy, case) for case in group.get("tests") or []]


def _case(path: str, policy: str, case: dict, index: dict, warnings: list[str]) -> _Case:
    """One kaptest case as a project request, and what of it is not imported (`warnings`)."""
    ref = case.get("object") or {}
    param = case.get("param") if isinstance(case.get("param"), dict) else None
    obj = index.get((ref.get("kind"), _key(ref)))
    if obj is None:
        raise FormatError(f"{path}: test object {ref.get('kind')} {_key(ref)} is not among the resources")
    label = f"{policy}: {ref.get('kind')} {_key(ref)}"
    ignored = sorted(k for k in ("oldObject", "userInfo") if case.get(k))
    if ignored:
        warnings.append(f"{label}: {', '.join(ignored)} not imported (the request is a CREATE of the object)")
    expect = case.get("expect")
    if expect in ("error", "skip"):
        warnings.append(f"{label}: expect {expect} imported as {'denied' if expect == 'error' else 'allowed'}")
    expected: dict | None = {"allowed": _ALLOWED[expect]} if expect in _ALLOWED else None
    if expected is not None and isinstance(case.get("deniedMessage"), str) and expect == "deny":
        expected["messageContains"] = case["deniedMessage"]
    name = label + (f" (param {_key(param)})" if param else "")
    request = {"name": name, "text": object_text(obj), "expected": expected}
    return _Case((policy, _key(param) if param else None), param, obj, request)


def _target(obj: dict) -> tuple[tuple[str, str], object]:
    return _resource(obj), (obj.get("metadata") or {}).get("name")


def _overlaps(cases: list[_Case], tested: dict[tuple, list[dict]]) -> list[str]:
    """An object some other suite's binding also names meets that policy too: say so."""
    reach = {key: {_target(o) for o in objs} for key, objs in tested.items()}
    warnings = []
    for case in cases:
        target = _target(case.object)
        others = sorted(
            {f"{k[0]}" + (f" (param {k[1]})" if k[1] else "") for k in reach if k != case.key and target in reach[k]}
        )
        if others:
            warnings.append(
                f"{case.request['name']}: the object is also tested with {', '.join(others)}, whose binding "
                "applies to it in the project too (kaptest tests each policy alone)"
            )
    return warnings


def _generated(obj: dict) -> bool:
    return obj.get("kind") == "ValidatingAdmissionPolicyBinding" and str(
        (obj.get("metadata") or {}).get("name", "")
    ).startswith(BINDING_PREFIX)


def _export_case(obj: dict, param: str | None, expected: dict) -> dict:
    meta = obj.get("metadata") or {}
    refs = (("kind", obj.get("kind")), ("name", meta.get("name")), ("namespace", meta.get("namespace")))
    case: dict = {"object": {k: v for k, v in refs if v}}
    if param:
        ns, _, name = param.rpartition("/")
        case["param"] = {"name": name, **({"namespace": ns} if ns else {})}
    case["expect"] = "admit" if expected["allowed"] else "deny"
    if not expected["allowed"] and expected.get("messageContains"):
        case["deniedMessage"] = expected["messageContains"]
    return case


def export_suite(project: dict) -> tuple[dict[str, str], list[str]]:
    policies, resources, warnings, seen = [], [], [], set()
    for doc in project.get("documents", []):
        for obj in objects_of(doc["text"], doc["name"]):
            if obj.get("kind") in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"):
                policies.append(obj)
            elif not _generated(obj):
                resources.append(obj)
                seen.add((obj.get("kind"), object_key(obj)))
    groups: dict[str, list[dict]] = {}
    for request in project.get("requests", []):
        obj, match = plain_object(request["text"], request["name"]), _REQUEST.match(request["name"])
        if obj is None or match is None or not request.get("expected") or "allowed" not in request["expected"]:
            warnings.append(
                f"request {request['name']!r} is not a kaptest case (`<policy>: <Kind> <name>` with an "
                "expected allowed/denied plain object) and is left out"
            )
            continue
        if (obj.get("kind"), object_key(obj)) not in seen:
            seen.add((obj.get("kind"), object_key(obj)))
            resources.append(obj)
        case = _export_case(obj, match.group("param"), request["expected"])
        groups.setdefault(match.group("policy"), []).append(case)
    suite = {
        "version": VERSION,
        "policies": ["policies.yaml"],
        "resources": ["resources.yaml"],
        "vapTestSuites": [{"policy": p, "tests": tests} for p, tests in groups.items()],
    }
    return {
        TEST_FILE: dump(suite),
        "policies.yaml": dump_all(policies),
        "resources.yaml": dump_all(resources),
    }, warnings
