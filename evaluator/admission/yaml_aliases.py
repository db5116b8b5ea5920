"""Refuse YAML alias bombs the way Kubernetes' YAML decoding does, before anything walks the tree.

A YAML alias re-uses an anchored node, so a 1 KB text of nested aliases ("billion laughs") stands for
billions of nodes. PyYAML's composer shares the anchored node (the node graph stays small), but every later
walk -- constructing positions, JSON encoding, the engine -- expands it. go-yaml, which the API server and
kubectl decode YAML with (through sigs.k8s.io/yaml), has refused such documents since the fix for
CVE-2019-11253 with ``yaml: document contains excessive aliasing``; this module applies the same rule to the
composed node graph:

* every node the decoder would visit counts once (``decodeCount``), every node reached through an alias also
  counts as aliased (``aliasCount``);
* once ``aliasCount > 100`` and ``decodeCount > 1000``, the ratio ``aliasCount / decodeCount`` may not exceed
  99 % up to 400,000 decodes, scaling down linearly to 10 % at 4,000,000 (so at most ~400,000 nodes ever come
  from aliases, whatever the text);
* an alias inside the node it refers to is refused (``anchor 'x' value contains itself``).

The count stops as soon as the rule is broken, so the check itself is bounded by the same numbers.
"""

from __future__ import annotations

import re

import yaml

ALIAS_RATIO_RANGE_LOW = 400_000
ALIAS_RATIO_RANGE_HIGH = 4_000_000
EXCESSIVE_ALIASING = "document contains excessive aliasing"


class AliasError(yaml.MarkedYAMLError):
    """The document is refused for its aliases; ``problem`` holds go-yaml's wording."""

    def __init__(self, problem: str, mark: yaml.Mark | None):
        super().__init__(problem=problem, problem_mark=mark)


def allowed_alias_ratio(decode_count: int) -> float:
    """go-yaml's allowedAliasRatio: 99 % for small documents, down to 10 % for very large ones."""
    if decode_count <= ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decode_count >= ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decode_count - ALIAS_RATIO_RANGE_LOW) / span)


_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")


def _anchor_name(node: yaml.Node, text: str | None) -> str:
    """PyYAML's nodes do not keep anchor names; read it back from the text at the node's start."""
    index = getattr(node.start_mark, "index", None)
    match = _ANCHOR.match(text, index) if text is not None and index is not None else None
    return match.group(1) if match else ""


def _is_merge_key(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:merge"


def check_aliases(root: yaml.Node | None, text: str | None = None) -> None:
    """Raise AliasError when decoding ``root`` would expand aliases beyond go-yaml's limit (``text``, the
    composed text, only names the anchor of a self-containing one).

    The composed graph has no alias nodes: an alias is the anchored node object met again, in a place
    (parent, slot) other than the one where the text defines it -- the first place met in document order."""
    if root is None:
        return
    decode_count = 1  # the document node
    alias_count = 0
    anchors: dict[int, tuple] = {}  # node id -> the (parent id, slot) where the text defines it
    # (node, (parent id, slot), alias depth, alias sites being expanded on this path)
    stack: list[tuple] = [(root, (None, 0), 0, frozenset())]
    while stack:
        node, site, depth, expanding = stack.pop()
        first_site = anchors.setdefault(id(node), site)
        if first_site != site:  # an alias: go-yaml visits the alias node, then its target one level deeper
            if site in expanding:
                raise AliasError(f"anchor '{_anchor_name(node, text)}' value contains itself", node.start_mark)
            decode_count += 1
            alias_count += depth > 0
            depth += 1
            expanding = expanding | {site}
        decode_count += 1
        alias_count += depth > 0
        if alias_count > 100 and decode_count > 1000 and alias_count / decode_count > allowed_alias_ratio(decode_count):
            raise AliasError(EXCESSIVE_ALIASING, node.start_mark)
        if isinstance(node, yaml.MappingNode):
            children = []
            for key, value in node.value:
                if not _is_merge_key(key):
                    children.append(key)
                children.append(value)
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            continue
        parent = id(node)
        stack.extend((child, (parent, slot), depth, expanding) for slot, child in reversed(list(enumerate(children))))


def safe_load(text: str, loader_class: type = yaml.SafeLoader):
    """``yaml.load`` of one document, refused (AliasError) before construction when it aliases too much."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        check_aliases(node, text)
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def safe_load_all(text: str, loader_class: type = yaml.SafeLoader) -> list:
    """``yaml.load_all`` with every document checked before it is constructed."""
    loader = loader_class(text)
    documents = []
    try:
        while loader.check_node():
            node = loader.get_node()
            check_aliases(node, text)
            documents.append(loader.construct_document(node))
    finally:
        loader.dispose()
    return documents
