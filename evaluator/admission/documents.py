"""Load the user's documents: multi-document YAML (or JSON) into located objects, and index them.

Never raises. Each document keeps its source, 1-based start line and index, so later layers can point
at the document an error belongs to; a broken document is reported with line/column and skipped while
the others still load. ``kind: List`` and typed lists (``ConfigMapList``...) are flattened, the way
``kubectl apply`` treats them. YAML is read as ``sigs.k8s.io/yaml`` reads it: timestamps stay strings,
keys become strings, duplicate keys are an error.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import yaml

from evaluator.admission.plain_yaml import RememberingResolver, Unusual, plain_data
from evaluator.admission.positions import Position, locate, node_positions
from evaluator.admission.yaml_aliases import check_aliases
from evaluator.admission.source_map import ScalarSource, SourceText, scalar_sources
from evaluator.k8s import kinds
from evaluator.k8s.kinds import ADMISSION_GROUP, APIEXTENSIONS_GROUP, CUSTOM_RESOURCE_DEFINITION, RBAC_GROUP, RBAC_KINDS

_SEPARATOR = re.compile(r"^(---|\.\.\.)(\s.*)?$")
_MARKERS = ("---", "...")  # what a separator line starts with: a cheaper test of each line first


@dataclass
class Document:
    data: dict
    index: int
    line: int | None = 1  # None: given as an object, not text
    source: str | None = None
    list_index: int | None = None
    # Index of the text or object this document came from in a list given to the engine (None: the input
    # was one text, and `index` is the YAML document's index in it).
    position: int | None = None
    # Where its fields are (`positions`, `scalars`) is worked out from its text when first asked for: most
    # documents of a large input are never located, and walking each one's nodes cost more than reading it.
    _text: tuple[str, int] | None = field(default=None, init=False, repr=False, compare=False)
    _positions: dict[str, Position] | None = field(default=None, init=False, repr=False, compare=False)
    _scalars: dict[str, ScalarSource] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def positions(self) -> dict[str, Position] | None:
        """Each field path's (line, column) in the text; None for a document given as an object."""
        if self._text is not None:
            self._locate_fields()
        return self._positions

    @positions.setter
    def positions(self, value: dict[str, Position] | None) -> None:
        self._text, self._positions = None, value

    @property
    def scalars(self) -> dict[str, ScalarSource] | None:
        """Each string field's source (source_map.py), to point inside an expression."""
        if self._text is not None:
            self._locate_fields()
        return self._scalars

    @scalars.setter
    def scalars(self, value: dict[str, ScalarSource] | None) -> None:
        self._text, self._scalars = None, value

    def with_data(self, data: Any) -> Document:
        """A copy holding `data` and located as this one is: `dataclasses.replace` would drop the text its
        positions are worked out from (an init=False field), and with it every field's line and column."""
        twin = replace(self, data=data)
        twin._text, twin._positions, twin._scalars = self._text, self._positions, self._scalars
        return twin

    def _locate_fields(self) -> None:
        chunk, offset = self._text  # type: ignore[misc]
        self._text = None
        node = _compose(chunk)  # the same text, so the same nodes as when the document was read
        if node is not None:
            self._positions = node_positions(node, offset)
            self._scalars = scalar_sources(node, SourceText(chunk, offset))

    @property
    def api_version(self) -> str:
        return self.data.get("apiVersion") if isinstance(self.data.get("apiVersion"), str) else ""

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def kind(self) -> str:
        return self.data.get("kind") if isinstance(self.data.get("kind"), str) else ""

    @property
    def name(self) -> str:
        meta = self.data.get("metadata")
        name = meta.get("name") if isinstance(meta, Mapping) else None
        return name if isinstance(name, str) else ""

    @property
    def namespace(self) -> str:
        meta = self.data.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, Mapping) else None
        return ns if isinstance(ns, str) else ""

    def location(self, path: str | None = None) -> dict:
        """``{"document", "line", ["column"], ["source"], ["item"], ["yamlDocument"]}``; with a field path,
        the line of that field (or of its nearest parent present in the text). ``document`` indexes the
        documents the engine was given; for a text in a list, ``yamlDocument`` is the index within it."""
        out = {"document": self.index if self.position is None else self.position, "line": self.line}
        if self.line is None:  # given as an object: there is no text to point into, only the path
            out["located"] = False
        elif path:
            found = locate(self.positions, path)
            if found is not None:
                out["line"], out["column"] = found
        if self.source is not None:
            out["source"] = self.source
        if self.list_index is not None:
            out["item"] = self.list_index
        if self.position is not None and self.source is not None:
            out["yamlDocument"] = self.index
        return out


@dataclass
class LoadError:
    message: str
    document: int
    line: int | None = None
    column: int | None = None
    source: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.source}:" if self.source else ""
        if self.line is not None:
            where += f"{self.line}:" + (f"{self.column}:" if self.column is not None else "")
        return f"{where} document {self.document}: {self.message}".strip()


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A repeated mapping key; ``first_line`` is 0-based within the parsed chunk."""

    def __init__(self, key: str, first_line: int, mark: yaml.Mark):
        super().__init__(None, None, f'mapping key "{key}" already defined', mark)
        self.key = key
        self.first_line = first_line


_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when installed: ~5x faster


class _Loader(RememberingResolver, _BASE_LOADER):  # type: ignore[valid-type,misc]  # chosen at import time
    """SafeLoader minus timestamp resolution, with string keys and duplicate-key errors."""


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    result: dict = {}
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        key = _key_text(loader.construct_object(key_node, deep=True))
        if key in seen:
            raise _DuplicateKey(key, seen[key], key_node.start_mark)
        seen[key] = key_node.start_mark.line
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    """PyYAML's integer, or an error at the number itself where Python refuses to read that many digits (a
    bare ValueError would only say which document)."""
    try:
        return yaml.SafeLoader.construct_yaml_int(loader, node)
    except ValueError:
        digits = sum(ch.isdigit() for ch in str(node.value))
        problem = f"an integer of {digits:,} digits is too long to read (at most {sys.get_int_max_str_digits():,})"
        raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _split(text: str) -> list[tuple[int, str]]:
    """Split at ``---``/``...`` lines: ``[(0-based start line, chunk text)]`` (content lines only)."""
    chunks: list[tuple[int, str]] = []
    start, lines = 0, []
    for number, line in enumerate(text.splitlines()):
        if line[:3] in _MARKERS and _SEPARATOR.match(line):
            chunks.append((start, "\n".join(lines)))
            rest = line[3:].strip()
            start, lines = number, ([" " * 3 + " " + rest] if rest and line.startswith("---") else [])
            if not lines:
                start = number + 1
            continue
        lines.append(line)
    chunks.append((start, "\n".join(lines)))
    return chunks


def _first_content_line(chunk: str) -> int:
    for offset, line in enumerate(chunk.splitlines()):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return offset
    return 0


def _duplicate(key: str, key_node: yaml.Node, first_line: int) -> None:
    raise _DuplicateKey(key, first_line, key_node.start_mark)


Parsed = tuple[Any, "yaml.Node | None", bool]


def parse_chunk(chunk: str) -> Parsed:
    """(data, node, plain): `plain` when the data was built straight from the nodes, which are then as the
    parser composed them (the loader's constructor flattens merge keys into their mapping's node)."""
    loader = _Loader(chunk)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None, True
        try:  # a plain document (no alias: nothing to expand) is built directly
            return plain_data(loader, node, _key_text, _duplicate, chunk), node, True
        except Unusual:
            pass
        check_aliases(node, chunk)  # before anything walks (and so expands) the tree
        return loader.construct_document(node), node, False
    finally:
        loader.dispose()


def _compose(chunk: str) -> yaml.Node | None:
    loader = _Loader(chunk)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load_documents(
    text: str, source: str | None = None, positions: bool = True, parse: Callable[[str], Parsed] | None = None
) -> tuple[list[Document], list[LoadError]]:
    """Parse multi-document YAML/JSON text. Returns (documents, errors); never raises.

    With ``positions`` each document records where its fields are (``Document.location(path)``);
    turn it off for large dumps where only whole-document locations matter. ``parse`` reads one YAML
    document (default: ``parse_chunk``); what it returns is never changed here."""
    documents: list[Document] = []
    errors: list[LoadError] = []
    if not isinstance(text, str):
        return [], [LoadError("input is not text", 0, source=source)]
    index = 0
    for start, chunk in _split(text):
        if not chunk.strip() or all(not ln.strip() or ln.strip().startswith("#") for ln in chunk.splitlines()):
            continue
        line = start + _first_content_line(chunk) + 1
        try:
            data, node, plain = (parse or parse_chunk)(chunk)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = " ".join(p for p in (exc.context, exc.problem) if p) or str(exc)
            if isinstance(exc, _DuplicateKey):
                problem = f'mapping key "{exc.key}" already defined at line {start + exc.first_line + 1}'
            errors.append(
                LoadError(
                    f"invalid YAML: {problem}",
                    index,
                    start + mark.line + 1 if mark else line,
                    mark.column + 1 if mark else None,
                    source,
                )
            )
            index += 1
            continue
        except (yaml.YAMLError, RecursionError, ValueError) as exc:
            errors.append(LoadError(f"invalid YAML: {exc}", index, line, None, source))
            index += 1
            continue
        if data is not None:
            before = len(documents)
            _accept(data, index, line, source, documents, errors)
            if positions and node is not None:
                _attach_positions(documents[before:], node, start, chunk, plain)
        index += 1
    return documents, errors


def _attach_positions(documents: list[Document], node: yaml.Node, offset: int, chunk: str, plain: bool) -> None:
    if plain and len(documents) == 1 and documents[0].list_index is None:
        documents[0]._text = (chunk, offset)  # located when first asked (the usual document: one object)
        return
    source = SourceText(chunk, offset)
    items = None
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == "items" and isinstance(value_node, yaml.SequenceNode):
                items = value_node.value
    for doc in documents:
        if doc.list_index is None:
            doc.positions = node_positions(node, offset)
            doc.scalars = scalar_sources(node, source)
        elif items is not None and doc.list_index < len(items):
            item = items[doc.list_index]
            doc.positions = node_positions(item, offset)
            doc.scalars = scalar_sources(item, source)
            doc.line = item.start_mark.line + offset + 1


def load_objects(objects: Iterable[Any], source: str | None = None) -> tuple[list[Document], list[LoadError]]:
    """The same checks and List flattening for objects that are already parsed (JSON API input)."""
    documents: list[Document] = []
    errors: list[LoadError] = []
    for index, data in enumerate(objects):
        if data is not None:
            _accept(data, index, None, source, documents, errors, located=False)
    return documents, errors


def _accept(
    data: Any,
    index: int,
    line: int | None,
    source: str | None,
    documents: list[Document],
    errors: list[LoadError],
    located: bool = True,
) -> None:
    where = line if located else None
    if not isinstance(data, dict):
        errors.append(LoadError(f"document is not an object (got {type(data).__name__})", index, where, None, source))
        return
    if _is_list(data):
        items = data.get("items") or []
        item_kind = data["kind"][:-4] if data.get("kind") != "List" else None
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                errors.append(LoadError(f"items[{i}] is not an object", index, where, None, source))
                continue
            if item_kind:  # typed lists from the API omit apiVersion/kind on items
                item = {"apiVersion": data.get("apiVersion"), "kind": item_kind, **item}
            problem = _missing_type(item)
            if problem:
                errors.append(LoadError(f"items[{i}]: {problem}", index, where, None, source))
                continue
            documents.append(Document(item, index, line, source, i))
        return
    problem = _missing_type(data)
    if problem:
        errors.append(LoadError(problem, index, where, None, source))
        return
    documents.append(Document(data, index, line, source))


def _is_list(data: dict) -> bool:
    kind = data.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(data.get("items"), list)


def _missing_type(data: dict) -> str | None:
    missing = [f for f in ("apiVersion", "kind") if not isinstance(data.get(f), str) or not data.get(f)]
    if missing:
        # kubectl's client-side check words it this way.
        return "error validating data: [" + ", ".join(f"{f} not set" for f in missing) + "]"
    return None


# --------------------------------------------------------------------------- index
@dataclass
class DocumentIndex:
    """Documents sorted by role. ``params`` holds every object that is not an admission policy/binding
    (any of them can be a paramKind); ``namespaces`` maps name -> Namespace object."""

    validating_policies: list[Document] = field(default_factory=list)
    validating_bindings: list[Document] = field(default_factory=list)
    mutating_policies: list[Document] = field(default_factory=list)
    mutating_bindings: list[Document] = field(default_factory=list)
    namespaces: dict[str, dict] = field(default_factory=dict)
    crds: list[Document] = field(default_factory=list)
    rbac: list[Document] = field(default_factory=list)
    params: list[Document] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)

    def namespace(self, name: str) -> dict | None:
        return self.namespaces.get(name)

    def objects_of_kind(self, api_version: str, kind: str) -> list[Document]:
        """Param candidates of exactly this apiVersion and kind."""
        return [d for d in self.params if d.api_version == api_version and d.kind == kind]


_ROLE_LISTS = {
    kinds.VALIDATING_POLICY: "validating_policies",
    kinds.VALIDATING_BINDING: "validating_bindings",
    kinds.MUTATING_POLICY: "mutating_policies",
    kinds.MUTATING_BINDING: "mutating_bindings",
}


def index_documents(documents: Iterable[Document]) -> DocumentIndex:
    """Sort documents by role; a later document with the same identity replaces an earlier one
    (as a second ``kubectl apply`` would), with a warning."""
    index = DocumentIndex()
    seen: dict[tuple, tuple[str, Document]] = {}
    for doc in documents:
        group, kind = doc.group, doc.kind
        identity = (group, kind, doc.namespace, doc.name)
        role = _ROLE_LISTS.get(kind) if group == ADMISSION_GROUP else None
        role = role or _other_role(group, kind)
        if doc.name and identity in seen:
            old_role, old_doc = seen[identity]
            getattr(index, old_role).remove(old_doc)
            index.warnings.append(
                {
                    **doc.location(),
                    "message": f'{doc.kind} "{doc.name}" appears again; '
                    f"the later document (document {doc.index}) replaces document {old_doc.index}",
                }
            )
        seen[identity] = (role, doc)
        getattr(index, role).append(doc)
    for doc in index.params:
        if doc.group == "" and doc.kind == "Namespace" and doc.name:
            index.namespaces[doc.name] = doc.data
    return index


def _other_role(group: str, kind: str) -> str:
    if kind == CUSTOM_RESOURCE_DEFINITION and group == APIEXTENSIONS_GROUP:
        return "crds"
    if kind in RBAC_KINDS and group == RBAC_GROUP:
        return "rbac"
    return "params"


def deduplicate(documents: list[Document]) -> tuple[list[Document], list[dict]]:
    """Later documents with the same identity replace earlier ones (a second `kubectl apply`): (kept, warnings)."""
    index = index_documents(documents)
    kept = {
        id(d)
        for role in (
            "validating_policies",
            "validating_bindings",
            "mutating_policies",
            "mutating_bindings",
            "crds",
            "rbac",
            "params",
        )
        for d in getattr(index, role)
    }
    return [d for d in documents if id(d) in kept], list(index.warnings)
