"""YAML in and out for the formats: read as Kubernetes reads it (go-yaml scalars), bounded against alias
bombs and oversized input; written with block scalars so policy texts stay readable in git."""

from __future__ import annotations

from typing import Any

import yaml

from evaluator.admission.go_yaml import GoYamlLoader

MAX_TEXT = 2 * 1024 * 1024
MAX_ALIASES = 100


class FormatError(ValueError):
    """Input a converter cannot use; the message says which file and why."""


class BoundedLoader(GoYamlLoader):
    """go-yaml scalars, and at most MAX_ALIASES alias references per stream (a billion laughs is refused)."""

    aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise FormatError(f"too many YAML aliases (more than {MAX_ALIASES})")
        return super().compose_node(parent, index)


def load_all(text: str, source: str = "input") -> list[Any]:
    """Every non-empty document of `text`; FormatError (naming `source` and the line) when it is not YAML."""
    if len(text) > MAX_TEXT:
        raise FormatError(f"{source}: larger than {MAX_TEXT // 1024} KiB")
    try:
        return [d for d in yaml.load_all(text, Loader=BoundedLoader) if d is not None]
    except FormatError as exc:
        raise FormatError(f"{source}: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise FormatError(f"{source}{where}: invalid YAML: {exc.problem or exc}") from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise FormatError(f"{source}: invalid YAML: {exc}") from None


def load_one(text: str, source: str = "input") -> Any:
    documents = load_all(text, source)
    if len(documents) != 1:
        raise FormatError(f"{source}: expected one YAML document, found {len(documents)}")
    return documents[0]


class _BlockDumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_BlockDumper.add_representer(str, _str)


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=120)


def dump_all(documents: list[Any]) -> str:
    return yaml.dump_all(documents, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=120)
