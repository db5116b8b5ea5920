"""Where each `text:` block of a project file starts, so a problem at line L of a document's text can be
reported at its line in the file (FILE:LINE:COLUMN, what editors and CI annotators jump to)."""

from __future__ import annotations

import yaml

from evaluator.formats.bounded_yaml import BoundedLoader


def text_positions(file_text: str) -> dict[tuple[str, int], tuple[int, int]]:
    """{("documents"|"requests", index): (file line before the text's first line, column offset)}; {} when
    the file does not compose (the reader reports that)."""
    loader = BoundedLoader(file_text)
    try:
        root = loader.get_single_node()
    except (yaml.YAMLError, ValueError, RecursionError):
        return {}
    finally:
        loader.dispose()
    positions: dict[tuple[str, int], tuple[int, int]] = {}
    if not isinstance(root, yaml.MappingNode):
        return positions
    for key, value in root.value:
        if key.value not in ("documents", "requests") or not isinstance(value, yaml.SequenceNode):
            continue
        for index, entry in enumerate(value.value):
            if not isinstance(entry, yaml.MappingNode):
                continue
            for k, v in entry.value:
                if k.value == "text" and isinstance(v, yaml.ScalarNode):
                    if v.style in ("|", ">"):
                        # block scalar: content starts on the next line, indented like the first content line
                        lines = file_text.split("\n")
                        first = v.start_mark.line + 1
                        indent = len(lines[first]) - len(lines[first].lstrip(" ")) if first < len(lines) else 0
                        positions[(key.value, index)] = (first, indent)
                    else:
                        positions[(key.value, index)] = (v.start_mark.line, v.start_mark.column)
    return positions
