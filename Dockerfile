# The web service: Django on daphne (ASGI: HTTP and WebSockets).

# Front end: CodeMirror and the page modules, bundled by esbuild from npm packages (never committed).
FROM node:20-slim AS frontend
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY static ./static
RUN node static/build.mjs

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app
COPY . /app
COPY --from=frontend /src/static/dist /app/static/dist
# collectstatic publishes the built assets only: static/src, static/tests and the build script stay out
# (playground.staticfiles.BuiltAssetsOnly). It needs no secret: the key is checked when the server starts.
# Cold start of every process (web, evaluation workers, CLI): the sources' bytecode, the CEL parser's
# tables and the CLI's compiled dataclass methods are made here, once, not by each process at start
# (PYTHONDONTWRITEBYTECODE keeps processes from writing; /app is read-only to the runtime user).
ENV ADMISSION_PLAYGROUND_CACHE_DIR=/app/.cache
RUN pip install . \
    && python -m compileall -q /app/evaluator /app/playground \
    && python -c "from evaluator.cel.grammar import parser; parser()" \
    && python -c "from evaluator.cli.dataclass_code import install; install(); \
import evaluator.cli.simulate_command, evaluator.cli.batch, evaluator.cli.kyverno_test, evaluator.cli.test_command, \
evaluator.mcp_server; from evaluator.policies import load_kinds; load_kinds()" \
    && python manage.py collectstatic --noinput --verbosity 0 \
    && useradd --system --uid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin playground

# Not root: the service writes nothing in the image (PostgreSQL and Redis hold the state).
USER 10001:10001

EXPOSE 8000
# Migrate and load the example gallery on start, so the database service only has to be reachable.
# Django's system checks run with `migrate`: with DEBUG off and no SECRET_KEY the container stops there,
# saying so (playground.checks), instead of serving with a development key.
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py load_examples && exec daphne -b 0.0.0.0 -p 8000 --websocket-max-message-size 8388608 --websocket-max-frame-size 8388608 playground.asgi:application"]
