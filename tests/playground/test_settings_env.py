"""Settings come from the environment: DATABASE_URL, REDIS_URL, DEBUG, ALLOWED_HOSTS."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.config import (
    DEFAULT_CONTENT_SECURITY_POLICY,
    cache_config,
    channel_layers_config,
    database_config,
    env_bool,
    env_content_security_policy,
    env_list,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_database_url_postgres_is_parsed_into_django_fields():
    config = database_config({"DATABASE_URL": "postgres://alice:s3cret@db.internal:6543/playground"}, Path("/x"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("playground", "alice", "s3cret")
    assert (config["HOST"], config["PORT"]) == ("db.internal", 6543)


def test_database_defaults_to_sqlite_file_in_base_dir():
    config = database_config({}, Path("/srv/app"))
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == "/srv/app/db.sqlite3"


def test_blank_database_url_falls_back_to_sqlite():
    assert database_config({"DATABASE_URL": "  "}, Path("/a"))["ENGINE"] == "django.db.backends.sqlite3"


POSTGRES = {"DATABASE_URL": "postgres://alice@db.internal:5432/playground"}


def test_postgres_gets_a_bounded_pool_and_no_persistent_connections():
    config = database_config(POSTGRES, Path("/x"))
    assert config["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 10, "timeout": 5.0, "max_idle": 60.0}
    # Django refuses CONN_MAX_AGE > 0 beside a pool; the pool checks a connection before lending it.
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (0, True)


def test_pool_bounds_come_from_the_environment():
    env = {
        **POSTGRES,
        "DATABASE_POOL_MIN_SIZE": "1",
        "DATABASE_POOL_MAX_SIZE": "4",
        "DATABASE_POOL_TIMEOUT": "0.5",
        "DATABASE_POOL_MAX_IDLE": "30",
        "DATABASE_CONN_MAX_AGE": "600",  # meaningless with the pool: not passed on
    }
    config = database_config(env, Path("/x"))
    assert config["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 4, "timeout": 0.5, "max_idle": 30.0}
    assert config["CONN_MAX_AGE"] == 0


def test_a_pool_smaller_than_the_default_minimum_keeps_at_most_its_size_open():
    config = database_config({**POSTGRES, "DATABASE_POOL_MAX_SIZE": "1"}, Path("/x"))
    assert (config["OPTIONS"]["pool"]["min_size"], config["OPTIONS"]["pool"]["max_size"]) == (1, 1)


def test_pool_max_size_zero_turns_the_pool_off_and_keeps_connections_for_conn_max_age():
    config = database_config({**POSTGRES, "DATABASE_POOL_MAX_SIZE": "0", "DATABASE_CONN_MAX_AGE": "300"}, Path("/x"))
    assert "pool" not in config.get("OPTIONS", {})
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (300, True)
    config = database_config({**POSTGRES, "DATABASE_POOL_MAX_SIZE": "0"}, Path("/x"))
    assert config["CONN_MAX_AGE"] == 600  # the default without the pool


def test_sqlite_gets_no_pool_whatever_the_pool_variables_say():
    config = database_config({"DATABASE_POOL_MAX_SIZE": "4"}, Path("/x"))
    assert "pool" not in config.get("OPTIONS", {}) and config["CONN_MAX_AGE"] == 600


@pytest.mark.parametrize(
    "variable, raw, message",
    [
        ("DATABASE_POOL_MAX_SIZE", "-1", "DATABASE_POOL_MAX_SIZE='-1' must be at least 0"),
        ("DATABASE_POOL_MAX_SIZE", "ten", "DATABASE_POOL_MAX_SIZE='ten' is not an integer"),
        ("DATABASE_POOL_MIN_SIZE", "11", "DATABASE_POOL_MIN_SIZE=11 must not exceed DATABASE_POOL_MAX_SIZE=10"),
        ("DATABASE_POOL_TIMEOUT", "0", "DATABASE_POOL_TIMEOUT='0' must be at least 0.01"),
        ("DATABASE_POOL_TIMEOUT", "inf", "DATABASE_POOL_TIMEOUT='inf' is not a finite number"),
        ("DATABASE_POOL_MAX_IDLE", "0.5", "DATABASE_POOL_MAX_IDLE='0.5' must be at least 1"),
    ],
)
def test_bad_pool_variables_stop_the_server_naming_the_variable(variable, raw, message):
    with pytest.raises(ValueError) as caught:
        database_config({**POSTGRES, variable: raw}, Path("/x"))
    assert str(caught.value) == message


def test_redis_url_selects_redis_channel_layer():
    layers = channel_layers_config({"REDIS_URL": "redis://cache:6379/2", "REDIS_MAX_CONNECTIONS": "9"})
    assert layers["default"]["BACKEND"] == "playground.core.redis_layer.BoundedRedisChannelLayer"
    [host] = layers["default"]["CONFIG"]["hosts"]
    assert host["address"] == "redis://cache:6379/2" and host["max_connections"] == 9
    assert host["socket_connect_timeout"] == 1


def test_the_redis_layers_pool_is_bounded_and_waits_for_a_connection():
    from django.utils.module_loading import import_string
    from redis.asyncio import BlockingConnectionPool

    settings = channel_layers_config({"REDIS_URL": "redis://cache:6379/2", "REDIS_CONNECT_TIMEOUT_SECONDS": "0.5"})
    layer = import_string(settings["default"]["BACKEND"])(**settings["default"]["CONFIG"])
    pool = layer.create_pool(0)
    assert isinstance(pool, BlockingConnectionPool) and pool.max_connections == 64 and pool.timeout == 5
    assert pool.connection_kwargs["socket_connect_timeout"] == 0.5 and pool.connection_kwargs["host"] == "cache"


def test_the_redis_cache_is_bounded_and_fails_fast():
    options = cache_config({"REDIS_URL": "redis://cache:6379/2"})["default"]["OPTIONS"]
    assert options["pool_class"] == "redis.BlockingConnectionPool" and options["max_connections"] == 64
    assert options["socket_connect_timeout"] == 1 and options["socket_timeout"] == 1
    assert cache_config({})["default"]["BACKEND"].endswith("LocMemCache")


def test_no_redis_url_selects_in_memory_channel_layer():
    assert channel_layers_config({})["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"


@pytest.mark.parametrize("word, expected", [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False)])
def test_env_bool_reads_common_words(word, expected):
    assert env_bool({"DEBUG": word}, "DEBUG", default=not expected) is expected


def test_env_bool_rejects_unknown_words():
    with pytest.raises(ValueError, match="DEBUG"):
        env_bool({"DEBUG": "maybe"}, "DEBUG", default=False)


def test_env_list_splits_on_commas_and_drops_blanks():
    assert env_list({"ALLOWED_HOSTS": "a.example, b.example,,"}, "ALLOWED_HOSTS", []) == ["a.example", "b.example"]
    assert env_list({}, "ALLOWED_HOSTS", ["localhost"]) == ["localhost"]


def test_settings_module_reads_the_process_environment():
    """Load playground.settings in a fresh interpreter, as a deployment would."""
    env = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            "DATABASE_URL": "postgres://bob@pg.example:5432/apdb",
            "REDIS_URL": "redis://redis.example:6379/0",
            "DEBUG": "true",
            "ALLOWED_HOSTS": "play.example",
            "SECRET_KEY": "from-env",
            "DJANGO_SETTINGS_MODULE": "playground.settings",
        }
    )
    script = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps([s.DATABASES['default']['ENGINE'], s.DATABASES['default']['HOST'], "
        "s.CHANNEL_LAYERS['default']['BACKEND'], s.DEBUG, s.ALLOWED_HOSTS, s.SECRET_KEY]))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert json.loads(output) == [
        "django.db.backends.postgresql",
        "pg.example",
        "playground.core.redis_layer.BoundedRedisChannelLayer",
        True,
        ["play.example"],
        "from-env",
    ]


def test_every_playground_and_workshop_setting_is_in_the_readme_table():
    import re

    from django.conf import settings

    declared = {name for name in dir(settings) if re.match(r"^(PLAYGROUND|WORKSHOP)_[A-Z_]+$", name)}
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `((?:PLAYGROUND|WORKSHOP)_[A-Z_]+)` \|", readme, re.M))
    assert declared and declared == documented


def test_settings_read_from_python_code_are_declared():
    """Every settings.PLAYGROUND_*/WORKSHOP_* the code reads exists in settings.py (no getattr defaults)."""
    import re

    from django.conf import settings

    code = "\n".join(path.read_text(encoding="utf-8") for path in (REPO_ROOT / "playground").rglob("*.py"))
    read = set(re.findall(r"settings\.((?:PLAYGROUND|WORKSHOP)_[A-Z_]+)", code))
    assert read and all(hasattr(settings, name) for name in read), sorted(n for n in read if not hasattr(settings, n))
    assert not re.search(r"getattr\(settings, \"(PLAYGROUND|WORKSHOP)_", code)


@pytest.mark.parametrize(
    "reader, raw, message",
    [
        ("int", "ten", "PLAYGROUND_X='ten' is not an integer"),
        ("int", "-1", "PLAYGROUND_X='-1' must be at least 0"),
        ("float", "nan", "PLAYGROUND_X='nan' is not a finite number"),
        ("float", "fast", "PLAYGROUND_X='fast' is not a number"),
    ],
)
def test_typed_settings_name_the_variable_on_error(reader, raw, message):
    from playground.config import env_float, env_int

    read = env_int if reader == "int" else env_float
    with pytest.raises(ValueError) as caught:
        read({"PLAYGROUND_X": raw}, "PLAYGROUND_X", 1, minimum=0)
    assert str(caught.value) == message
    assert read({}, "PLAYGROUND_X", 3) == 3 and read({"PLAYGROUND_X": " 7 "}, "PLAYGROUND_X", 3) == 7


def test_content_security_policy_comes_from_the_environment_normalised():
    read = env_content_security_policy
    assert read({}, "CSP", "default-src 'self'") == "default-src 'self'"
    assert read({"CSP": "  "}, "CSP", "default-src 'self'") == "default-src 'self'"
    value = read({"CSP": "default-src 'self';\n  img-src 'self' https://img.example ;"}, "CSP", "x")
    assert value == "default-src 'self'; img-src 'self' https://img.example"
    # line breaks are folded, so a value can never split the header into two
    assert "\n" not in read({"CSP": "default-src 'self'\r\nSet-Cookie: a=b"}, "CSP", "x")


@pytest.mark.parametrize(
    "raw", ["default-src 'self'\x1b[31m", "default-src \x00", "default-src 'sélf'", ";;", "'self' x"]
)
def test_a_content_security_policy_that_is_not_one_stops_the_server(raw):
    with pytest.raises(ValueError, match="CSP="):
        env_content_security_policy({"CSP": raw}, "CSP", "default-src 'self'")


def test_the_content_security_policy_is_a_declared_and_documented_setting(settings, client):
    from django.conf import settings as live

    assert live.CONTENT_SECURITY_POLICY == DEFAULT_CONTENT_SECURITY_POLICY  # the test environment sets none
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `CONTENT_SECURITY_POLICY` |" in readme
    settings.CONTENT_SECURITY_POLICY = "default-src 'none'; connect-src https://api.example"
    response = client.get("/healthz")
    assert response["Content-Security-Policy"] == "default-src 'none'; connect-src https://api.example"
