"""A real daphne (and, when asked, a private redis-server) on free loopback ports, for the fault tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
WS_MAX_BYTES = str(8 * 1024 * 1024)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not reaped yet) is not a running worker
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class PrivateRedis:
    """redis-server on its own port, nothing saved; never the shared server."""

    def __init__(self):
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Daphne:
    """The server as deployed (daphne, worker processes), on a database of its own (migrated here)."""

    def __init__(self, tmp: Path, **env: str):
        self.port = free_port()
        self.log_path = tmp / f"daphne-{self.port}.log"
        database = os.environ.get("DATABASE_URL", "")
        self.postgres: str | None = None
        if database.startswith("postgres"):  # a database of its own beside the tests' one, made in migrate()
            self.postgres = database.rsplit("/", 1)[0] + f"/live_{self.port}"
            database = self.postgres
        else:
            database = f"sqlite:///{tmp / 'live.sqlite3'}"
        self.env = {
            **os.environ,
            "DATABASE_URL": database,
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "live-test-only-key",
            "LOG_LEVEL": "WARNING",
            "PLAYGROUND_EVALUATION_PROCESSES": "1",
            "PLAYGROUND_SHUTDOWN_SECONDS": "5",  # stop() waits 10 s before SIGKILL
            **env,
        }
        if not env.get("REDIS_URL"):
            self.env.pop("REDIS_URL", None)
        self.process: subprocess.Popen | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _maintenance(self, statement: str) -> None:
        import psycopg

        base, name = self.postgres.rsplit("/", 1)
        with psycopg.connect(base + "/postgres", autocommit=True) as connection:
            connection.execute(statement.format(name=name))

    def migrate(self) -> None:
        if self.postgres:
            self._maintenance('DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            self._maintenance('CREATE DATABASE "{name}"')
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=True)

    def start(self) -> "Daphne":
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [
                str(Path(PYTHON).parent / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "--websocket-max-message-size",
                WS_MAX_BYTES,
                "--websocket-max-frame-size",
                WS_MAX_BYTES,
                "playground.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: {self.log()[-2000:]}")
            try:
                status, _ = self.request("GET", "/healthz")
                if status in (200, 503):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("daphne did not answer /healthz within 60 s")

    def request(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.http + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def worker_pids(self) -> list[int]:
        _, health = self.request("GET", "/healthz")
        return [w["pid"] for w in health["evaluation_workers"] if w["pid"]]

    def kill9(self) -> None:
        """As a crash would: the server only, not its process group (the workers must go by themselves)."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, drop: bool = True) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        if drop and self.postgres:
            self._maintenance('DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
