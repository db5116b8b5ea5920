"""System checks that stop `migrate`/`runserver`/`check` on a configuration unfit to serve.

The development SECRET_KEY in settings is a convenience for DEBUG and tests; a server with DEBUG off must
have its own key, or sessions and signed tokens could be forged by anyone who read our repository."""

from __future__ import annotations

import os

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security)
def secret_key_is_set(app_configs, **kwargs):
    if settings.DEBUG or os.environ.get("SECRET_KEY"):
        return []
    return [
        checks.Error(
            "SECRET_KEY is not set and DEBUG is off: refusing to serve with the development key.",
            hint="Set SECRET_KEY in the environment (e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'), "
            "or DEBUG=1 for local development.",
            id="playground.E001",
        )
    ]
