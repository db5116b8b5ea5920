"""`kyverno-test DIR`: delegates to evaluator.policies.kyverno (Kyverno CLI test folders, as `kyverno test`)."""
from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    parser = commands.add_parser("kyverno-test", help="run Kyverno CLI test folders (kyverno-test.yaml)")
    parser.add_argument("directory", help="a kyverno-test.yaml or a folder searched for them")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from evaluator.policies.kyverno.__main__ import main
    return main(["kyverno-test", args.directory])
