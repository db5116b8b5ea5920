"""A real daphne in a subprocess (HTTP + WebSocket) for tests that need one outside the test process:
co-editing clients in Node, crash tests (kill -9). SQLite in a temporary folder unless DATABASE_URL is
given; the in-memory channel layer unless REDIS_URL is given."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen
    log: Path
    env: dict
    port: int

    def stop(self, kill: bool = False) -> None:
        if self.process.poll() is None:
            self.process.kill() if kill else self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def api(self, method: str, path: str, body=None, token: str | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json", **({"X-Edit-Token": token} if token else {})},
        )
        with urllib.request.urlopen(request, timeout=20) as response:
            return json.loads(response.read() or b"null")


def start(
    workdir: Path,
    database_url: str | None = None,
    port: int | None = None,
    migrate: bool = True,
    extra_env: dict | None = None,
) -> LiveServer:
    env = {
        **os.environ,
        "DATABASE_URL": database_url or f"sqlite:///{workdir / 'db.sqlite3'}",
        "DEBUG": "1",
        "REDIS_URL": os.environ.get("REDIS_URL", "") if database_url else "",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PLAYGROUND_EVALUATION_RATE": "100000/min",
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        **(extra_env or {}),
    }
    python = sys.executable
    if migrate:
        subprocess.run(
            [python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, capture_output=True
        )
    port = port or free_port()
    log = workdir / f"daphne-{port}.log"
    with log.open("a") as out:
        process = subprocess.Popen(
            [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "playground.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = LiveServer(f"http://127.0.0.1:{port}", process, log, env, port)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(server.url + "/healthz", timeout=2):
                return server
        except urllib.error.HTTPError:
            return server  # it answers (a 503 health report still means it serves)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    server.stop(kill=True)
    raise RuntimeError(f"daphne did not answer within 40 s:\n{log.read_text()[-4000:]}")
