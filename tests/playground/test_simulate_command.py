"""`manage.py simulate` runs the engine's command line."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec: {policyName: max-replicas, validationActions: [Deny]}
"""
REQUEST = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: 9}
"""


def test_manage_py_simulate_denies_like_the_engine(tmp_path):
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "r.yaml").write_text(REQUEST)
    run = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "simulate",
            "-f",
            str(tmp_path / "p.yaml"),
            "-f",
            str(tmp_path / "r.yaml"),
            "--output",
            "json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads(run.stdout)
    assert result["allowed"] is False
    assert run.returncode == 1  # denied
    assert result["status"]["message"] == (
        'deployments.apps "web" is forbidden: '
        "ValidatingAdmissionPolicy 'max-replicas' with binding "
        "'max-replicas-binding' denied request: failed expression: "
        "object.spec.replicas <= 5"
    )
