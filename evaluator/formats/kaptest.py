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

from evaluator.formats.archives import resolve
from evaluator.formats.bounded_yaml import FormatError, dump, dump_all, load_one
from evaluator.formats.objects import document_name, object_key, object_text, objects_of, plain_object
from evaluator.k8s.restmapping import builtin_mapper, guess_resource, parse_api_version

TEST_FILE = "kaptest.yaml"
VERSION = "v1alpha1"
BINDING_PREFIX = "kaptest-"
_ALLOWED = {"admit": True, "skip": True, "deny": False, "error": False}
_REQUEST = re.compile(r"^(?P<policy>[^:]+): (?P<kind>\S+) (?P<key>\S+?)(?: \(param (?P<param>[^)]+)\))?$")


def _files(files: dict[str, str], base: str, names: object, what: str) -> list[dict]:
    out: list[dict] = []
    for name in names if isinstance(names, list) else []:
        text = resolve(files, base, str(name))
        if text is None:
            raise FormatError(f"{TEST_FILE}: {what} file {name!r} is not in the folder")
        out.extend(d for d in objects_of(text, str(name)) if isinstance(d, dict))
    return out


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


def _suite_file(files: dict[str, str]) -> str:
    found = sorted((p for p in files if posixpath.basename(p) == TEST_FILE), key=lambda p: (p.count("/"), p))
    if not found:
        raise FormatError(f"no {TEST_FILE} in the folder")
    return found[0]


def import_suite(files: dict[str, str], title: str | None = None) -> dict:
    path = _suite_file(files)
    base = posixpath.dirname(path)
    suite = load_one(files[path], path)
    if not isinstance(suite, dict):
        raise FormatError(f"{path}: not a kaptest suite")
    policies = _files(files, base, suite.get("policies", suite.get("validatingAdmissionPolicies")), "policy")
    resources = _files(files, base, suite.get("resources"), "resource")
    index = {(r.get("kind"), object_key(r)): r for r in resources}
    warnings: list[str] = []
    if suite.get("mapTestSuites"):
        warnings.append(f"{path}: mapTestSuites are not imported (a project has no expected mutated object)")
    cases = []  # (group key, policy, param, object, request)
    for group in suite.get("vapTestSuites", suite.get("testSuites")) or []:
        policy = str(group.get("policy")) if isinstance(group, dict) else ""
        for case in (group.get("tests") or []) if isinstance(group, dict) else []:
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
            cases.append(((policy, _key(param) if param else None), policy, param, obj, request))
    tested: dict[tuple, list[dict]] = {}
    params: dict[tuple, dict | None] = {}
    for key, _policy, param, obj, _request in cases:
        if all(o is not obj for o in tested.setdefault(key, [])):
            tested[key].append(obj)
        params[key] = param
    bindings = [_binding(key[0], params[key], objs) for key, objs in tested.items()]
    # an object some other suite's binding also names meets that policy too: say so
    reach = {key: {(_resource(o), (o.get("metadata") or {}).get("name")) for o in objs} for key, objs in tested.items()}
    for key, _policy, _param, obj, request in cases:
        target = (_resource(obj), (obj.get("metadata") or {}).get("name"))
        others = sorted(
            {f"{k[0]}" + (f" (param {k[1]})" if k[1] else "") for k in reach if k != key and target in reach[k]}
        )
        if others:
            warnings.append(
                f"{request['name']}: the object is also tested with {', '.join(others)}, whose binding applies to "
                "it in the project too (kaptest tests each policy alone)"
            )
    used = {id(o) for objs in tested.values() for o in objs}
    others_docs = [r for r in resources if id(r) not in used]
    documents = policies + bindings + others_docs
    return {
        "title": title or f"kaptest: {posixpath.basename(base) or 'suite'}",
        "description": f"Imported from {path}",
        "documents": [{"name": document_name(d), "text": object_text(d)} for d in documents],
        "requests": [c[4] for c in cases],
        "warnings": warnings,
    }


def _generated(obj: dict) -> bool:
    return obj.get("kind") == "ValidatingAdmissionPolicyBinding" and str(
        (obj.get("metadata") or {}).get("name", "")
    ).startswith(BINDING_PREFIX)


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
        meta = obj.get("metadata") or {}
        case: dict = {
            "object": {
                k: v
                for k, v in (
                    ("kind", obj.get("kind")),
                    ("name", meta.get("name")),
                    ("namespace", meta.get("namespace")),
                )
                if v
            }
        }
        if match.group("param"):
            ns, _, name = match.group("param").rpartition("/")
            case["param"] = {"name": name, **({"namespace": ns} if ns else {})}
        case["expect"] = "admit" if request["expected"]["allowed"] else "deny"
        if not request["expected"]["allowed"] and request["expected"].get("messageContains"):
            case["deniedMessage"] = request["expected"]["messageContains"]
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
