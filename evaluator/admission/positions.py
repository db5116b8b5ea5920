"""Where each field of a YAML document sits, so field errors (``spec.validations[0].expression``) can
point at a line and column in the user's text."""

from __future__ import annotations

import re

import yaml

Position = tuple[int, int]  # 1-based line, 1-based column

_SEGMENT = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")


def node_positions(node: yaml.Node, line_offset: int = 0, prefix: str = "") -> dict[str, Position]:
    """Map every field path under ``node`` to the position of its value (keys for mappings)."""
    positions: dict[str, Position] = {}
    _walk(node, prefix, line_offset, positions)
    return positions


def _walk(node: yaml.Node, path: str, offset: int, out: dict[str, Position]) -> None:
    if path:
        out.setdefault(path, (node.start_mark.line + offset + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            out[child] = (key_node.start_mark.line + offset + 1, key_node.start_mark.column + 1)
            _walk(value_node, child, offset, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, f"{path}[{index}]", offset, out)


def split_path(path: str) -> list[str]:
    """``spec.validations[0].expression`` -> ``["spec", "validations", "[0]", "expression"]``. A map key
    in brackets, as Kubernetes writes CRD schema paths (``properties[spec]``), is a name like ``.spec``."""
    parts = []
    for name, index in _SEGMENT.findall(path):
        parts.append(name if name else (f"[{index}]" if index.isdigit() else index))
    return parts


def canonical_path(path: str) -> str:
    """The path as the document maps key it (``properties[spec].rule`` -> ``properties.spec.rule``)."""
    parts = split_path(path)
    return "".join(p if p.startswith("[") else ("." + p if i else p) for i, p in enumerate(parts))


def locate(positions: dict[str, Position] | None, path: str) -> Position | None:
    """The position of ``path``, or of its nearest existing parent (a missing required field points
    at the object that should hold it)."""
    if not positions:
        return None
    parts = split_path(path)
    while parts:
        key = parts[0] + "".join(p if p.startswith("[") else "." + p for p in parts[1:])
        if key in positions:
            return positions[key]
        parts.pop()
    return None
