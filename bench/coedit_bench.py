"""Co-editing: 10 clients typing into one document at 2 keystrokes a second each, over a real WebSocket.

Each client is a headless CodeMirror state with the real @codemirror/collab and the page's CollabSync
(tests/playground/collab/clients.mjs, in Node); every keystroke inserts a unique marker. Measures the time
from a keystroke to its arrival at each other client (remote echo), and checks that all clients and the
database end with the same text holding every keystroke. Targets: p95 echo <= 100 ms, 0 divergence.

    .venv/bin/python bench/coedit_bench.py [--quick] [--clients 10] [--seconds 30] [--redis URL] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from ws_bench import Server, summary

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = ROOT / "tests" / "playground" / "collab" / "clients.mjs"
TARGET_P95_MS = 100.0


def api(server: Server, method: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.http + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def run(server: Server, clients: int, seconds: float) -> dict:
    created = api(
        server,
        "POST",
        "/api/v1/projects",
        {"title": "co-editing bench", "documents": [{"name": "doc.yaml", "text": "start\n"}]},
    )
    doc = created["documents"][0]["id"]
    keystrokes = int(seconds * 2)
    scripts = [
        [{"insert": f"<c{c}-{n}>", "at": (n * 7919 + c * 104729) % 1000 / 1000} for n in range(keystrokes)]
        for c in range(clients)
    ]
    plan = {
        "base": server.http,
        "projectId": created["id"],
        "token": created["editToken"],
        "target": "document",
        "id": doc,
        "scripts": scripts,
        "pace": 500,
    }
    completed = subprocess.run(
        ["node", "--experimental-websocket", str(CLIENTS)],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=seconds + 120,
        cwd=ROOT,
    )
    if completed.returncode != 0:
        raise SystemExit(f"clients failed: {completed.stderr[-2000:]}")
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    stored = api(server, "GET", f"/api/v1/projects/{created['id']}/documents/{doc}")
    markers = [op["insert"] for script in scripts for op in script]
    lost = [m for m in markers if stored["text"].count(m) != 1]
    diverged = len(set(outcome["texts"])) != 1 or outcome["texts"][0] != stored["text"]
    return {
        "clients": clients,
        "keystrokes": len(markers),
        "echo_ms": summary(outcome["echoes"]),
        "settled": outcome["settled"],
        "diverged": diverged,
        "lost": len(lost),
        "errors": len(outcome["errors"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 s instead of 30 s")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--redis", default=None, help="REDIS_URL for the channel layer (default: in-memory)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seconds = args.seconds or (10 if args.quick else 30)
    with Server(args.redis) as server:
        report = run(server, args.clients, seconds)
    met = (
        report["echo_ms"].get("p95", float("inf")) <= TARGET_P95_MS
        and not report["diverged"]
        and report["lost"] == 0
        and report["errors"] == 0
        and report["settled"]
    )
    report["target"] = f"p95 echo <= {TARGET_P95_MS:.0f} ms, 0 divergence, 0 lost: {'met' if met else 'NOT met'}"
    print(json.dumps(report, indent=None if args.json else 2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
