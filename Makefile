# The two commands a newcomer needs: `make run` and `make test` (see README.md).

PYTHON3 ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-stamp
HOST    ?= 127.0.0.1
PORT    ?= 8000
# A document may be 1 MiB: let WebSocket messages that large through, the app answers too_large beyond.
WS_LIMITS := --websocket-max-message-size 8388608 --websocket-max-frame-size 8388608

# `make test-postgres` runs the suites that touch the database and the channel layer.
POSTGRES_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
POSTGRES_REDIS_URL    ?= redis://127.0.0.1:6379/0
POSTGRES_TESTS        ?= tests/playground

# `make run` serves like production (DEBUG off, collected assets) but is for development: it gives a
# development key explicitly. A deployment sets its own SECRET_KEY; without one the server refuses to start.
DEV_KEY := SECRET_KEY="$${SECRET_KEY:-insecure-make-run-development-key}"

.PHONY: run test test-postgres test-browser screenshots frontend bench install migrate collectstatic load-examples clean

run: install frontend migrate load-examples collectstatic
	$(DEV_KEY) $(VENV)/bin/daphne -b $(HOST) -p $(PORT) $(WS_LIMITS) playground.asgi:application

# vulture first: dead code in evaluator/ and playground/ fails the run (settings in pyproject.toml [tool.vulture],
# names only a framework uses in vulture_whitelist.py).
# pytest exits 5 when it collects no test: make fails on any non-zero exit, so that fails too.
# Browser tests run once, in `make test-browser` (CI's browser pass), not here.
# The engine's tests (no database, server or worker process of their own) run on every core (pytest-xdist);
# the rest, which start servers and evaluation workers and time them, one at a time.
ENGINE_TESTS ?= tests/evaluator tests/conformance tests/golden
test: install frontend
	$(VENV)/bin/vulture
	$(PY) -m pytest -m "not browser" -n auto $(ENGINE_TESTS) $(PYTEST_ARGS)
	$(PY) -m pytest -m "not browser" $(addprefix --ignore=,$(ENGINE_TESTS)) $(PYTEST_ARGS)

# Playwright drives Debian's Chromium (/usr/bin/chromium) against a live daphne; skipped, saying so, without it.
test-browser: install frontend
	$(PY) -m pytest tests/browser -m browser -rs $(PYTEST_ARGS)

# Every page at 390 and 1440 px (and 1440 px dark) as PNGs in screenshots/ (git-ignored), for a reviewer:
# the layout and accessibility browser tests take them as they check each page.
SCREENSHOTS_DIR ?= screenshots
screenshots: install frontend
	rm -rf $(SCREENSHOTS_DIR)
	SCREENSHOTS_DIR=$(abspath $(SCREENSHOTS_DIR)) $(PY) -m pytest tests/browser/test_layout.py -m browser -q $(PYTEST_ARGS)
	@echo "screenshots in $(SCREENSHOTS_DIR)/"; ls $(SCREENSHOTS_DIR)

test-postgres: install
	DATABASE_URL=$(POSTGRES_DATABASE_URL) REDIS_URL=$(POSTGRES_REDIS_URL) \
		$(PY) -m pytest $(POSTGRES_TESTS) $(PYTEST_ARGS)

# Every bench/*_bench.py runs, even after one misses; the end lists each target as met / not met and the exit
# status is non-zero if any is not. `make bench QUICK=1` for the short runs.
bench: install
	$(DEV_KEY) $(PY) bench/run_all.py $(if $(QUICK),--quick)

install: $(STAMP)

# The front end: CodeMirror 6 and friends from npm (package-lock.json), bundled by esbuild into the
# git-ignored static/dist/. Needs node and npm; rebuilds only when a source or the lock file changes.
NODE_STAMP := node_modules/.installed-stamp
DIST_STAMP := static/dist/.built-stamp

frontend: $(DIST_STAMP)

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "make frontend: npm (Node.js 18+) is needed to build static/dist/" >&2; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(DIST_STAMP): $(NODE_STAMP) static/build.mjs $(wildcard static/src/*.js)
	node static/build.mjs
	touch $@

$(PY):
	$(PYTHON3) -m venv $(VENV)

# Re-installs only when pyproject.toml changes; the editable install picks up code edits by itself.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

migrate: install
	$(DEV_KEY) $(PY) manage.py migrate --noinput

collectstatic: install
	$(DEV_KEY) $(PY) manage.py collectstatic --noinput --verbosity 0

# Store the gallery (playground/examples/*.yaml) as read-only example projects.
load-examples: migrate
	$(DEV_KEY) $(PY) manage.py load_examples
	$(DEV_KEY) $(PY) manage.py load_workshops

clean:
	rm -rf $(STAMP) staticfiles .pytest_cache static/dist node_modules
