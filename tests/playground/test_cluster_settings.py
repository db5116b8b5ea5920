"""The cluster connection's settings come from the environment, off unless asked for; a bad mode stops the
server naming the variable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = (
    "import json; from django.conf import settings as s; print(json.dumps([s.PLAYGROUND_CLUSTER, "
    "s.PLAYGROUND_CLUSTER_KUBECONFIG, s.PLAYGROUND_CLUSTER_CONTEXT, s.PLAYGROUND_CLUSTER_KINDS, "
    "s.PLAYGROUND_CLUSTER_MAX_OBJECTS, s.PLAYGROUND_CLUSTER_TIMEOUT_SECONDS]))"
)


def settings_with(**variables: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYGROUND_CLUSTER")}
    env.update({"DEBUG": "1", "DJANGO_SETTINGS_MODULE": "playground.settings", **variables})
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )


def test_off_by_default_and_read_from_the_environment():
    assert json.loads(settings_with().stdout) == ["", "", "", [], 150, 10]
    done = settings_with(
        PLAYGROUND_CLUSTER="KubeConfig",
        PLAYGROUND_CLUSTER_KUBECONFIG="/etc/kube/config",
        PLAYGROUND_CLUSTER_CONTEXT="prod",
        PLAYGROUND_CLUSTER_KINDS="deployments.apps, namespaces",
        PLAYGROUND_CLUSTER_MAX_OBJECTS="40",
        PLAYGROUND_CLUSTER_TIMEOUT_SECONDS="2.5",
    )
    assert json.loads(done.stdout) == [
        "kubeconfig",
        "/etc/kube/config",
        "prod",
        ["deployments.apps", "namespaces"],
        40,
        2.5,
    ]


def test_a_bad_mode_or_cap_stops_the_server_naming_the_variable():
    done = settings_with(PLAYGROUND_CLUSTER="yes")
    assert done.returncode != 0 and "PLAYGROUND_CLUSTER='yes' is not one of off, in-cluster, kubeconfig" in done.stderr
    done = settings_with(PLAYGROUND_CLUSTER_MAX_OBJECTS="0")
    assert done.returncode != 0 and "PLAYGROUND_CLUSTER_MAX_OBJECTS='0' must be at least 1" in done.stderr
