"""An exception kept past its handler, without the frames it was raised through.

A caught exception holds its traceback, the traceback its frames, and each frame its caller's. Kept in a local
of one of those frames (a pattern walk's skipped elements, a loop's last error) or in what such a frame holds,
it closes a reference cycle that only the cyclic collector frees. A batch made hundreds of such cycles an
object, and the collector's passes over them took a quarter of its time.
"""

from __future__ import annotations

from typing import TypeVar

E = TypeVar("E", bound=BaseException)


def kept(err: E) -> E:
    """`err` without its traceback and the exception it was raised while handling (their frames)."""
    err.__context__ = None
    return err.with_traceback(None)
