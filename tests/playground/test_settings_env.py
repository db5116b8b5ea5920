"""Settings come from the environment: DATABASE_URL, REDIS_URL, DEBUG, ALLOWED_HOSTS."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.config import channel_layers_config, database_config, env_bool, env_list

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


def test_redis_url_selects_redis_channel_layer():
    layers = channel_layers_config({"REDIS_URL": "redis://cache:6379/2"})
    assert layers["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert layers["default"]["CONFIG"]["hosts"] == ["redis://cache:6379/2"]


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
    env.update({
        "DATABASE_URL": "postgres://bob@pg.example:5432/apdb",
        "REDIS_URL": "redis://redis.example:6379/0",
        "DEBUG": "true",
        "ALLOWED_HOSTS": "play.example",
        "SECRET_KEY": "from-env",
        "DJANGO_SETTINGS_MODULE": "playground.settings",
    })
    script = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps([s.DATABASES['default']['ENGINE'], s.DATABASES['default']['HOST'], "
        "s.CHANNEL_LAYERS['default']['BACKEND'], s.DEBUG, s.ALLOWED_HOSTS, s.SECRET_KEY]))"
    )
    output = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO_ROOT,
                            capture_output=True, text=True, check=True, timeout=60).stdout
    assert json.loads(output) == [
        "django.db.backends.postgresql", "pg.example", "channels_redis.core.RedisChannelLayer",
        True, ["play.example"], "from-env",
    ]
