"""Documents and requests shared by the tests that compare the engine's shortcuts with its general way."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
from typing import Any

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)

DEPLOYMENT_RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"]}
DEPLOYMENTS = [{**DEPLOYMENT_RULE, "resources": ["deployments"]}]
ACTIONS = [["Deny"], ["Warn"], ["Audit"], ["Deny", "Audit"], ["Warn", "Audit"]]  # what the API server accepts


def policy(name: str, spec: dict, *, actions: tuple[str, ...] = ("Deny",), failure: str = "Fail") -> list[dict]:
    """A policy on Deployments with failurePolicy `failure`, and its binding."""
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"failurePolicy": failure, "matchConstraints": {"resourceRules": DEPLOYMENTS}, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": {"policyName": name, "validationActions": list(actions)},
        },
    ]


def documents(name: str, spec: dict, actions: list[str], param: bool = False) -> list[dict]:
    """A policy (Deployments unless `spec` says otherwise; with `param`, the ConfigMap `limits` of the request's
    namespace) and its binding. `spec` is changed: pass a copy."""
    constraints = spec.pop("matchConstraints", {"resourceRules": DEPLOYMENTS})
    binding: dict[str, Any] = {"policyName": name, "validationActions": actions}
    if param:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
        binding["paramRef"] = {"name": "limits", "parameterNotFoundAction": "Allow"}
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"matchConstraints": constraints, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": binding,
        },
    ]


def deployment(name: str = "web", replicas: int = 3, labels: dict | None = None, namespace: str = "default") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            },
        },
    }


CLUSTER = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod", "labels": {"env": "prod"}}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"env": "dev"}}},
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "limits", "namespace": "prod"},
        "data": {"max": "3"},
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "dev"}, "data": {"max": "9"}},
]

# The shapes the untraced shortcut (a LeanTuple's `decide`) takes: (name, spec, whether it has params).
LEAN_SHAPES = [
    ("static", {"validations": [{"expression": "object.spec.replicas <= 4", "message": "too many"}]}, False),
    (
        "two-validations",
        {
            "validations": [
                {"expression": "object.spec.replicas <= 6", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('a')"},
            ]
        },
        False,
    ),
    (
        "conditions",
        {
            "matchConditions": [
                {"name": "not-dev", "expression": "object.metadata.namespace != 'dev'"},
                {"name": "not-canary", "expression": "!object.metadata.name.endsWith('canary')"},
            ],
            "validations": [{"expression": "object.spec.replicas <= 2"}],
        },
        False,
    ),
    (
        "message-expression",
        {
            "validations": [
                {
                    "expression": "object.spec.replicas <= int(params.data.max)",
                    "messageExpression": "'at most ' + params.data.max + ' replicas'",
                },
                {"expression": "object.spec.replicas > 0", "messageExpression": "'  '", "message": "static"},
            ]
        },
        True,
    ),
    (
        "audit-annotations",
        {
            "validations": [{"expression": "object.spec.replicas < 7"}],
            "auditAnnotations": [
                {"key": "many", "valueExpression": "object.spec.replicas > 4 ? ' many replicas ' : ''"},
                {"key": "blank", "valueExpression": "'  '"},
                {"key": "name", "valueExpression": "string(object.metadata.name)"},
            ],
        },
        False,
    ),
    (
        "variables",
        {
            "variables": [
                {"name": "max", "expression": "object.metadata.namespace == 'prod' ? 3 : 6"},
                {"name": "name", "expression": "object.metadata.name"},
            ],
            "matchConditions": [{"name": "not-canary", "expression": "!variables.name.endsWith('canary')"}],
            "validations": [
                {
                    "expression": "object.spec.replicas <= variables.max",
                    "messageExpression": "'at most ' + string(variables.max) + ' for ' + variables.name",
                }
            ],
            "auditAnnotations": [{"key": "max", "valueExpression": "string(variables.max)"}],
        },
        False,
    ),
    (
        "variable-error",  # replicas 2: a division by zero, which the general path words
        {
            "variables": [{"name": "ratio", "expression": "10 / (object.spec.replicas - 2)"}],
            "validations": [{"expression": "variables.ratio < 4", "message": "too few"}],
        },
        False,
    ),
]

# The shapes the traced shortcut (a LeanTuple's `traced_record`) takes or declines: validations only.
TRACED_SHAPES = [
    ("static", {"validations": [{"expression": "object.spec.replicas <= 4", "message": "  too many  "}]}),
    (
        "reasons-and-values",
        {
            "validations": [
                {"expression": "object.spec.replicas <= 6", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('a')"},
                {"expression": "object.spec.?paused.orValue(false) == false"},
            ]
        },
    ),
    ("erroring", {"validations": [{"expression": "object.spec.replicas / 0 == 1"}]}),
    ("missing-field", {"validations": [{"expression": "object.spec.missing == 1"}]}),
    ("over-budget", {"validations": [{"expression": "[1, 2, 3].all(x, [1, 2].all(y, x * y < 100))"}]}),
]

# Deployments in namespaces with and without params, named to pass or fail each shape's conditions.
REQUESTS = [
    {
        "uid": f"{name}-{namespace}-{replicas}",
        "operation": "CREATE",
        "object": deployment(name, replicas, namespace=namespace),
    }
    for name in ("api", "web-canary")
    for namespace in ("prod", "dev", "elsewhere")
    for replicas in (0, 2, 5, 8)
]


def traced_documents() -> list[dict]:
    """Traceable policies under every set of actions (and one policy of two bindings), plus other shapes."""
    docs = copy.deepcopy(CLUSTER)
    for (name, spec), actions in itertools.product(TRACED_SHAPES, ACTIONS):
        docs += documents(f"{name}-{'-'.join(actions).lower()}", copy.deepcopy(spec), actions)
    two = documents("two-bindings", {"validations": [{"expression": "object.spec.replicas < 4"}]}, ["Warn"])
    second = copy.deepcopy(two[1])
    second["metadata"]["name"], second["spec"]["validationActions"] = "two-bindings-deny", ["Deny"]
    docs += two + [second]
    for name, spec, param in LEAN_SHAPES:
        docs += documents(f"other-{name}", copy.deepcopy(spec), ["Warn"], param)
    return docs


TRACED_REQUESTS = [
    {"operation": "CREATE", "object": deployment(name, replicas, namespace=namespace)}
    for name in ("api", "web-canary")
    for namespace in ("prod", "elsewhere")
    for replicas in (0, 5, 8)
] + [
    {"operation": "UPDATE", "object": deployment("api", 2), "oldObject": deployment("api", 9)},
    {"operation": "DELETE", "oldObject": deployment("api", 9)},
]


def decisions(result: dict) -> dict:
    """What a batch reads of a result: everything but traces (and the hints found in them)."""
    records = [{k: v for k, v in r.items() if k not in ("trace", "hint")} for r in result["policies"]]
    keys = ("allowed", "status", "warnings", "auditAnnotations", "denials", "ferricel", "summary", "errors")
    return {"policies": records, **{k: result.get(k) for k in keys}}


def same_decisions(simulation: Any, request: dict) -> None:
    """An untraced, lean run (`trace=False, full=False`) decides as a full run."""
    full = simulation.run(copy.deepcopy(request))
    lean = simulation.run(copy.deepcopy(request), trace=False, full=False)
    assert decisions(lean) == decisions(full)
    assert all(r["trace"] is None for r in lean["policies"] if "trace" in r)
