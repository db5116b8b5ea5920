"""Browser tests: Playwright for Python drives Debian's Chromium against a real daphne (HTTP + WebSocket).

The server runs in a subprocess on a free port with its own SQLite file and the in-memory channel layer,
with the gallery loaded. Every test here is marked `browser`; tests/conftest.py skips them, saying why, where
/usr/bin/chromium is missing, and the fixtures below skip with a message when Playwright or the built front
end is missing. `make test-browser` runs them (CI's browser pass); plain `make test` deselects them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.helpers import api_client

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
# Screenshots for a human to look at (not test data): outside the tree unless BROWSER_SCREENSHOTS says otherwise.
SCREENSHOTS = Path(os.environ.get("BROWSER_SCREENSHOTS", "/tmp/admission-playground-screenshots"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"daphne did not answer within {timeout}s:\n{log.read_text()[-4000:]}")


@contextlib.contextmanager
def live_daphne(workdir: Path, settings: dict[str, str], manage: tuple[tuple[str, ...], ...]) -> Iterator[str]:
    """A daphne on a free port over a SQLite database of its own in `workdir` (the in-memory channel layer,
    no evaluation rate limit), after the `manage.py` commands given; `settings` are further environment
    variables. Yields its URL; stopped on exit."""
    if not (ROOT / "static" / "dist" / "editor-page.js").exists():
        pytest.skip("the front end is not built: run `make frontend` (static/dist/ is missing)")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "DEBUG": "1",
        "REDIS_URL": "",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PLAYGROUND_EVALUATION_RATE": "100000/min",
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        **settings,
    }
    python = sys.executable
    for command in manage:
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    port = _free_port()
    log = workdir / "daphne.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "playground.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory):
    """A live daphne serving the whole app (pages, API, ws/projects/…), gallery loaded."""
    # Batch jobs in small chunks on one pool process: a 1,000-object job then takes long enough for the
    # page's progress bar to be seen moving (tests/browser/test_batch.py).
    settings = {"PLAYGROUND_BATCH_CHUNK_SIZE": "20", "PLAYGROUND_BATCH_PROCESSES": "1"}
    with live_daphne(
        tmp_path_factory.mktemp("browser-server"), settings, (("migrate", "--noinput", "-v0"), ("load_examples",))
    ) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright for Python (pip install playwright)")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class PageWatch:
    """What a page did that it must not: dialogs (alert/confirm from injected script) and uncaught errors."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.confirm = True
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)

    def _console(self, message):
        # A Content-Security-Policy violation (an inline script or style in a template) is a failure.
        if message.type == "error" and "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def _dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        if dialog.type == "confirm" and self.confirm:
            dialog.accept()
        else:
            dialog.dismiss()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.watch = PageWatch(page)
    yield page
    errors = list(page.watch.errors)
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


@pytest.fixture
def api(server_url):
    """Call the REST API directly (set-up and checks): api(method, path, body=None, token=None) -> (status, json)."""
    return api_client(server_url)


@pytest.fixture
def open_project(page, server_url):
    """Open /p/<id> holding its edit token (as the browser keeps it after creating the project)."""

    def go(created: dict):
        page.goto(server_url + "/")
        page.evaluate(
            "([id, token]) => localStorage.setItem('admission-playground:token:' + id, token)",
            [created["id"], created["editToken"]],
        )
        page.goto(f"{server_url}/p/{created['id']}")
        page.wait_for_selector("#conn-state[data-state=open]")
        # The token travels in `hello`: the room's first state is a viewer's, and only the answer to `hello`
        # makes the editors writable. Typing before it would go nowhere (and a socket dropped meanwhile
        # discards that answer), so a test starts once the page is the editor's.
        page.wait_for_selector(".cm-content[contenteditable=true]")
        return page

    return go


@pytest.fixture
def screenshot(page):
    def take(name: str, **kwargs) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), **kwargs)
        return path

    return take
