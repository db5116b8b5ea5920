"""Batch throughput: 10,000 Deployments through 10 ValidatingAdmissionPolicies, on one core.

The policies come from the seed documents' examples and the Pod Security Standards (baseline and
restricted rules written as VAP). A "policy decision" is one (request, policy) pair that was dispatched:
matched, bound and evaluated, or skipped by its matching. Run:

    .venv/bin/python bench/batch_bench.py [--objects 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.cli.batch import run_batch  # noqa: E402
from evaluator.simulation import Simulation  # noqa: E402

DEPLOYMENTS = [
    {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}
]
CONTAINERS = "object.spec.template.spec.containers"

POLICIES = [
    ("replica-limit", {"validations": [{"expression": "object.spec.replicas <= 5"}]}),
    (
        "replica-limit-param",
        {
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [
                {
                    "expression": "object.spec.replicas <= int(params.data.maxReplicas)",
                    "messageExpression": "'object.spec.replicas must be no greater than ' + params.data.maxReplicas",
                }
            ],
        },
    ),
    (
        "skip-system",
        {
            "matchConditions": [
                {"name": "exclude-kube-system", "expression": "object.metadata.namespace != 'kube-system'"},
                {
                    "name": "exclude-canary",
                    "expression": "request.operation == 'UPDATE' || !object.metadata.name.contains('canary')",
                },
            ],
            "validations": [{"expression": "object.spec.replicas <= 100"}],
        },
    ),
    (
        "high-replicas-audit",
        {
            "auditAnnotations": [
                {
                    "key": "high-replica-count",
                    "valueExpression": "object.spec.replicas > 50 ? 'Deployment spec.replicas set to ' + string(object.spec.replicas) : null",
                }
            ],
            "validations": [{"expression": "object.spec.replicas <= 128"}],
        },
    ),
    (
        "image-environment",
        {
            "variables": [{"name": "environment", "expression": "namespaceObject.metadata.labels['environment']"}],
            "validations": [
                {
                    "expression": f"{CONTAINERS}.all(c, c.image.startsWith(variables.environment + '.example.com/'))",
                    "messageExpression": "'only ' + variables.environment + ' images are allowed in namespace ' + request.namespace",
                }
            ],
        },
    ),
    (
        "pss-privileged",
        {
            "validations": [
                {
                    "expression": f"{CONTAINERS}.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)",
                    "message": "privileged containers are not allowed",
                }
            ]
        },
    ),
    (
        "pss-host-namespaces",
        {
            "validations": [
                {
                    "expression": "!has(object.spec.template.spec.hostNetwork) || object.spec.template.spec.hostNetwork == false",
                    "message": "hostNetwork is not allowed",
                },
                {
                    "expression": "!has(object.spec.template.spec.hostPID) || object.spec.template.spec.hostPID == false",
                    "message": "hostPID is not allowed",
                },
            ]
        },
    ),
    (
        "pss-run-as-non-root",
        {
            "validations": [
                {
                    "expression": f"{CONTAINERS}.all(c, has(c.securityContext) && has(c.securityContext.runAsNonRoot) && c.securityContext.runAsNonRoot == true)",
                    "message": "containers must set securityContext.runAsNonRoot=true",
                }
            ]
        },
    ),
    (
        "pss-capabilities",
        {
            "validations": [
                {
                    "expression": f"{CONTAINERS}.all(c, has(c.securityContext) && has(c.securityContext.capabilities) && "
                    "has(c.securityContext.capabilities.drop) && 'ALL' in c.securityContext.capabilities.drop)",
                    "message": "containers must drop ALL capabilities",
                }
            ]
        },
    ),
    (
        "pss-allow-privilege-escalation",
        {
            "validations": [
                {
                    "expression": f"{CONTAINERS}.all(c, has(c.securityContext) && has(c.securityContext.allowPrivilegeEscalation) && "
                    "c.securityContext.allowPrivilegeEscalation == false)",
                    "message": "allowPrivilegeEscalation must be false",
                }
            ]
        },
    ),
]


def cluster_documents() -> list[dict]:
    docs: list[dict] = []
    for name, spec in POLICIES:
        docs.append(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name},
                "spec": {"matchConstraints": {"resourceRules": DEPLOYMENTS}, **spec},
            }
        )
        binding_spec = {
            "policyName": name,
            "validationActions": ["Deny"] if name.startswith(("replica", "pss-priv")) else ["Warn", "Audit"],
        }
        if "paramKind" in spec:
            binding_spec["paramRef"] = {"name": "replica-limits", "parameterNotFoundAction": "Allow"}
        docs.append(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": f"{name}-binding"},
                "spec": binding_spec,
            }
        )
    for ns, env in (("default", "prod"), ("team-a", "dev"), ("kube-system", "prod")):
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"environment": env}}})
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "replica-limits", "namespace": ns},
                "data": {"maxReplicas": "10"},
            }
        )
    return docs


def deployments(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    namespaces = ["default", "team-a", "kube-system"]
    result = []
    for i in range(count):
        secure = rng.random() < 0.6
        context = (
            {"runAsNonRoot": True, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
            if secure
            else {"privileged": rng.random() < 0.2}
        )
        env = rng.choice(["prod", "dev"])
        result.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": f"app-{i}" + ("-canary" if i % 17 == 0 else ""),
                    "namespace": rng.choice(namespaces),
                    "labels": {"app": f"app-{i}"},
                },
                "spec": {
                    "replicas": rng.choice([1, 2, 3, 5, 8, 60, 200]),
                    "selector": {"matchLabels": {"app": f"app-{i}"}},
                    "template": {
                        "metadata": {"labels": {"app": f"app-{i}"}},
                        "spec": {
                            "hostNetwork": rng.random() < 0.05,
                            "containers": [
                                {"name": "main", "image": f"{env}.example.com/app:{i % 10}", "securityContext": context}
                            ],
                        },
                    },
                },
            }
        )
    return result


TARGET_DECISIONS_PER_SECOND = 10_000  # BENCHMARKS.md, issue 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=None, help="default 10,000 (--quick: 1,000)")
    parser.add_argument("--quick", action="store_true", help="1,000 objects")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.objects = args.objects or (1_000 if args.quick else 10_000)
    simulation = Simulation(cluster_documents())
    assert not [e for e in simulation.errors if e.get("severity") == "error"], simulation.errors
    objects = deployments(args.objects)
    run_batch(simulation, objects[:200])  # warm caches (compiled programs, REST mapping)
    started, cpu_started = time.perf_counter(), time.process_time()
    summary = run_batch(simulation, objects)
    wall = time.perf_counter() - started
    elapsed = time.process_time() - cpu_started  # CPU seconds of this one process: "on one core"
    decisions = args.objects * len(POLICIES)
    report = {
        "objects": args.objects,
        "policies": len(POLICIES),
        "cpu_seconds": round(elapsed, 3),
        "wall_seconds": round(wall, 3),
        "requests_per_second": round(args.objects / elapsed),
        "policy_decisions_per_second": round(decisions / elapsed),
        "denied": summary.denied,
        "warned": summary.warned,
        "audited": summary.audited,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    met = report["policy_decisions_per_second"] >= TARGET_DECISIONS_PER_SECOND
    print(f"target: >= {TARGET_DECISIONS_PER_SECOND:,} policy decisions/s on one core — {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
