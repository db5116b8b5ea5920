"""Any YAML documents of a file, with their lines: the request a user gives may be an AdmissionRequest or
AdmissionReview (no apiVersion/kind of a Kubernetes object), which the engine's document loader refuses.

Documents are split on `---` lines as the engine splits them, so a broken document is reported (located)
and the ones after it still load. Scalars are read as Kubernetes reads them (no YAML timestamps). Each
document is read with libyaml's parser when PyYAML has it (linear and ~10x faster on large inputs); one it
refuses is read again with the Python parser, whose messages and marks are the ones reported."""

from __future__ import annotations

import re
from typing import Any

import yaml

from evaluator.admission.go_yaml import GoYamlLoader
from evaluator.admission.plain_yaml import RememberingResolver, Unusual, plain_data

SEPARATOR = re.compile(r"^(---|\.\.\.)(\s.*)?$")
_MARKERS = ("---", "...")  # what a separator line starts with: a cheaper test of each line first


class _FastLoader(RememberingResolver, getattr(yaml, "CSafeLoader", GoYamlLoader)):  # type: ignore[misc]
    """GoYamlLoader's scalars over libyaml's parser."""


_FastLoader.yaml_implicit_resolvers = GoYamlLoader.yaml_implicit_resolvers


def _fast(chunk: str) -> tuple[int, Any] | None:
    """(0-based line of the document's node, data) or None (empty); raises what the parser raises."""
    loader = _FastLoader(chunk)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            data = plain_data(loader, node, text=chunk)
        except Unusual:
            data = loader.construct_document(node)
        return node.start_mark.line, data
    finally:
        loader.dispose()


def chunks(text: str) -> list[tuple[int, str]]:
    """(0-based line of the chunk's first line, chunk text) between separator lines, as `read_chunk` takes them."""
    out: list[tuple[int, str]] = []
    start = 0
    lines: list[str] = []
    for number, line in enumerate(text.split("\n")):
        if line[:3] in _MARKERS and SEPARATOR.match(line):
            out.append((start, "\n".join(lines)))
            start, lines = number + 1, []
        else:
            lines.append(line)
    out.append((start, "\n".join(lines)))
    return out


def parse_documents(text: str, source: str) -> tuple[list[tuple[int, Any]], list[dict]]:
    """((1-based first content line, data) per non-empty document, located YAML problems)."""
    documents: list[tuple[int, Any]] = []
    problems: list[dict] = []
    for offset, chunk in chunks(text):
        document, problem = read_chunk(offset, chunk, source)
        if document is not None:
            documents.append(document)
        if problem is not None:
            problems.append(problem)
    return documents, problems


def read_chunk(offset: int, chunk: str, source: str) -> tuple[tuple[int, Any] | None, dict | None]:
    """One document of `chunks`: ((1-based first content line, data) or None when empty, problem or None)."""
    try:
        found = _fast(chunk)
    except (yaml.YAMLError, RecursionError, ValueError):
        pass  # read again below, for the Python parser's message and mark
    else:
        if found is not None and found[1] is not None:
            return (offset + found[0] + 1, found[1]), None
        return None, None
    loader = GoYamlLoader(chunk)
    try:
        node = loader.get_single_node()
        if node is not None:
            data = loader.construct_document(node)
            if data is not None:
                return (offset + node.start_mark.line + 1, data), None
        return None, None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or str(exc)
        return None, {
            "severity": "error",
            "source": source,
            "line": offset + mark.line + 1 if mark else None,
            "column": mark.column + 1 if mark else None,
            "message": f"invalid YAML: {problem}",
        }
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        return None, {"severity": "error", "source": source, "line": offset + 1, "message": f"invalid YAML: {exc}"}
    finally:
        loader.dispose()


def without_document(text: str, line: int) -> str:
    """`text` with the document starting at `line` (1-based) replaced by an empty one (`~`): the other
    documents keep their lines and their numbers."""
    lines = text.split("\n")
    end = line
    while end < len(lines) and not SEPARATOR.match(lines[end]):
        end += 1
    return "\n".join(lines[: line - 1] + ["~"] + [""] * (end - line) + lines[end:])
