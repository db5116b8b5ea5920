"""LOG_FORMAT=json: every log line of the server is one JSON object (time, level, logger, message, exc)."""

import datetime as dt
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from playground.log_format import JsonFormatter

REPO_ROOT = Path(__file__).resolve().parents[2]


def record(message, *args, exc_info=None):
    return logging.LogRecord("playground.x", logging.ERROR, __file__, 1, message, args, exc_info)


def test_a_record_is_one_json_object_with_the_fields():
    line = JsonFormatter().format(record("worker %d stopped: %s", 3, 'a "quoted"\nreason'))
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "playground.x"
    assert entry["message"] == 'worker 3 stopped: a "quoted"\nreason'
    assert dt.datetime.fromisoformat(entry["time"]).utcoffset() == dt.timedelta(0)
    assert "exc" not in entry


def test_an_exception_travels_in_exc():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        entry = json.loads(JsonFormatter().format(record("failed", exc_info=sys.exc_info())))
    assert entry["message"] == "failed"
    assert entry["exc"].startswith("Traceback") and "RuntimeError: boom" in entry["exc"]


def test_the_settings_log_json_lines_when_asked():
    """A fresh interpreter with LOG_FORMAT=json, as a deployment starts: its log lines on stderr parse."""
    env = dict(os.environ, LOG_FORMAT="json", DJANGO_SETTINGS_MODULE="playground.settings")
    script = (
        "import django, logging; django.setup(); log = logging.getLogger('playground.probe'); "
        "log.warning('first %s', 'line')\n"
        "try:\n    1 / 0\nexcept ZeroDivisionError:\n    log.exception('second')\n"
    )
    stderr = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stderr
    entries = [json.loads(line) for line in stderr.splitlines()]
    assert [(e["level"], e["logger"], e["message"]) for e in entries] == [
        ("WARNING", "playground.probe", "first line"),
        ("ERROR", "playground.probe", "second"),
    ]
    assert "ZeroDivisionError" in entries[1]["exc"]


def test_text_logs_stay_the_default():
    env = {k: v for k, v in os.environ.items() if k != "LOG_FORMAT"}
    env["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    script = "import django, logging; django.setup(); logging.getLogger('playground.probe').warning('plain')"
    stderr = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stderr
    assert stderr.strip() == "plain"
