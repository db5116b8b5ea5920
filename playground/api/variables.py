"""Read the variables text a user typed (YAML or JSON, JSON being YAML) into plain data.

The loader keeps values JSON-like, as Kubernetes' YAML-to-JSON conversion does: dates stay
strings, and aliases are refused so a small document cannot expand into a huge one.
"""

from __future__ import annotations

import yaml

from playground.core.edge import check_json
from playground.core.errors import ServiceError


class _JSONLikeLoader(yaml.SafeLoader):
    """SafeLoader without timestamps and without aliases."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases (*name) are not supported in variables", event.start_mark
            )
        return super().compose_node(parent, index)


_JSONLikeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_SCALARS = (str, int, float, bool, type(None))


def _check_json_like(value, path: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, (str, int, bool)):
                raise ServiceError(
                    "invalid_variables", f"{path}: map key of type {type(key).__name__} is not supported"
                )
            _check_json_like(item, f"{path}.{key}")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _check_json_like(item, f"{path}[{position}]")
    elif not isinstance(value, _SCALARS):
        raise ServiceError("invalid_variables", f"{path}: value of type {type(value).__name__} is not supported")


def parse_variables_text(text: str) -> dict:
    """Parse YAML/JSON text into a mapping of variable names to values; blank text means none."""
    try:
        data = yaml.load(text, Loader=_JSONLikeLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"invalid YAML/JSON: {exc.problem or exc.context}"
        if mark is None:
            raise ServiceError("invalid_variables", message)
        raise ServiceError("invalid_variables", message, line=mark.line + 1, column=mark.column + 1)
    except yaml.YAMLError as exc:
        raise ServiceError("invalid_variables", f"invalid YAML/JSON: {exc}")
    except RecursionError:
        raise ServiceError("invalid_variables", "variables are nested too deeply")
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ServiceError("invalid_variables", f"invalid YAML/JSON: {exc}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ServiceError("invalid_variables", "variables must be a map of names to values")
    try:
        _check_json_like(data, "variables")
    except RecursionError:
        raise ServiceError("invalid_variables", "variables are nested too deeply")
    check_json(data, "variables")  # the same limits as JSON variables: text, 64-bit integers, depth
    return data
