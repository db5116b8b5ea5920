"""The engine's command line, without Django: simulate | batch | kyverno-test.

`simulate` decides one request, `batch` runs a cluster dump and sums up what would be denied, `kyverno-test`
runs a Kyverno test folder as `kyverno test` does.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from evaluator.cli import batch, kyverno_test, simulate_command

    parser = argparse.ArgumentParser(prog="python -m evaluator", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    simulate_command.register(commands)
    batch.register(commands)
    kyverno_test.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
