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
RUN pip install . \
    && python manage.py collectstatic --noinput --verbosity 0

EXPOSE 8000
# Migrate and load the example gallery on start, so the database service only has to be reachable.
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py load_examples && exec daphne -b 0.0.0.0 -p 8000 --websocket-max-message-size 8388608 --websocket-max-frame-size 8388608 playground.asgi:application"]
