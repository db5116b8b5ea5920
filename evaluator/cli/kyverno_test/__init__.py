"""`kyverno-test PATH...`: run Kyverno CLI test folders (kyverno-test.yaml) as `kyverno test` does.

Exit status: 0 when every result row was evaluated and matched its expectation; 1 when a row failed,
errored or could not be evaluated (reported as skipped, with the reason), or a file could not be read;
2 when a path does not exist or holds no kyverno-test.yaml. A broken folder is reported (YAML errors as
FILE:LINE:COLUMN) and the other folders still run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaluator.cli.kyverno_test import report
from evaluator.cli.kyverno_test.folder import TEST_FILE, find_test_files, load_folder
from evaluator.cli.kyverno_test.report import FileReport
from evaluator.cli.kyverno_test.rows import run_rows

UNUSABLE = 2


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "kyverno-test",
        help="run Kyverno CLI test folders (kyverno-test.yaml)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a kyverno-test.yaml or a folder searched for them")
    parser.add_argument("-o", "--output", choices=("text", "json", "junit"), default="text")
    parser.set_defaults(handler=run)


def run_file(path: Path) -> FileReport:
    """One kyverno-test.yaml: every row of every test document in it."""
    file_report = FileReport(str(path))
    for folder in load_folder(path):
        file_report.problems += folder.problems
        file_report.rows += run_rows(folder)
    return file_report


def run_paths(paths: list[str]) -> tuple[list[FileReport], list[str]]:
    """(reports, problems with the paths themselves)."""
    reports, problems = [], []
    for name in paths:
        root = Path(name)
        if not root.exists():
            problems.append(f"{name}: error: no such file or folder")
            continue
        files = find_test_files(root)
        if not files:
            problems.append(f"{name}: error: no {TEST_FILE} in this folder")
        reports += [run_file(f) for f in files]
    return reports, problems


def run(args: argparse.Namespace) -> int:
    reports, problems = run_paths(args.paths)
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.output == "json":
        print(report.as_json(reports))
    elif args.output == "junit":
        print(report.as_junit(reports))
    else:
        print(report.text(reports))
    if problems or not reports:
        return UNUSABLE
    return report.exit_status(reports)
