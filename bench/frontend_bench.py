"""Front-end weight and the landing page's first result.

1. Bundle weight: for each page entry in static/dist/ (built by `node static/build.mjs`), the bytes a browser
   downloads — the entry plus every chunk it imports, statically, transitively — raw and gzipped (level 9,
   what a compressing server or CDN sends). Target: the editor bundle (editor-page.js and its chunks)
   <= 1 MiB gzipped.
2. First result: a fresh daphne on 127.0.0.1 (SQLite in a temporary directory, gallery loaded), Chromium
   (Playwright, /usr/bin/chromium) with an empty cache opens `/`; from navigation start, the time until the
   server-rendered decisions are on screen ("static": in the HTML, first paint) and until the full result
   cards are ("cards": after the results bundle ran; the editor loads after that). 5 runs, median and max.
   Target: <= 1 s on loopback.

    .venv/bin/python bench/frontend_bench.py [--runs 5] [--quick] [--json]

Exit status: 0 when both targets are met, 1 when one is missed (bench/run_all.py reads it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "static" / "dist"
# The pages' entry points, as static/build.mjs names them (so a page added or renamed there is weighed here).
ENTRIES = [
    f"{name}.js"
    for name in re.findall(
        r'"([\w-]+)"',
        re.search(r"entryPoints:\s*\[([^\]]*)\]", (ROOT / "static" / "build.mjs").read_text(encoding="utf-8"))[1],
    )
]
IMPORT = re.compile(r"""(?:import|from)\s*["'](\./[^"']+\.js)["']""")
CHROMIUM = "/usr/bin/chromium"


def closure(entry: Path) -> list[Path]:
    """The entry and every file it imports statically, transitively (esbuild writes relative imports)."""
    seen: list[Path] = []
    todo = [entry]
    while todo:
        path = todo.pop()
        if path in seen or not path.exists():
            continue
        seen.append(path)
        todo.extend((path.parent / name).resolve() for name in IMPORT.findall(path.read_text(encoding="utf-8")))
    return seen


def weight(entry: str) -> dict:
    files = closure((DIST / entry).resolve())
    raw = sum(path.stat().st_size for path in files)
    zipped = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in files)
    return {"entry": entry, "files": len(files), "raw_kib": round(raw / 1024, 1), "gzip_kib": round(zipped / 1024, 1)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def first_result(runs: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    workdir = Path(tempfile.mkdtemp(prefix="frontend-bench-"))
    env = {
        "SECRET_KEY": "frontend-bench-only",
        **os.environ,
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "DEBUG": "0",
        "REDIS_URL": "",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "PYTHONPATH": str(ROOT),
    }
    for command in (["migrate", "--noinput", "-v0"], ["load_examples"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "playground.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        urllib.request.urlopen(url, timeout=10).read()  # warm the server (the example's first evaluation)
        times = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
            for _ in range(runs):
                context = browser.new_context()  # empty cache every run
                page = context.new_page()
                page.add_init_script("""new MutationObserver(() => {
                    if (!window.__static && document.querySelector('[data-testid=decision-static]')) window.__static = performance.now();
                }).observe(document, {childList: true, subtree: true});""")
                page.goto(url, wait_until="commit")
                page.wait_for_selector("#landing-demo .result-card [data-testid=decision]")
                cards = page.evaluate("performance.now()") / 1000
                static = (page.evaluate("window.__static || null") or cards * 1000) / 1000
                times.append((static, cards))
                context.close()
            browser.close()
        return times
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2 loads instead of --runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.runs = 2
    if not (DIST / "editor-page.js").exists():
        sys.exit("static/dist/ is missing: run `node static/build.mjs` first")
    weights = [weight(entry) for entry in ENTRIES]
    times = first_result(args.runs) if os.path.exists(CHROMIUM) else []
    stats = lambda values: {"median": round(statistics.median(values), 3), "max": round(max(values), 3)}  # noqa: E731
    report = {
        "weights": weights,
        "first_result_s": {
            "static": stats([t[0] for t in times]),
            "cards": stats([t[1] for t in times]),
            "runs": len(times),
        }
        if times
        else None,
    }
    editor = next(row for row in weights if row["entry"] == "editor-page.js")
    weight_met = editor["gzip_kib"] <= 1024
    first_met = report["first_result_s"] is None or report["first_result_s"]["static"]["median"] <= 1.0
    if args.json:
        print(json.dumps(report, indent=2))
        sys.exit(0 if weight_met and first_met else 1)
    print("| entry | files | raw KiB | gzip KiB |\n| --- | --- | --- | --- |")
    for row in weights:
        print(f"| {row['entry']} | {row['files']} | {row['raw_kib']} | {row['gzip_kib']} |")
    if report["first_result_s"]:
        first = report["first_result_s"]
        print(
            f"\nlanding page over {first['runs']} cold loads (target <= 1 s): decisions in the HTML on screen "
            f"median {first['static']['median']} s (max {first['static']['max']}), result cards median "
            f"{first['cards']['median']} s (max {first['cards']['max']})"
        )
    print(f"target: editor bundle <= 1 MiB gzipped ({editor['gzip_kib']} KiB) — {'met' if weight_met else 'missed'}")
    if report["first_result_s"]:
        print(
            f"target: first result on the landing page <= 1 s on loopback (median {first['static']['median']} s) — "
            f"{'met' if first_met else 'missed'}"
        )
    sys.exit(0 if weight_met and first_met else 1)


if __name__ == "__main__":
    main()
