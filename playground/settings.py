"""Django settings, driven by the environment (see README.md, "Configuration")."""

import os
from pathlib import Path

from playground.config import (
    DEFAULT_CONTENT_SECURITY_POLICY,
    cache_config,
    channel_layers_config,
    database_config,
    env_bool,
    env_content_security_policy,
    env_float,
    env_int,
    env_list,
)
from playground.metrics_access import DEFAULT_ALLOW, parse_networks

BASE_DIR = Path(__file__).resolve().parent.parent

_DEV_SECRET_KEY = "insecure-development-key-set-SECRET_KEY-in-production"

DEBUG = env_bool(os.environ, "DEBUG", default=False)
SECRET_KEY = os.environ.get("SECRET_KEY") or _DEV_SECRET_KEY
ALLOWED_HOSTS = env_list(os.environ, "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list(os.environ, "CSRF_TRUSTED_ORIGINS", default=[])
# The Content-Security-Policy header of every response (playground/middleware.py; Django 5.2 has no CSP of
# its own). Replace it whole, e.g. to allow an analytics origin; a view's own header is kept.
CONTENT_SECURITY_POLICY = env_content_security_policy(
    os.environ, "CONTENT_SECURITY_POLICY", DEFAULT_CONTENT_SECURITY_POLICY
)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "whitenoise.runserver_nostatic",
    "playground.staticfiles.BuiltAssetsOnly",  # django.contrib.staticfiles, publishing built assets only
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our own static files, not a CDN
    "playground.apps.PlaygroundConfig",
    "playground.workshops.apps.WorkshopsConfig",  # issue 8: teaching workshops
    "playground.batch.apps.BatchConfig",  # issue 22: batch simulation jobs
    "playground.impact.apps.ImpactConfig",  # issue 35: policy-change impact (version history)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "playground.api.middleware.ApiErrorMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "playground.middleware.ContentSecurityPolicyMiddleware",
    "playground.error_pages.PageNotFoundMiddleware",
]

ROOT_URLCONF = "playground.urls"
WSGI_APPLICATION = "playground.wsgi.application"
ASGI_APPLICATION = "playground.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
            ],
        },
    },
]

DATABASES = {"default": database_config(os.environ, BASE_DIR)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Every keystroke is a committed write: WAL with synchronous=NORMAL keeps that at a fraction of a
    # millisecond, and IMMEDIATE transactions take the write lock up front (no upgrade deadlocks).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;",
            "transaction_mode": "IMMEDIATE",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CHANNEL_LAYERS = channel_layers_config(os.environ)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# In development serve straight from static/ so edits show without collectstatic.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["playground.api.parsers.LocatedJSONParser"],
    "EXCEPTION_HANDLER": "playground.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Admission Playground API",
    "DESCRIPTION": "Evaluate CEL and simulate Kubernetes admission policies.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Playground limits: sizes answer 413, evaluation rates 429. Every knob is listed in README.md.
PLAYGROUND_MAX_DOCUMENT_BYTES = env_int(os.environ, "PLAYGROUND_MAX_DOCUMENT_BYTES", 1024 * 1024, minimum=1)
PLAYGROUND_MAX_PROJECT_BYTES = env_int(os.environ, "PLAYGROUND_MAX_PROJECT_BYTES", 5 * 1024 * 1024, minimum=1)
PLAYGROUND_MAX_ITEMS = env_int(os.environ, "PLAYGROUND_MAX_ITEMS", 200, minimum=1)  # documents (or requests)
# A whole project travels in one JSON body (texts escaped): leave room above the project limit.
DATA_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_MAX_PROJECT_BYTES * 2
PLAYGROUND_EVALUATION_RATE = os.environ.get("PLAYGROUND_EVALUATION_RATE", "120/min")  # REST, per client address
PLAYGROUND_WS_EVALUATIONS_BURST = env_int(os.environ, "PLAYGROUND_WS_EVALUATIONS_BURST", 30, minimum=1)
PLAYGROUND_WS_EVALUATIONS_PER_SECOND = env_float(os.environ, "PLAYGROUND_WS_EVALUATIONS_PER_SECOND", 10, minimum=0.01)
# Evaluation worker processes (playground/evaluation/pool.py); 0 runs evaluations in threads (tests only:
# no wall-clock or memory bound). More workers than cores is fine: the OS then serves short evaluations
# between the slices of a long one.
PLAYGROUND_EVALUATION_PROCESSES = env_int(
    os.environ, "PLAYGROUND_EVALUATION_PROCESSES", min(2, os.cpu_count() or 1), minimum=0
)
# Safety bounds of one evaluation job, far above what the CEL cost limits allow.
PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = env_float(os.environ, "PLAYGROUND_EVALUATION_TIMEOUT_SECONDS", 10, minimum=0.1)
PLAYGROUND_EVALUATION_MEMORY_MB = env_int(os.environ, "PLAYGROUND_EVALUATION_MEMORY_MB", 512, minimum=64)
PLAYGROUND_EVALUATION_QUEUE = env_int(os.environ, "PLAYGROUND_EVALUATION_QUEUE", 256, minimum=1)  # per worker
# An evaluation worker is replaced, after the evaluation it is running, once it has run this many or its resident
# memory passed this many MiB (0: never): its caches and heap would otherwise keep the peak of any burst.
PLAYGROUND_EVALUATION_MAX_JOBS = env_int(os.environ, "PLAYGROUND_EVALUATION_MAX_JOBS", 5000, minimum=0)
PLAYGROUND_EVALUATION_RECYCLE_MB = env_int(os.environ, "PLAYGROUND_EVALUATION_RECYCLE_MB", 256, minimum=0)
# Seconds between a WebSocket's presence heartbeats; a viewer not seen for three of them no longer counts.
PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS = env_float(os.environ, "PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS", 20, minimum=0.05)
# On SIGTERM the WebSockets are told to reconnect and given this long to close before the process exits
# (playground/shutdown.py); keep it below the orchestrator's grace period minus any preStop delay (Kubernetes:
# terminationGracePeriodSeconds 30, preStop 5 s).
PLAYGROUND_SHUTDOWN_SECONDS = env_float(os.environ, "PLAYGROUND_SHUTDOWN_SECONDS", 20, minimum=0)
# Database threads of the WebSocket consumers on PostgreSQL (a pooled connection per call; without the pool, kept).
PLAYGROUND_DATABASE_THREADS = env_int(os.environ, "PLAYGROUND_DATABASE_THREADS", 8, minimum=1)

# Batch jobs (playground/batch): "celery" sends chunks to Celery workers over Redis (`celery -A
# playground.celery_app worker`); "local" runs them in a process pool of this server. Default: celery when
# REDIS_URL is set. PLAYGROUND_BATCH_PROCESSES=0 runs local chunks in a thread (tests).
PLAYGROUND_BATCH_BACKEND = os.environ.get("PLAYGROUND_BATCH_BACKEND", "").strip() or (
    "celery" if os.environ.get("REDIS_URL", "").strip() else "local"
)
PLAYGROUND_BATCH_PROCESSES = env_int(os.environ, "PLAYGROUND_BATCH_PROCESSES", min(2, os.cpu_count() or 1), minimum=0)
PLAYGROUND_BATCH_MAX_BYTES = env_int(os.environ, "PLAYGROUND_BATCH_MAX_BYTES", 64 * 1024 * 1024, minimum=1)
PLAYGROUND_BATCH_MAX_OBJECTS = env_int(os.environ, "PLAYGROUND_BATCH_MAX_OBJECTS", 200_000, minimum=1)
PLAYGROUND_BATCH_CHUNK_SIZE = env_int(os.environ, "PLAYGROUND_BATCH_CHUNK_SIZE", 250, minimum=1)
# A running chunk whose worker has not renewed its lease for this long (a live worker renews it every
# PLAYGROUND_BATCH_HEARTBEAT_SECONDS, at most a third of the lease) is taken to be lost with its worker and run
# again, at most PLAYGROUND_BATCH_ATTEMPTS times in all: a killed worker's chunk runs again within seconds.
PLAYGROUND_BATCH_LEASE_SECONDS = env_float(os.environ, "PLAYGROUND_BATCH_LEASE_SECONDS", 10, minimum=0.1)
PLAYGROUND_BATCH_HEARTBEAT_SECONDS = env_float(os.environ, "PLAYGROUND_BATCH_HEARTBEAT_SECONDS", 3, minimum=0.03)
PLAYGROUND_BATCH_ATTEMPTS = env_int(os.environ, "PLAYGROUND_BATCH_ATTEMPTS", 3, minimum=1)
# A queued chunk no worker took for this long is sent again (a message the broker lost).
PLAYGROUND_BATCH_REDISPATCH_SECONDS = env_float(os.environ, "PLAYGROUND_BATCH_REDISPATCH_SECONDS", 120, minimum=1)
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip() or os.environ.get("REDIS_URL", "").strip()
# A Celery worker's pool process is replaced after this many tasks or once its resident memory passes this many
# MiB after a task (0: never), so a long-running worker's memory stays at its steady state.
PLAYGROUND_CELERY_MAX_TASKS_PER_CHILD = env_int(os.environ, "PLAYGROUND_CELERY_MAX_TASKS_PER_CHILD", 1000, minimum=0)
PLAYGROUND_CELERY_MAX_MEMORY_MB = env_int(os.environ, "PLAYGROUND_CELERY_MAX_MEMORY_MB", 400, minimum=0)
CELERY_WORKER_MAX_TASKS_PER_CHILD = PLAYGROUND_CELERY_MAX_TASKS_PER_CHILD or None
CELERY_WORKER_MAX_MEMORY_PER_CHILD = PLAYGROUND_CELERY_MAX_MEMORY_MB * 1024 or None  # Celery counts KiB

CACHES = cache_config(os.environ)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Observability (README.md, "Configuration"): JSON log lines, and who may read /metrics (never the public by
# default: playground/metrics_access.py).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT == "json":
    LOGGING["formatters"] = {"json": {"()": "playground.log_format.JsonFormatter"}}
    LOGGING["handlers"]["console"]["formatter"] = "json"  # type: ignore[index]
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
METRICS_ALLOW = parse_networks(env_list(os.environ, "METRICS_ALLOW", default=DEFAULT_ALLOW))

# Connected to a cluster (issue 37, README "Connected to a cluster"): "Load from cluster" reads policies,
# namespaces and objects into a project, read-only (GET only; evaluator/cluster). Off unless
# PLAYGROUND_CLUSTER is "in-cluster" (the pod's service account) or "kubeconfig" (PLAYGROUND_CLUSTER_KUBECONFIG,
# default ~/.kube/config, and PLAYGROUND_CLUSTER_CONTEXT, default its current context). Only the kinds of
# PLAYGROUND_CLUSTER_KINDS (`resource.group`, as RBAC names them) are read, never Secrets.
PLAYGROUND_CLUSTER = os.environ.get("PLAYGROUND_CLUSTER", "").strip().lower()
if PLAYGROUND_CLUSTER not in ("", "off", "in-cluster", "kubeconfig"):
    raise ValueError(f"PLAYGROUND_CLUSTER={PLAYGROUND_CLUSTER!r} is not one of off, in-cluster, kubeconfig")
PLAYGROUND_CLUSTER_KUBECONFIG = os.environ.get("PLAYGROUND_CLUSTER_KUBECONFIG", "").strip()
PLAYGROUND_CLUSTER_CONTEXT = os.environ.get("PLAYGROUND_CLUSTER_CONTEXT", "").strip()
PLAYGROUND_CLUSTER_KINDS = env_list(os.environ, "PLAYGROUND_CLUSTER_KINDS", default=[])  # empty: the default list
PLAYGROUND_CLUSTER_MAX_OBJECTS = env_int(os.environ, "PLAYGROUND_CLUSTER_MAX_OBJECTS", 150, minimum=1)  # per load
PLAYGROUND_CLUSTER_TIMEOUT_SECONDS = env_float(os.environ, "PLAYGROUND_CLUSTER_TIMEOUT_SECONDS", 10, minimum=0.1)
PLAYGROUND_CLUSTER_DEADLINE_SECONDS = env_float(os.environ, "PLAYGROUND_CLUSTER_DEADLINE_SECONDS", 30, minimum=0.1)
