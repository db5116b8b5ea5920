# The web service: Django on daphne (ASGI: HTTP and WebSockets).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app
COPY . /app
RUN pip install . \
    && python manage.py collectstatic --noinput --verbosity 0

EXPOSE 8000
# Migrate on start so the database service only has to be reachable, not prepared.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec daphne -b 0.0.0.0 -p 8000 playground.asgi:application"]
