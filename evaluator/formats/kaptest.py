"""A pfnet/kaptest suite: kaptest.yaml naming ValidatingAdmissionPolicy files and resource files, with
testSuites [{policy, tests: [{object: {kind, name, namespace?}, param?: {name, namespace?}, expect:
admit|deny|error}]}].

kaptest runs each policy alone, without bindings. A project needs bindings, so import adds one per policy
and param (`kaptest-<policy>[-<param>]`, validationActions Deny); each test becomes a request named
`<policy>: <Kind> <namespace/name>` expected allowed (admit) or denied (deny, error: an error denies under
failurePolicy Fail). The other policies of the suite apply to each request too, as they would in a cluster.
Export writes the suite back from those names (the generated bindings are left out: kaptest needs none)."""

from __future__ import annotations

import posixpath
import re

from evaluator.formats.archives import resolve
from evaluator.formats.bounded_yaml import FormatError, dump, dump_all, load_one
from evaluator.formats.objects import document_name, object_key, object_text, objects_of, plain_object

TEST_FILE = "kaptest.yaml"
BINDING_PREFIX = "kaptest-"
_REQUEST = re.compile(r"^(?P<policy>[^:]+): (?P<kind>\S+) (?P<key>\S+?)(?: \(param (?P<param>[^)]+)\))?$")


def _files(files: dict[str, str], base: str, names: object, what: str) -> list[dict]:
    out: list[dict] = []
    for name in names if isinstance(names, list) else []:
        text = resolve(files, base, str(name))
        if text is None:
            raise FormatError(f"{TEST_FILE}: {what} file {name!r} is not in the folder")
        out.extend(d for d in objects_of(text, str(name)) if isinstance(d, dict))
    return out


def _binding(policy: str, param: dict | None) -> dict:
    name = BINDING_PREFIX + policy + (f"-{param['name']}" if param else "")
    spec: dict = {"policyName": policy, "validationActions": ["Deny"]}
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
    found = sorted((p for p in files if posixpath.basename(p) == TEST_FILE), key=lambda p: (p.count("/"), p))
    if not found:
        raise FormatError(f"no {TEST_FILE} in the folder")
    base = posixpath.dirname(found[0])
    suite = load_one(files[found[0]], found[0])
    if not isinstance(suite, dict):
        raise FormatError(f"{found[0]}: not a kaptest suite")
    policies = _files(files, base, suite.get("validatingAdmissionPolicies"), "policy")
    resources = _files(files, base, suite.get("resources"), "resource")
    index = {(r.get("kind"), object_key(r)): r for r in resources}
    tested, bindings, requests, warnings = set(), {}, [], []
    for group in suite.get("testSuites") or []:
        policy = str(group.get("policy")) if isinstance(group, dict) else ""
        for case in (group.get("tests") or []) if isinstance(group, dict) else []:
            ref, param = case.get("object") or {}, case.get("param")
            obj = index.get((ref.get("kind"), _key(ref)))
            if obj is None:
                raise FormatError(f"{found[0]}: test object {ref.get('kind')} {_key(ref)} is not among the resources")
            tested.add((ref.get("kind"), _key(ref)))
            ignored = sorted(k for k in ("oldObject", "userInfo", "namespaceObject") if case.get(k))
            if ignored:
                warnings.append(
                    f"{policy}: {ref.get('kind')} {_key(ref)}: {', '.join(ignored)} not imported "
                    "(the request is a CREATE of the object)"
                )
            if case.get("expect") == "error":
                warnings.append(f"{policy}: {ref.get('kind')} {_key(ref)}: expect error imported as denied")
            binding = _binding(policy, param if isinstance(param, dict) else None)
            bindings[binding["metadata"]["name"]] = binding
            name = f"{policy}: {ref.get('kind')} {_key(ref)}" + (f" (param {_key(param)})" if param else "")
            expected = {"allowed": case.get("expect") == "admit"} if case.get("expect") else None
            requests.append({"name": name, "text": object_text(obj), "expected": expected})
    others = [r for r in resources if (r.get("kind"), object_key(r)) not in tested]
    documents = policies + list(bindings.values()) + others
    return {
        "title": title or f"kaptest: {posixpath.basename(base) or 'suite'}",
        "description": f"Imported from {found[0]}",
        "documents": [{"name": document_name(d), "text": object_text(d)} for d in documents],
        "requests": requests,
        "warnings": warnings,
    }


def export_suite(project: dict) -> tuple[dict[str, str], list[str]]:
    policies, resources, warnings, seen = [], [], [], set()
    for doc in project.get("documents", []):
        for obj in objects_of(doc["text"], doc["name"]):
            if obj.get("kind") == "ValidatingAdmissionPolicy":
                policies.append(obj)
            elif not (
                obj.get("kind") == "ValidatingAdmissionPolicyBinding"
                and str((obj.get("metadata") or {}).get("name", "")).startswith(BINDING_PREFIX)
            ):
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
        groups.setdefault(match.group("policy"), []).append(case)
    suite = {
        "validatingAdmissionPolicies": ["policies.yaml"],
        "resources": ["resources.yaml"],
        "testSuites": [{"policy": p, "tests": tests} for p, tests in groups.items()],
    }
    return {
        TEST_FILE: dump(suite),
        "policies.yaml": dump_all(policies),
        "resources.yaml": dump_all(resources),
    }, warnings
