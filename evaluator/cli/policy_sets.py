"""A policy set named on the command line: files, directories, or `REV:PATH` in git, as named texts.

`--base policies/` reads every `.yaml`, `.yml` and `.json` file below the directory (sorted, hidden
folders left out); `--base main:policies/` (or `HEAD~1:policy.yaml`) reads the same from a git revision
of the repository the command runs in, with `git ls-tree` and `git show` (arguments passed as a list,
never through a shell; a revision starting with `-` is refused). A path that exists on disk is always a
path, even with a colon in its name. Problems are located entries (`{severity, source, message}`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from evaluator.admission.loading import NamedText

__all__ = ["read_policy_set", "SUFFIXES"]

SUFFIXES = (".yaml", ".yml", ".json")
GIT_TIMEOUT = 60


def _problem(source: str, message: str) -> dict:
    return {"severity": "error", "source": source, "message": message}


def read_policy_set(specs: list[str]) -> tuple[list[str], list[dict]]:
    """(texts, each a NamedText named after its file, problems) of every spec."""
    texts: list[str] = []
    problems: list[dict] = []
    for spec in specs:
        path = Path(spec)
        if spec != "-" and not path.exists() and ":" in spec:
            found, trouble = _from_git(spec)
        else:
            found, trouble = _from_disk(spec)
        texts += found
        problems += trouble
    return texts, problems


def _from_disk(spec: str) -> tuple[list[str], list[dict]]:
    import sys

    if spec == "-":
        return [NamedText(sys.stdin.read(), "<stdin>")], []
    path = Path(spec)
    files = (
        sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix.lower() in SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if path.is_dir()
        else [path]
    )
    if path.is_dir() and not files:
        return [], [_problem(spec, "no .yaml, .yml or .json file in this directory")]
    texts: list[str] = []
    problems: list[dict] = []
    for file in files:
        try:
            texts.append(NamedText(file.read_text(encoding="utf-8"), str(file)))
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(_problem(str(file), f"cannot read file: {reason}"))
    return texts, problems


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], capture_output=True, timeout=GIT_TIMEOUT, check=False)


def _from_git(spec: str) -> tuple[list[str], list[dict]]:
    rev, _, inner = spec.partition(":")
    if not rev or rev.startswith("-"):
        return [], [_problem(spec, f"not a file, and {rev!r} is not a git revision")]
    try:
        check = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        if check.returncode != 0:
            return [], [_problem(spec, f"no such file, and no git revision {rev!r} here")]
        inner = inner.strip("/")
        listing = _git("ls-tree", "-r", "--name-only", "--full-tree", rev, "--", inner or ".")
        names = [n for n in listing.stdout.decode("utf-8", "replace").splitlines() if n]
        if inner:
            names = [n for n in names if n == inner or n.startswith(inner + "/")]
        if not names:
            return [], [_problem(spec, f"{inner or '/'} is not in revision {rev}")]
        single = names == [inner]
        names = [n for n in names if single or n.lower().endswith(SUFFIXES)]
        texts: list[str] = []
        problems: list[dict] = []
        for name in sorted(names):
            shown = _git("show", f"{rev}:{name}")
            source = f"{rev}:{name}"
            if shown.returncode != 0:
                problems.append(_problem(source, shown.stderr.decode("utf-8", "replace").strip() or "git show failed"))
                continue
            try:
                texts.append(NamedText(shown.stdout.decode("utf-8"), source))
            except UnicodeDecodeError:
                problems.append(_problem(source, "not UTF-8 text"))
        return texts, problems
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [], [_problem(spec, f"cannot run git: {exc}")]
