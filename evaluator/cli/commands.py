"""What every subcommand of the command line shares: its parser entry, the `-o` option, and how a test run
ends (problems on stderr, the report on stdout, the exit status)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

UNUSABLE = 2  # a path does not exist or holds nothing to run


def add_command(commands: Any, name: str, help_text: str, doc: str | None, handler: Callable) -> Any:
    """A subcommand whose `--help` shows its module docstring (`doc`) as written."""
    parser = commands.add_parser(
        name, help=help_text, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.set_defaults(handler=handler)
    return parser


def add_output_argument(parser: Any, *more: str) -> None:
    parser.add_argument("-o", "--output", choices=("text", "json", "junit", *more), default="text")


def finish_run(problems: list[str], reports: list[Any], output: str, status: Callable[[], int]) -> int:
    """Print a test run's path problems and its report; UNUSABLE when a path gave nothing, else `status()`."""
    for problem in problems:
        print(problem, file=sys.stderr)
    print(output)
    if problems or not reports:
        return UNUSABLE
    return status()
