"""Keystroke → updated result in the browser: the editor page of the reference project, typed into by Chromium.

A fresh daphne on 127.0.0.1 (ws_bench's server: SQLite in a temporary directory, the in-memory channel layer,
DEBUG off, static files collected) serves a fork of the `workshop-reference` example (3 policies, 4 bindings,
3 params, 6 sample requests); Chromium (Playwright, /usr/bin/chromium) opens its editor page holding the edit
token and types into the `require-team-label` policy's message, one character at a time, at two paces:
~8 characters a second (steady typing) and bursts of 20 characters at 20 a second with a second's pause
between them (faster than an evaluation round trip, so keystrokes arrive while one is in flight). Each keystroke changes the warning shown on the four requests
without a team label.

The measure is the page's, independent of the page's own bookkeeping: from the keystroke (`keydown`'s
timeStamp) to the first frame whose result cards show the text typed up to that keystroke — their text is read
in the frame's requestAnimationFrame (the DOM that frame paints) and the time taken just after that frame
(a message posted from it, which runs once the frame is rendered). The first keystrokes of each pace are a
warm-up and not counted. Target: p95 <= 80 ms at both paces (issue 36).

    .venv/bin/python bench/feedback_bench.py [--quick] [--keystrokes 160] [--json]

The browser, the server and its evaluation workers share the machine (loopback), so its load counts: the
script prints the load average before and after, and the CPU time each part spent per keystroke (Chromium's
processes started by this script, daphne, its evaluation workers; from /proc), which a busy machine stretches
far less than it stretches the latency.
Exit status: 0 when the target is met, 1 when it is missed (bench/run_all.py reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ws_bench import PYTHON, ROOT, Server, summary  # noqa: E402  (the same server and percentiles)

CHROMIUM = "/usr/bin/chromium"
ANCHOR = "a team label is required"
# No brackets or quotes: the editor closes those by itself, and each keystroke must add exactly its character.
# No spaces: the API server trims a validation's message, so a keystroke that adds a trailing space changes
# nothing shown, and its result could only be told apart by the next keystroke's (it was timed as 125 ms
# later than it was: every space a p95 outlier).
PHRASE = "-ask-the-platform-team-for-an-exception" * 12
# (seconds between keystrokes, keystrokes a burst, seconds of pause after a burst): steady typing, and words
# typed at 20 characters a second with a second's pause between them (a connection's evaluations are rate
# limited to 10 a second with a burst of 30, PROTOCOL.md: sustained typing above that waits for the limit).
PACES = {"steady": (0.125, 0, 0.0), "burst": (0.05, 20, 1.0)}
WARM_UP = 8  # keystrokes of each pace not counted
TARGET_P95_MS = 80.0

# Installed before the page's own scripts: keystroke times, and the frames that show each typed prefix.
INSTRUMENT = """
(() => {
  const fb = window.__feedback = { expected: [], keys: [], shown: [], next: 0 };
  document.addEventListener("keydown", (event) => {
    if (event.key.length === 1) fb.keys.push(event.timeStamp);
  }, true);
  let scheduled = false;
  const frame = () => {
    scheduled = false;
    const text = [...document.querySelectorAll(".result-card .kubectl-text, .result-card .warnings")]
      .map((node) => node.textContent).join("\\n");
    const from = fb.next;
    while (fb.next < fb.expected.length && text.includes(fb.expected[fb.next])) fb.next += 1;
    if (fb.next === from) return;
    const channel = new MessageChannel();  // runs after this frame has been rendered
    channel.port1.onmessage = () => {
      const now = performance.now();
      for (let k = from; k < fb.next; k += 1) fb.shown[k] = now;
    };
    channel.port2.postMessage(0);
  };
  const observe = () => new MutationObserver(() => {
    if (!scheduled) { scheduled = true; requestAnimationFrame(frame); }
  }).observe(document.getElementById("results") || document.body, { childList: true, subtree: true, characterData: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", observe);
  else observe();
})();
"""


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds so far of the Chromium processes this script started, daphne and its workers."""
    stats = {int(p.name): _stat(int(p.name)) for p in Path("/proc").glob("[0-9]*")}
    stats = {pid: stat for pid, stat in stats.items() if stat is not None}

    def descends(pid: int, root: int) -> bool:
        while pid > 1 and pid in stats:
            pid = stats[pid][0]
            if pid == root:
                return True
        return False

    totals = {"browser": 0.0, "daphne": 0.0, "workers": 0.0}
    for pid, (parent, cpu) in stats.items():
        if pid == server_pid:
            totals["daphne"] += cpu
        elif parent == server_pid:
            totals["workers"] += cpu
        elif descends(pid, os.getpid()) and _name(pid).startswith("chrom"):  # not Playwright's driver
            totals["browser"] += cpu
    return totals


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def collect_static(server: Server) -> None:
    """With DEBUG off the pages' scripts are served from the collected files (as in production): collected
    afresh, so the bench serves the front end as built now."""
    if not (ROOT / "static" / "dist" / "editor-page.js").exists():
        sys.exit("static/dist/ is missing: run `node static/build.mjs` first")
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=server.env, check=True)


def type_pace(page, pace: str, rhythm: tuple[float, int, float], count: int, offset: int) -> list[float]:
    """Type `count` characters of PHRASE (from `offset`) in `rhythm`; each counted keystroke's ms."""
    interval, group, pause = rhythm
    page.evaluate(
        "([expected, start]) => { const fb = window.__feedback; fb.expected = expected; fb.keys = [];"
        " fb.shown = []; fb.next = start; }",
        [[ANCHOR + PHRASE[: offset + n + 1] for n in range(count)], 0],
    )
    due = time.perf_counter()
    for n in range(count):
        page.keyboard.type(PHRASE[offset + n])
        due += interval + (pause if group and (n + 1) % group == 0 else 0.0)
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    deadline = time.monotonic() + 30
    while page.evaluate("window.__feedback.shown.filter((t) => t !== undefined).length") < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{pace}: not every keystroke's result was shown within 30 s")
        time.sleep(0.1)
    keys, shown = page.evaluate("[window.__feedback.keys, window.__feedback.shown]")
    if len(keys) != count:
        raise RuntimeError(f"{pace}: {len(keys)} keydown events for {count} keystrokes")
    return [shown[n] - keys[n] for n in range(WARM_UP, count)]


def run(keystrokes: int) -> dict:
    from playwright.sync_api import sync_playwright

    before = load_average()
    server = Server(redis_url=None)
    collect_static(server)  # before daphne starts: WhiteNoise indexes the collected files at start-up
    with server:
        project = server.fork_example()
        figures = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            context.add_init_script(INSTRUMENT)
            page = context.new_page()
            page.goto(server.http + "/")
            page.evaluate(
                "([id, token]) => localStorage.setItem('admission-playground:token:' + id, token)",
                [project["id"], project["editToken"]],
            )
            page.goto(f"{server.http}/p/{project['id']}")
            page.wait_for_selector(".cm-content[contenteditable=true]")
            page.wait_for_selector(".result-card .kubectl-text")
            # The cursor right after the policy's message, in the policies document's editor.
            page.evaluate(
                """(anchor) => {
                  const entry = [...window.__playground.workspace.items.values()].find((e) => e.target === 'document');
                  const view = entry.editor.view;
                  const at = view.state.doc.toString().indexOf(anchor) + anchor.length;
                  view.focus();
                  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
                }""",
                ANCHOR,
            )
            offset = 0
            for pace, rhythm in PACES.items():
                before_cpu = cpu_seconds(server.process.pid)
                ms = type_pace(page, pace, rhythm, keystrokes, offset)
                page.wait_for_timeout(500)  # the type check after the last keystroke counts too
                after_cpu = cpu_seconds(server.process.pid)
                offset += keystrokes
                figures[pace] = summary(ms)
                figures[pace]["cpu_ms_per_keystroke"] = {
                    part: round((after_cpu[part] - before_cpu[part]) * 1000 / keystrokes, 1) for part in after_cpu
                }
            browser.close()
    return {
        "keystrokes_per_pace": keystrokes,
        "warm_up": WARM_UP,
        "paces": {
            pace: {"ms_between_keystrokes": interval * 1000, "burst": group, "pause_s": pause}
            for pace, (interval, group, pause) in PACES.items()
        },
        "keystroke_to_result_ms": figures,
        "load_average_before": before,
        "load_average_after": load_average(),
        "cpus": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--keystrokes", type=int, default=160, help="keystrokes at each pace (warm-up included)")
    parser.add_argument("--quick", action="store_true", help="40 keystrokes a pace")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.keystrokes = 40
    if args.keystrokes * len(PACES) > len(PHRASE):
        sys.exit(f"at most {len(PHRASE) // len(PACES)} keystrokes a pace")
    if not os.path.exists(CHROMIUM):
        sys.exit(f"needs Chromium at {CHROMIUM}")
    report = run(args.keystrokes)
    worst = max(figure["p95"] for figure in report["keystroke_to_result_ms"].values())
    met = worst <= TARGET_P95_MS
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['cpus']} CPUs, load average before {report['load_average_before']}, after {report['load_average_after']}"
        )
        print(
            "| pace | keystrokes counted | p50 ms | p95 ms | max ms | CPU ms a keystroke: browser / daphne / workers |"
            "\n| --- | --- | --- | --- | --- | --- |"
        )
        for pace, figure in report["keystroke_to_result_ms"].items():
            rhythm = report["paces"][pace]
            label = f"every {rhythm['ms_between_keystrokes']:.0f} ms" + (
                f", {rhythm['burst']} then {rhythm['pause_s']:g} s pause" if rhythm["burst"] else ""
            )
            cpu = figure["cpu_ms_per_keystroke"]
            print(
                f"| {pace} ({label}) | {figure['n']} | {figure['p50']} | {figure['p95']} | {figure['max']} | "
                f"{cpu['browser']} / {cpu['daphne']} / {cpu['workers']} |"
            )
    print(
        f"target: keystroke -> updated result p95 <= {TARGET_P95_MS:.0f} ms in Chromium (worst pace {worst} ms) — "
        f"{'met' if met else 'missed'}"
    )
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
