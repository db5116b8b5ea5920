"""Reading Kubernetes YAML the way Go tools (sigs.k8s.io/yaml over go-yaml: kubectl, Kyverno) do: timestamps
and sexagesimal-looking scalars stay strings; documents become plain JSON-like data. Kind-neutral, so the
layers above the core (CLI, formats) read user files with it without importing a policy package."""

from __future__ import annotations

import re

import yaml

from evaluator.admission.yaml_aliases import safe_load_all


class GoYamlLoader(yaml.SafeLoader):
    """SafeLoader without YAML 1.1 timestamps and base-60 numbers."""


GoYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
GoYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"""^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$""", re.X),
    list("-+0123456789"),
)


def _drop_sexagesimal() -> None:
    for first, resolvers in GoYamlLoader.yaml_implicit_resolvers.items():
        kept = []
        for tag, regexp in resolvers:
            if (
                tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
                and ":" in regexp.pattern
                and "[0-5]?[0-9]" in regexp.pattern
            ):
                continue
            kept.append((tag, regexp))
        GoYamlLoader.yaml_implicit_resolvers[first] = kept


_drop_sexagesimal()
GoYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


def load_all(text: str) -> list:
    """Every non-empty document of a YAML stream."""
    return [d for d in safe_load_all(text, GoYamlLoader) if d is not None]
