"""A pfnet/kaptest suite: kaptest.yaml naming policy files and resource files, and per policy the test cases
that exercise it alone: v0.2 `{version: v1alpha1, policies, resources, vapTestSuites, mapTestSuites}`, or
v0.1 `{validatingAdmissionPolicies, resources, testSuites}`; a case is `{object?: {kind, name, namespace?},
oldObject?: {...}, param?: {name, namespace?}, expect: admit|deny|skip|error, deniedMessage?}`: `object` alone
is a CREATE, both an UPDATE, `oldObject` alone a DELETE (imported as an AdmissionReview saying so, the
request named `... (UPDATE)` / `... (DELETE)`).

kaptest evaluates each suite's policy alone, without bindings; a project evaluates every bound policy on each
request. So import binds each policy only where its suite tests it: one Deny binding per policy and param
(`kaptest-<policy>[-<param>]`) whose `matchResources.resourceRules` name exactly the objects of its cases
(group, resource and `resourceNames`), so another suite's policy does not apply to them. An object tested
under two policies (or params) still meets both in the project; the import says so in a warning. The
policy's own matchConstraints apply as in a cluster (kaptest skips them): the import warns about each expected
denial they keep the policy from (the project allows it), and about each policy whose expressions read what
kaptest gives otherwise (request.resource and subResource empty, dryRun true, an authorizer allowing all). Each case becomes a request named
`<policy>: <Kind> <namespace/name>[ (param <ns/name>)]`, expected allowed (admit, skip) or denied (deny,
error: an error denies under failurePolicy Fail), with `deniedMessage` as `messageContains`.
Export writes the v0.2 suite back from those names (the generated bindings are left out: kaptest needs none).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

from evaluator.formats.archives import listed_objects, suite_file
from evaluator.formats.bounded_yaml import FormatError, dump, dump_all, load_all
from evaluator.formats.objects import document_name, is_object, object_key, object_text, objects_of, plain_object
from evaluator.k8s.restmapping import builtin_mapper, guess_resource, parse_api_version

TEST_FILE = "kaptest.yaml"
VERSION = "v1alpha1"
BINDING_PREFIX = "kaptest-"
_ALLOWED = {"admit": True, "skip": True, "deny": False, "error": False}
_REQUEST = re.compile(
    r"^(?P<policy>[^:]+): (?P<kind>\S+) (?P<key>\S+?)(?: \(param (?P<param>[^)]+)\))?(?: \((?:UPDATE|DELETE)\))?$"
)


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
    warnings += _not_reproduced(path, policies, cases)
    used = {id(o) for objs in tested.values() for o in objs} | {id(c.old) for c in cases if c.old is not None}
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
    object: dict  # the object the request is about (the oldObject of a DELETE)
    request: dict
    old: dict | None = None  # the oldObject of an UPDATE or DELETE


def _group_cases(group: object) -> list[tuple[str, dict]]:
    """(policy, case) of one test suite entry."""
    if not isinstance(group, dict):
        return []
    policy = str(group.get("policy"))
    return [(policy, case) for case in group.get("tests") or []]


def _resolved(path: str, case: dict, field: str, index: dict) -> dict | None:
    """The resource a case's `object` or `oldObject` names (None when the case names none)."""
    ref = case.get(field)
    if not isinstance(ref, dict):
        return None
    found = index.get((ref.get("kind"), _key(ref)))
    if found is None:
        raise FormatError(f"{path}: test {field} {ref.get('kind')} {_key(ref)} is not among the resources")
    return found


def _request_text(obj: dict | None, old: dict | None) -> str:
    """The request of a case as kaptest makes it: object alone a CREATE, both an UPDATE, oldObject alone a
    DELETE (the last two as an AdmissionReview, which says its operation)."""
    if old is None and obj is not None:
        return object_text(obj)
    request: dict = {"operation": "UPDATE" if obj is not None else "DELETE"}
    if obj is not None:
        request["object"] = obj
    request["oldObject"] = old
    return dump({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request})


def _case(path: str, policy: str, case: dict, index: dict, warnings: list[str]) -> _Case:
    """One kaptest case as a project request, and what of it is not imported (`warnings`)."""
    param = case.get("param") if isinstance(case.get("param"), dict) else None
    new, old = _resolved(path, case, "object", index), _resolved(path, case, "oldObject", index)
    if new is None and old is None:
        raise FormatError(f"{path}: a test of {policy} names neither an object nor an oldObject")
    obj = new if new is not None else old
    operation = "CREATE" if old is None else "UPDATE" if new is not None else "DELETE"
    ref = case.get("object") if new is not None else case.get("oldObject")
    label = f"{policy}: {ref.get('kind')} {_key(ref)}"
    if case.get("userInfo"):
        warnings.append(f"{label}: userInfo not imported (the request is made by no user)")
    expect = case.get("expect")
    if expect in ("error", "skip"):
        warnings.append(f"{label}: expect {expect} imported as {'denied' if expect == 'error' else 'allowed'}")
    expected: dict | None = {"allowed": _ALLOWED[expect]} if expect in _ALLOWED else None
    if expected is not None and isinstance(case.get("deniedMessage"), str) and expect == "deny":
        expected["messageContains"] = case["deniedMessage"]
    name = label + (f" (param {_key(param)})" if param else "") + ("" if old is None else f" ({operation})")
    request = {"name": name, "text": _request_text(new, old), "expected": expected}
    return _Case((policy, _key(param) if param else None), param, obj, request, old)


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


# What a policy's expressions may read that kaptest gives otherwise than the API server: (pattern, what
# kaptest gives). kaptest builds the request with an empty resource and subresource, as a dry run, and its
# authorizer allows every check.
_KAPTEST_DIFFERS = (
    (re.compile(r"\brequest\.resource\b"), "request.resource.resource is empty in kaptest"),
    (re.compile(r"\brequest\.subResource\b"), "request.subResource is empty in kaptest"),
    (re.compile(r"\brequest\.dryRun\b"), "request.dryRun is true in kaptest"),
    (re.compile(r"\bauthorizer\b"), "kaptest's authorizer allows every check"),
)


def _expressions(spec: dict) -> str:
    """The text of every expression of a policy's spec (all but its matchConstraints)."""
    return json.dumps({k: v for k, v in spec.items() if k != "matchConstraints"}, default=str)


def _not_reproduced(path: str, policies: list[dict], cases: list[_Case]) -> list[str]:
    """What kaptest would decide otherwise than the project: kaptest evaluates a policy on every object its
    suite names, ignoring the policy's matchConstraints (a case they do not match is not evaluated in the
    project: the request is allowed, a denial kaptest expects is not reproduced); and what the expressions
    read that kaptest gives otherwise."""
    from evaluator.admission.matching import policy_matches
    from evaluator.admission.request import normalize_request

    by_name = {
        str((p.get("metadata") or {}).get("name")): p
        for p in policies
        if p.get("kind") == "ValidatingAdmissionPolicy" and isinstance(p.get("spec"), dict)
    }
    warnings = []
    for name, policy in by_name.items():
        read = _expressions(policy["spec"])
        warnings += [f"{path}: policy {name}: {why}" for pattern, why in _KAPTEST_DIFFERS if pattern.search(read)]
    for case in cases:
        policy = by_name.get(case.key[0])
        expected = case.request.get("expected") or {}
        if policy is None or expected.get("allowed") is not False:
            continue  # an admission kaptest expects is the project's too when the policy does not apply
        try:
            request = normalize_request(load_all(case.request["text"])[0]).request
        except (ValueError, IndexError):
            request = None
        if request is None:
            continue
        match = policy_matches(policy, request)
        if not match.matched:
            warnings.append(
                f"{case.request['name']}: kaptest ignores matchConstraints and evaluates the policy, but in the "
                f"project its matchConstraints do not match this request ({match.reason}): the policy does "
                "not apply and the request is allowed, not denied"
            )
    return warnings


def _generated(obj: dict) -> bool:
    return obj.get("kind") == "ValidatingAdmissionPolicyBinding" and str(
        (obj.get("metadata") or {}).get("name", "")
    ).startswith(BINDING_PREFIX)


def _case_objects(text: str, name: str) -> tuple[dict | None, dict | None]:
    """(object, oldObject) of a request kaptest can make: a plain object (CREATE), or an AdmissionReview of
    an UPDATE (both) or a DELETE (oldObject alone); (None, None) for anything else."""
    obj = plain_object(text, name)
    if obj is not None:
        return obj, None
    try:
        docs = load_all(text, name)
    except ValueError:
        return None, None
    review = docs[0] if len(docs) == 1 and isinstance(docs[0], dict) else {}
    request = review.get("request") if review.get("kind") == "AdmissionReview" else None
    if not isinstance(request, dict) or not is_object(request.get("oldObject")):
        return None, None
    if request.get("operation") == "DELETE" and request.get("object") is None:
        return None, request["oldObject"]
    if request.get("operation") == "UPDATE" and is_object(request.get("object")):
        return request["object"], request["oldObject"]
    return None, None


def _ref(obj: dict) -> dict:
    meta = obj.get("metadata") or {}
    refs = (("kind", obj.get("kind")), ("name", meta.get("name")), ("namespace", meta.get("namespace")))
    return {k: v for k, v in refs if v}


def _export_case(obj: dict | None, old: dict | None, param: str | None, expected: dict) -> dict:
    case: dict = {}
    if obj is not None:
        case["object"] = _ref(obj)
    if old is not None:
        case["oldObject"] = _ref(old)
    if param:
        ns, _, name = param.rpartition("/")
        case["param"] = {"name": name, **({"namespace": ns} if ns else {})}
    case["expect"] = "admit" if expected["allowed"] else "deny"
    if not expected["allowed"] and expected.get("messageContains"):
        case["deniedMessage"] = expected["messageContains"]
    return case


def _names_its_case(match: re.Match, obj: dict | None, policies: list[dict]) -> bool:
    """Whether a request name read as `<policy>: <Kind> <key>` names a policy of the project and the
    request's own object (else the export would rename the request)."""
    named = {str((p.get("metadata") or {}).get("name")) for p in policies}
    return (
        obj is not None
        and match.group("policy") in named
        and match.group("kind") == obj.get("kind")
        and match.group("key") == object_key(obj)
    )


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
        new, old = _case_objects(request["text"], request["name"])
        match = _REQUEST.match(request["name"])
        if match is not None and not _names_its_case(match, new if new is not None else old, policies):
            match = None  # `<words>: <words>` that names no policy of the project and not the request's object
        if (new is None and old is None) or match is None or "allowed" not in (request.get("expected") or {}):
            warnings.append(
                f"request {request['name']!r} is not a kaptest case (`<policy>: <Kind> <name>` with an "
                "expected allowed/denied plain object, or an AdmissionReview of an UPDATE or DELETE) and is left out"
            )
            continue
        for obj in (new, old):
            if obj is not None and (obj.get("kind"), object_key(obj)) not in seen:
                seen.add((obj.get("kind"), object_key(obj)))
                resources.append(obj)
        case = _export_case(new, old, match.group("param"), request["expected"])
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
