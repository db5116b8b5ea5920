"""`kyverno-test PATH...`: run Kyverno CLI test folders (kyverno-test.yaml) as `kyverno test` does.

Exit status: 0 when every result row was evaluated and matched its expectation (a test file that declares
no results is listed as EMPTY and, as `kyverno test` skips it, fails nothing); 1 when a row failed,
errored or could not be evaluated (reported as skipped, with the reason), or a file could not be read;
2 when a path does not exist or holds no kyverno-test.yaml. A broken folder is reported (YAML errors as
FILE:LINE:COLUMN) and the other folders still run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evaluator.cli.commands import add_command, add_output_argument, finish_run
from evaluator.cli.kyverno_test import report
from evaluator.cli.kyverno_test.folder import TEST_FILE, find_test_files, load_folder
from evaluator.cli.kyverno_test.report import FileReport
from evaluator.cli.kyverno_test.rows import run_rows
from evaluator.formats.project_files import files_under


def register(commands: Any) -> None:
    parser = add_command(commands, "kyverno-test", "run Kyverno CLI test folders (kyverno-test.yaml)", __doc__, run)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a kyverno-test.yaml or a folder searched for them")
    add_output_argument(parser)


def run_file(path: Path) -> FileReport:
    """One kyverno-test.yaml: every row of every test document in it."""
    file_report = FileReport(str(path))
    for folder in load_folder(path):
        file_report.problems += folder.problems
        file_report.rows += run_rows(folder)
    return file_report


def run_paths(paths: list[str]) -> tuple[list[FileReport], list[str]]:
    """(reports, problems with the paths themselves)."""
    files, problems = files_under(paths, find_test_files, TEST_FILE)
    return [run_file(f) for f in files], problems


def run(args: argparse.Namespace) -> int:
    reports, problems = run_paths(args.paths)
    output = {"json": report.as_json, "junit": report.as_junit}.get(args.output, report.text)(reports)
    return finish_run(problems, reports, output, lambda: report.exit_status(reports))
