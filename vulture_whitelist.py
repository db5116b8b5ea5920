"""Names vulture (dead-code finder, run by `make test`; settings in pyproject.toml [tool.vulture]) cannot see
used. Each line names one; a line whose code is gone is harmless, but remove it with the code."""

# ruff: noqa
# fmt: off

# Used by a framework or a library by name: Django settings, apps, middleware, URL handlers and model
# fields; DRF serializer fields and hook arguments; PyYAML and re2 hooks; a module __getattr__; the console
# script; a task kept referenced so it is not collected; the shape of a typed dict.
__getattr__  # (evaluator/__init__.py)
apiVersion  # (evaluator/batch/rows.py)
auditID  # (evaluator/batch/impact/items.py, compare.py)
changedPolicies  # (evaluator/batch/impact/compare.py)
subResource  # (evaluator/batch/impact/items.py)
dryRun  # (evaluator/batch/impact/items.py)
_.configmap  # (evaluator/batch/impact/sample_log.py: called by getattr, as deployment and pod)
_.log_errors  # (evaluator/cel/library/regex.py)
console  # (evaluator/cli/__init__.py)
exception_handler  # (playground/api/errors.py)
parser_context  # (playground/api/formats.py)
clientSeq  # (playground/api/messages.py)
ApiErrorMiddleware  # (playground/api/middleware.py)
parser_context  # (playground/api/parsers.py)
variables_text  # (playground/api/serializers.py)
messageContains  # (playground/api/serializers.py)
kubernetesVersion  # (playground/api/serializers.py)
kubernetesVersion  # (playground/api/serializers.py)
kubernetesVersion  # (playground/api/serializers.py)
PlaygroundConfig  # (playground/apps.py)
BatchConfig  # (playground/batch/apps.py)
ImpactConfig  # (playground/impact/apps.py)
dispatched  # (playground/batch/models.py)
lease_until  # (playground/batch/models.py)
app_configs  # (playground/checks.py)
page_not_found  # (playground/error_pages.py)
server_error  # (playground/error_pages.py)
PageNotFoundMiddleware  # (playground/error_pages.py)
_.META  # (playground/mcp_http.py)
_._task  # (playground/mcp_http.py)
ContentSecurityPolicyMiddleware  # (playground/middleware.py)
forked_from_snapshot  # (playground/models.py)
SECRET_KEY  # (playground/settings.py)
CSRF_TRUSTED_ORIGINS  # (playground/settings.py)
INSTALLED_APPS  # (playground/settings.py)
MIDDLEWARE  # (playground/settings.py)
ROOT_URLCONF  # (playground/settings.py)
WSGI_APPLICATION  # (playground/settings.py)
ASGI_APPLICATION  # (playground/settings.py)
TEMPLATES  # (playground/settings.py)
DEFAULT_AUTO_FIELD  # (playground/settings.py)
CHANNEL_LAYERS  # (playground/settings.py)
LANGUAGE_CODE  # (playground/settings.py)
TIME_ZONE  # (playground/settings.py)
USE_I18N  # (playground/settings.py)
USE_TZ  # (playground/settings.py)
STATIC_URL  # (playground/settings.py)
STATICFILES_DIRS  # (playground/settings.py)
STATIC_ROOT  # (playground/settings.py)
STORAGES  # (playground/settings.py)
WHITENOISE_USE_FINDERS  # (playground/settings.py)
WHITENOISE_AUTOREFRESH  # (playground/settings.py)
REST_FRAMEWORK  # (playground/settings.py)
SPECTACULAR_SETTINGS  # (playground/settings.py)
CELERY_BROKER_URL  # (playground/settings.py)
CELERY_WORKER_MAX_TASKS_PER_CHILD  # (playground/settings.py, read by Celery: celery_app.py)
CELERY_WORKER_MAX_MEMORY_PER_CHILD  # (playground/settings.py, read by Celery: celery_app.py)
_start_sweeper  # (playground/batch/tasks.py, a Celery worker_ready receiver)
_settings_changed  # (playground/evaluation/pool.py, a setting_changed receiver: tests change the pool's limits)
encode_json  # (playground/ws.py, channels' AsyncJsonWebsocketConsumer calls it to encode send_json's content)
CACHES  # (playground/settings.py)
CACHES  # (playground/settings.py)
LOGGING  # (playground/settings.py)
BuiltAssetsOnly  # (playground/staticfiles.py)
displayName  # (playground/workshops/api/serializers.py)
WorkshopsConfig  # (playground/workshops/apps.py)
closed_at  # (playground/workshops/models.py)
token_hash  # (playground/workshops/models.py)
_.ignore_aliases  # (playground/workshops/services/authoring.py)
_.closed_at  # (playground/workshops/services/rooms.py)

# CEL functions registered by calling the registering decorator (name = function("...")(implementation)).
is_link_local_multicast  # (evaluator/cel/library/ip.py, after the CEL library helper's merge)
to_int  # (evaluator/cel/library/stdlib.py, same)
to_uint
to_double
to_bool

# Public API kept for the tests, benchmarks and conformance suites that call it (grep tests/ bench/).
validate_crd_case  # (evaluator/crd/definition.py: the CRD conformance harness's entry point)
validating_policies  # (evaluator/admission/documents.py)
validating_bindings  # (evaluator/admission/documents.py)
mutating_policies  # (evaluator/admission/documents.py)
mutating_bindings  # (evaluator/admission/documents.py)
_.objects_of_kind  # (evaluator/admission/documents.py)
PolicyKind  # (evaluator/admission/policy_kind.py)
_.expression_position  # (evaluator/admission/source_map.py)
_.extended  # (evaluator/cel/registry.py)
run_batch  # (evaluator/cli/batch.py)
clone  # (evaluator/k8s/defaulting/fields.py)
selector_matches  # (evaluator/k8s/labels.py)
clear_cache  # (evaluator/typechecking/checker.py)
secret_key_is_set  # (playground/checks.py)
wait_until_started  # (playground/evaluation/pool.py)
wait_for_calls  # (playground/core/database.py: tests wait for it before the test database is flushed)
close_pool_connections  # (playground/core/database.py)
BoundedRedisChannelLayer  # (playground/core/redis_layer.py: CHANNEL_LAYERS BACKEND, by its dotted path)
_.create_pool  # (playground/core/redis_layer.py: called by channels_redis)
clear_caches  # (playground/evaluation/live_jobs.py)
clear_caches  # (playground/evaluation/service.py)
cache_stats  # (playground/evaluation/service.py)
GROUP_TITLES  # (playground/services/example_meta.py)
_.drain  # (playground/workshops/services/fair_queue.py)

# Read or set by name: the authz request's fields (authz._SELECTORS parses each selector it names and sets its
# `<name>_requirements` / `<name>_error`; authorizers read the request as a mapping).
field_selector
label_selector
field_selector_requirements
field_selector_error
label_selector_requirements
label_selector_error
resource_request
# The `+()` anchor's name: the anchor regex accepts it already; Kyverno's mutate rules (next issue) use it.
ADD_IF_NOT_PRESENT
# DRF field validator, called as validate_<field>.
validate_name
# The LOG_FORMAT=json formatter, named in the LOGGING setting (playground/settings.py).
JsonFormatter
# The load-from-cluster request fields (playground/api/serializers.py), read by name from validated bodies.
labelSelector
documentIds
documentId
