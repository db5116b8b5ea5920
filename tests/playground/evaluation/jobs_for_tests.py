"""Jobs that exist only to test the pool's supervision (workers import them by name)."""

from __future__ import annotations

import os
import signal
import time


def crash() -> None:
    """End the worker as the OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


def crash_once(marker: str) -> str:
    """Die the first time (leaving a marker file), succeed on the retry."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return "second attempt"


def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def allocate(megabytes: int) -> int:
    block = bytearray(megabytes * 1024 * 1024)
    return len(block)


def pid() -> int:
    return os.getpid()


def memory_status() -> str:
    with open("/proc/self/status") as status:
        return "".join(line for line in status if line.startswith(("VmPeak", "VmSize", "VmRSS")))


def touch(path: str) -> str:
    open(path, "w").close()
    return path


_held: list[bytearray] = []


def hold(megabytes: int) -> int:
    """Keep `megabytes` more (touched, so resident) for the rest of the worker's life: a cache that grew."""
    block = bytearray(b"\x01" * (megabytes * 1024 * 1024))
    _held.append(block)
    return os.getpid()


def fail(message: str) -> None:
    raise ValueError(message)


def echo(value):
    return value
