"""Fuzz the REST API against its own OpenAPI schema with schemathesis (a bounded run for CI).

Starts daphne on a free loopback port (on DATABASE_URL when it is PostgreSQL, else a fresh SQLite file) with the
gallery loaded and one project whose ids and edit token the fuzzer is given (so writes reach the database),
runs a fixed number of generated cases per operation, and fails on any server error (5xx) or response that
does not match the schema. Usage: python .ci/api_fuzz.py [--max-examples N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.playground.live_server import Daphne  # noqa: E402


# A policy, so that a batch job can be made on the project (its id is given for the job endpoints).
POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pods-named}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "object.metadata.name != 'bad'"}]
"""


def _parameters(server: Daphne) -> str:
    """Real ids for the path parameters and the project's edit token, as schemathesis configuration."""
    status, project = server.request(
        "POST",
        "/api/v1/projects",
        {"title": "fuzz", "documents": [{"name": "d", "text": "a: 1"}], "requests": [{"name": "r", "text": "b: 2"}]},
    )
    assert status == 201, project
    status, snapshot = server.request("POST", f"/api/v1/projects/{project['id']}/snapshots")
    assert status == 201, snapshot
    status, document = server.request(
        "POST",
        f"/api/v1/projects/{project['id']}/documents",
        {"name": "policy", "text": POLICY},
        {"X-Edit-Token": project["editToken"]},
    )
    assert status == 201, document
    status, job = server.request(
        "POST",
        "/api/v1/batch/jobs",
        {"project": project["id"], "text": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"},
    )
    assert status == 201, job
    _, examples = server.request("GET", "/api/v1/examples")
    values = {
        "path.project_id": project["id"],
        "path.item_id": project["documents"][0]["id"],
        "path.snapshot_id": snapshot["id"],
        "path.slug": examples[0]["slug"],
        "path.job_id": job["id"],  # the project's edit token opens its jobs too
        "header.X-Edit-Token": project["editToken"],
    }
    return "[parameters]\n" + "".join(f'"{key}" = {json.dumps(value)}\n' for key, value in values.items())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-examples", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="api-fuzz-") as tmp:
        server = Daphne(Path(tmp), PLAYGROUND_EVALUATION_RATE="100000/min")
        server.migrate()
        subprocess.run(
            [sys.executable, "manage.py", "load_examples"],
            cwd=ROOT,
            env=server.env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        server.start()
        try:
            config = Path(tmp) / "schemathesis.toml"
            config.write_text(_parameters(server))
            command = [
                str(Path(sys.executable).parent / "schemathesis"),
                "--config-file",
                str(config),
                "run",
                f"{server.http}/api/schema/",
                "--checks",
                "not_a_server_error,response_schema_conformance",
                "--max-examples",
                str(args.max_examples),
                "--generation-deterministic",
                "--request-timeout",
                "30",
                "--workers",
                "1",
            ]
            return subprocess.run(command, cwd=ROOT).returncode
        finally:
            server.stop()
            if "Traceback" in server.log():
                print(server.log()[-5000:], file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
