"""The one public switch for the engine's shortcuts (fast paths derived from the general rules).

Every shortcut is a plan compiled from the same declarations as the general way, so turning them off
must change nothing a caller can see: tests and property checks compare the two ways with
`with shortcuts.off(): ...`. Reading `shortcuts.ON` costs one attribute look-up on the hot path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

ON = True


@contextmanager
def off() -> Iterator[None]:
    """Run the general way only, for the duration of the block (not thread-local: tests only)."""
    global ON
    previous, ON = ON, False
    try:
        yield
    finally:
        ON = previous
