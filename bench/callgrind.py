"""Instructions a command executes, counted by callgrind: deterministic where a shared machine's clock drifts.

A bench's instruction figure runs its workload in a child process under `valgrind --tool=callgrind`
(`PYTHONHASHSEED=0` unless the environment sets it, so that sets and dicts of text iterate alike); one that runs its measured part once and
twice in two such processes takes the difference, so that start-up, imports and warm-up cancel out.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path


def instructions(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, expect: int = 0
) -> int:
    """Instructions executed by one run of `command` (callgrind's `Collected`), which exits `expect`."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=cwd,
        env={"PYTHONHASHSEED": "0", **(os.environ if env is None else env)},
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != expect or found is None:
        raise SystemExit(f"{' '.join(command)} under callgrind exited {done.returncode}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def measured_part(command_for: Callable[[int], list[str]], cwd: Path | None = None) -> int:
    """Instructions of the measured part of `command_for(reps)` run once: its count with two repetitions
    less its count with one."""
    return instructions(command_for(2), cwd) - instructions(command_for(1), cwd)
