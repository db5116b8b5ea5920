# The two commands a newcomer needs: `make run` and `make test` (see README.md).

PYTHON3 ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-stamp
HOST    ?= 127.0.0.1
PORT    ?= 8000

# `make test-postgres` runs the suites that touch the database and the channel layer.
POSTGRES_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
POSTGRES_REDIS_URL    ?= redis://127.0.0.1:6379/0
POSTGRES_TESTS        ?= tests/playground

.PHONY: run test test-postgres bench install migrate collectstatic load-examples clean

run: install migrate load-examples collectstatic
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) playground.asgi:application

# pytest exits 5 when it collects no test: make fails on any non-zero exit, so that fails too.
test: install
	$(PY) -m pytest $(PYTEST_ARGS)

test-postgres: install
	DATABASE_URL=$(POSTGRES_DATABASE_URL) REDIS_URL=$(POSTGRES_REDIS_URL) \
		$(PY) -m pytest $(POSTGRES_TESTS) $(PYTEST_ARGS)

bench: install
	@set -e; found=0; for script in bench/*_bench.py; do \
		[ -f "$$script" ] || continue; found=1; \
		echo "== $$script"; $(PY) "$$script"; \
	done; [ $$found = 1 ] || { echo "no bench/*_bench.py yet" >&2; exit 1; }

install: $(STAMP)

$(PY):
	$(PYTHON3) -m venv $(VENV)

# Re-installs only when pyproject.toml changes; the editable install picks up code edits by itself.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

migrate: install
	$(PY) manage.py migrate --noinput

collectstatic: install
	$(PY) manage.py collectstatic --noinput --verbosity 0

# Hook for the gallery issue: it will load playground/examples/ into the database here.
load-examples: migrate
	@echo "load-examples: no gallery examples yet (nothing to load)"

clean:
	rm -rf $(STAMP) staticfiles .pytest_cache
