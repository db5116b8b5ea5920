"""A `kyverno-test.yaml` and the files it names, read the way `kyverno test` reads them (go-yaml scalars).

Nothing here raises on bad input: an unreadable file or a YAML error becomes a located problem
(`{"source", "line", "column", "message"}`) and the documents that did load still take part."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.cli.yaml_text import parse_documents
from evaluator.k8s.kinds import POLICY_EXCEPTION

TEST_FILE = "kyverno-test.yaml"


@dataclass
class TestFolder:
    """One test document of a kyverno-test.yaml with everything it refers to, loaded."""

    path: Path
    test: dict
    policies: list[dict] = field(default_factory=list)
    exceptions: list[dict] = field(default_factory=list)
    resources: list[dict] = field(default_factory=list)
    cluster: list[dict] = field(default_factory=list)
    values: dict = field(default_factory=dict)
    user: dict = field(default_factory=dict)
    problems: list[dict] = field(default_factory=list)

    @property
    def base(self) -> Path:
        return self.path.parent


def read_yaml(path: Path, problems: list[dict]) -> list[Any]:
    """Every non-empty document of `path`; a broken one becomes a located problem and the others load."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        problems.append({"severity": "error", "source": str(path), "message": f"cannot read file: {reason}"})
        return []
    documents, yaml_problems = parse_documents(text, str(path))
    problems += yaml_problems
    return [data for _, data in documents]


def _objects(folder: TestFolder, names: Any) -> list[dict]:
    if isinstance(names, str):
        names = [names]
    docs: list[dict] = []
    for name in names or []:
        docs += [d for d in read_yaml(folder.base / str(name), folder.problems) if isinstance(d, dict)]
    return docs


def load_folder(path: Path) -> list[TestFolder]:
    """The test documents of one kyverno-test.yaml (usually one), each with its files loaded."""
    problems: list[dict] = []
    tests = [d for d in read_yaml(path, problems) if isinstance(d, dict)]
    if not tests:
        if not problems:
            problems.append({"severity": "error", "source": str(path), "message": "no test in this file"})
        return [TestFolder(path, {}, problems=problems)]
    return [_load_test(path, test, problems if i == 0 else []) for i, test in enumerate(tests)]


def _load_test(path: Path, test: dict, problems: list[dict]) -> TestFolder:
    folder = TestFolder(path, test, problems=list(problems))
    folder.policies = _objects(folder, test.get("policies"))
    folder.exceptions = [d for d in _objects(folder, test.get("exceptions")) if d.get("kind") == POLICY_EXCEPTION]
    folder.resources = _objects(folder, test.get("resources"))
    folder.cluster = list(folder.resources)
    folder.cluster += _objects(folder, test.get("paramResources"))  # the params of admission policies
    for doc in _objects(folder, test.get("clusterResources")):
        if doc.get("kind") == "ClusterResource":
            folder.cluster += [d for d in (doc.get("spec") or {}).get("resources") or [] if isinstance(d, dict)]
        else:
            folder.cluster.append(doc)
    folder.values = dict(test.get("values") or {})
    if test.get("variables"):
        docs = _objects(folder, test["variables"])
        if docs:
            folder.values = docs[0].get("spec", docs[0]) if docs[0].get("kind") == "Values" else docs[0]
    if test.get("userinfo"):
        docs = _objects(folder, test["userinfo"])
        folder.user = docs[0] if docs else {}
    return folder


def find_test_files(root: Path) -> list[Path]:
    """`root` itself when it is a file, else every kyverno-test.yaml under it, in path order."""
    return [root] if root.is_file() else sorted(root.rglob(TEST_FILE))
