"""One rule for the title of a fork, wherever it is made (an example, a snapshot, a project in the browser):
"<title> (fork)", never "(fork) (fork)". static/src/page-controls.js `forkTitle` is the same rule."""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"( \(fork\))+$")


def fork_title(title: str | None) -> str:
    base = _SUFFIX.sub("", (title or "").strip()).strip() or "Untitled"
    return f"{base} (fork)"
