"""The container set-up, checked without a Docker engine: the compose file against the compose-spec
schema, the image's user and contents, and the refusal to serve with DEBUG off and no SECRET_KEY."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_docker_compose_yml_is_valid_against_the_compose_spec():
    schema = json.loads((resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(compose()), key=lambda e: list(e.path))
    assert not errors, [f"{'.'.join(map(str, e.path))}: {e.message}" for e in errors]


def test_the_schema_check_catches_a_broken_compose_file():
    schema = json.loads((resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json").read_text())
    broken = compose()
    broken["services"]["web"]["healthcheck"]["retries"] = "five"
    broken["services"]["web"]["ports"] = {"8000": 8000}
    assert not jsonschema.validators.validator_for(schema)(schema).is_valid(broken)


def test_the_web_health_check_waits_for_start_up():
    check = compose()["services"]["web"]["healthcheck"]
    assert re.fullmatch(r"\d+s", check["start_period"]) and int(check["start_period"][:-1]) >= 30


def test_compose_has_no_default_secret_key():
    key = compose()["services"]["web"]["environment"]["SECRET_KEY"]
    assert key == "${SECRET_KEY:-}"


def test_the_image_runs_as_a_non_root_user():
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text().splitlines()]
    users = [ln.split(None, 1)[1] for ln in lines if ln.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    last_user = max(i for i, ln in enumerate(lines) if ln.startswith("USER "))
    assert not any(ln.startswith("RUN ") for ln in lines[last_user:]), "a RUN after USER would run as that user"


def test_the_image_leaves_out_tests_and_front_end_sources():
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert {"tests", "static/tests", "node_modules", ".git"} <= set(ignored)


def test_collectstatic_publishes_built_assets_only():
    from django.apps import apps
    from django.contrib.staticfiles import finders

    patterns = apps.get_app_config("staticfiles").ignore_patterns
    published = [path for finder in finders.get_finders() for path, _ in finder.list(patterns)]
    assert "playground/site.css" in published and "workshops/workshops.css" in published
    leaked = [p for p in published if p.split("/")[0] in ("src", "tests") or p.endswith(("build.mjs", ".test.mjs"))]
    assert not leaked


def test_the_secret_key_check(monkeypatch, settings):
    from playground.checks import secret_key_is_set

    monkeypatch.delenv("SECRET_KEY", raising=False)
    settings.DEBUG = False
    [error] = secret_key_is_set(None)
    assert error.id == "playground.E001" and "SECRET_KEY is not set and DEBUG is off" in error.msg
    settings.DEBUG = True
    assert secret_key_is_set(None) == []
    settings.DEBUG = False
    monkeypatch.setenv("SECRET_KEY", "a-real-key")
    assert secret_key_is_set(None) == []


@pytest.mark.slow
def test_the_server_refuses_to_migrate_and_start_without_a_secret_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "REDIS_URL")}
    env.update(
        DEBUG="0", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DJANGO_SETTINGS_MODULE="playground.settings"
    )
    run = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "(playground.E001) SECRET_KEY is not set and DEBUG is off" in run.stderr
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:  # nothing was migrated
        assert db.execute("select count(*) from sqlite_master where type = 'table'").fetchone() == (0,)
