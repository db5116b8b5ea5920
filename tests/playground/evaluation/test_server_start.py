"""The web process starts its evaluation workers with itself: they are up and warm before anyone connects,
so the first visitor's first evaluation does not wait for them."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from tests import live_server

START_SECONDS = 120  # starting and warming the workers on a loaded machine


def _workers(server: live_server.LiveServer) -> list[dict]:
    try:
        with urllib.request.urlopen(server.url + "/healthz", timeout=5) as response:
            return json.load(response)["evaluation_workers"]
    except urllib.error.HTTPError as error:  # 503 while a part is not ready: the report is still there
        return json.load(error)["evaluation_workers"]


def test_the_workers_start_and_warm_up_with_the_server_before_any_request(tmp_path):
    server = live_server.start(tmp_path)
    try:
        deadline = time.monotonic() + START_SECONDS
        workers = _workers(server)
        while not (workers and all(w["alive"] and w["ready"] for w in workers)) and time.monotonic() < deadline:
            time.sleep(0.25)
            workers = _workers(server)
        assert workers and all(w["alive"] and w["ready"] for w in workers), workers
    finally:
        server.stop()
