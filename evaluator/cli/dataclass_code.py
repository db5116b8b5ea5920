"""Dataclass methods compiled once per installation instead of once per process: the CLI's cold start.

`@dataclass` writes the source of every method it adds (`__init__`, `__repr__`, `__eq__`, a frozen class's
`__setattr__`...) and compiles it with `exec`; for the ~75 dataclasses one `simulate` imports, compiling
them was about a fifth of the whole process. `install()` has the dataclasses module run `exec` through a
cache of code objects keyed by the exact source text, kept on disk with `marshal` (as Python keeps bytecode,
one file per Python version) in the user's cache directory (`evaluator.cache_dir`): `exec` then runs the
very code it would have compiled (same text, same file name, no inherited flags). What a run compiled anew
is written back when the process exits; a missing, foreign or broken file is ignored and replaced.
Only the console entry points install it (`python -m evaluator`, `admission-playground`).
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from evaluator.cache_dir import cache_dir

MAX_ENTRIES = 4096  # past this, the file keeps only what the last run used


class CompilingExec:
    """`exec` for the dataclasses module: source text compiled at most once, its code kept in `codes`."""

    def __init__(self, codes: dict[str, CodeType]) -> None:
        self.codes = codes
        self.used: set[str] = set()
        self.learnt = False

    def __call__(self, source: Any, globals: Any = None, locals: Any = None) -> None:  # noqa: A002 - exec's names
        if type(source) is not str:
            exec(source, globals, locals)  # noqa: S102 - what the dataclasses module asked for, unchanged
            return
        code = self.codes.get(source)
        if code is None:
            # what exec(source) compiles: "<string>", and no __future__ flags (dataclasses.py has none)
            code = self.codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            self.learnt = True
        self.used.add(source)
        exec(code, globals, locals)  # noqa: S102 - a dataclass method's source, written by the dataclasses module


def cache_path() -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    return directory / f"dataclass-code-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal"


def read(path: Path) -> dict[str, CodeType]:
    """The cached codes, or none when the file is missing or not one this Python wrote."""
    try:
        codes = marshal.loads(path.read_bytes())
    except Exception:  # noqa: BLE001 - missing, truncated, foreign: compile instead
        return {}
    if type(codes) is not dict or not all(type(k) is str and type(v) is CodeType for k, v in codes.items()):
        return {}
    return codes


def write(compiling: CompilingExec, path: Path) -> None:
    """Write what `compiling` holds (only what this run used, past MAX_ENTRIES) to a temporary file renamed
    into place; failing to write is no error."""
    if not compiling.learnt:
        return
    codes = compiling.codes
    if len(codes) > MAX_ENTRIES:
        codes = {source: code for source, code in codes.items() if source in compiling.used}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(marshal.dumps(codes))
        os.replace(temporary, path)
    except Exception:  # noqa: BLE001 - e.g. a read-only home: the next run compiles again
        try:
            temporary.unlink()
        except OSError:
            pass


def install() -> CompilingExec | None:
    """Route the dataclasses module's `exec` through the cache for this process (once); None when caching is
    off or the module has its own `exec` already."""
    path = cache_path()
    current = vars(dataclasses).get("exec")
    if isinstance(current, CompilingExec):
        return current
    if path is None or current is not None:
        return None
    compiling = CompilingExec(read(path))
    dataclasses.exec = compiling  # type: ignore[attr-defined]  # a module global shadows the builtin
    atexit.register(write, compiling, path)
    return compiling
