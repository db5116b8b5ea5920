"""Fuzz the REST API against its own OpenAPI schema with schemathesis (a bounded run for CI).

Starts daphne on a free loopback port with a fresh SQLite database and the gallery loaded, runs a fixed number
of generated cases per operation, and fails on any server error (5xx) or response that does not match the
schema. Usage: python .ci/api_fuzz.py [--max-examples N]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.playground.live_server import Daphne  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-examples", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="api-fuzz-") as tmp:
        server = Daphne(Path(tmp), PLAYGROUND_EVALUATION_RATE="100000/min", DATABASE_URL=f"sqlite:///{tmp}/fuzz.sqlite3")
        server.migrate()
        subprocess.run([sys.executable, "manage.py", "load_examples"], cwd=ROOT, env=server.env, check=True,
                       stdout=subprocess.DEVNULL)
        server.start()
        try:
            command = [str(Path(sys.executable).parent / "schemathesis"), "run", f"{server.http}/api/schema/",
                       "--checks", "not_a_server_error,response_schema_conformance",
                       "--max-examples", str(args.max_examples), "--generation-deterministic",
                       "--request-timeout", "30", "--workers", "1"]
            return subprocess.run(command, cwd=ROOT).returncode
        finally:
            server.stop()
            if "Traceback" in server.log():
                print(server.log()[-5000:], file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
