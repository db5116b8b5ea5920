"""`test PATH...`: run projects saved as files (the gallery's YAML: documents + sample requests with
expected outcomes) the way `kyverno test` runs its folders; for CI.

Each *.yaml under PATH with a `documents` list is a project; every request with an expected outcome is a
test, checked with the same verdict as the web app (evaluator/expectations.py). A request without one is
listed and not counted. Problems in the documents are printed as FILE:LINE:COLUMN: severity: message.
A project tagged `broken-on-purpose` (a gallery example showing an error) expects document errors.
`--kubernetes-version 1.N` simulates that release's API server (default: the project file's
`kubernetesVersion`, else the newest).
Exit status: 0 when every test passed and no document has an error; 1 when a test failed or a project has
errors; 2 when a path does not exist or holds no project file.
"""

from __future__ import annotations

import argparse
from typing import Any

from evaluator.cli import junit
from evaluator.cli.commands import add_command, add_output_argument, finish_run
from evaluator.cli.located import is_error, located
from evaluator.cli.simulate_command import add_version_argument
from evaluator.project_tests import ProjectReport, as_json, counts, run_paths


def register(commands: Any) -> None:
    help_text = "run projects saved as files (documents + expected outcomes)"
    parser = add_command(commands, "test", help_text, __doc__, run)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a project file or a folder searched for them")
    add_output_argument(parser)
    add_version_argument(parser, None, "the project file's kubernetesVersion, else the newest")


def as_text(reports: list[ProjectReport]) -> str:
    lines = []
    for rep in reports:
        lines.append(f"{'PASS' if rep.passed else 'FAIL'} {rep.path}" + (f" ({rep.title})" if rep.title else ""))
        lines.extend(f"  {located(p)}" for p in rep.problems)
        for case in rep.cases:
            mark = {"pass": "ok", "fail": "FAILED", "none": "no expectation", "error": "ERROR"}[case.verdict]
            lines.append(
                f"  {case.request}: {mark}" + (f" -- {case.message}" if case.verdict != "pass" and case.message else "")
            )
    c = counts(reports)
    lines.append(
        f"Test Summary: {c['passed']} out of {c['tests']} tests passed, {c['failed']} failed,"
        f" {c['errors']} errors, {c['noExpectation']} without expectation; {c['projectErrors']} document errors"
    )
    return "\n".join(lines)


def as_junit(reports: list[ProjectReport]) -> str:
    suites = []
    for rep in reports:
        cases = [
            junit.Case(located(p), rep.path, "error", str(p.get("message", "")), located(p))
            for p in rep.problems
            if is_error(p)
        ]
        status = {"pass": "passed", "fail": "failure", "none": "skipped", "error": "error"}
        cases += [
            junit.Case(c.request, rep.path, status[c.verdict], c.message or "no expected outcome", c.message)
            for c in rep.cases
        ]
        suites.append((rep.path, cases))
    return junit.document(suites)


def run(args: argparse.Namespace) -> int:
    reports, problems = run_paths(args.paths, args.kubernetes_version)
    output = {"json": as_json, "junit": as_junit}.get(args.output, as_text)(reports)
    return finish_run(problems, reports, output, lambda: 0 if all(r.passed for r in reports) else 1)
