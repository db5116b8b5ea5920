"""Strategic merge of a (preprocessed) patch into a resource, as kustomize's patchstrategicmerge filter
(kyaml merge2) does it for Kyverno.

- maps merge key by key; a `null` value removes the key; `$patch: delete` removes the map, `$patch: replace`
  puts the patch's map in place of the resource's;
- a list of maps with a merge key (the Kubernetes one for the fields in `MERGE_KEYS`, else the first of kyaml's
  associative keys found in the first element) merges element by element; elements new to the resource are
  prepended (kustomize's ListIncreaseDirection is "prepend"); `$patch: delete` in an element removes the
  resource's element with that key; a `{$patch: replace}` element replaces the whole list;
- any other list, and any scalar, is replaced by the patch's.
"""

from __future__ import annotations

from typing import Any


# kyaml's AssociativeSequenceKeys, in its order of preference
ASSOCIATIVE_KEYS = ("mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort")

# x-kubernetes-patch-merge-key of list fields whose key differs from what the heuristic would pick, by field
# name and, where the name is ambiguous, the field holding the list
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "ownerReferences": "uid",
}
# a list that Kubernetes' schema says is atomic (replaced whole) even though its elements carry a name-like key
ATOMIC: frozenset[str] = frozenset({"tolerations", "args", "command"})

_DELETE = object()


class MergeError(Exception):
    """The patch and the resource disagree on a node's kind where kyaml requires them to agree."""


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "MappingNode"
    if isinstance(value, list):
        return "SequenceNode"
    return "ScalarNode"


def strategic_merge(resource: Any, patch: Any) -> Any:
    """The resource with `patch` merged in (a new object; neither argument is changed: maps and lists are
    copied where the patch changes them, the rest is shared with `resource`)."""
    out = _merge(resource, patch, ())
    return {} if out is _DELETE else out


def _merge_key(path: tuple[str, ...], dest: list, patch: list) -> str | None:
    field = path[-1] if path else ""
    if field in ATOMIC:
        return None
    if field == "ports":
        return "port" if len(path) == 2 and path[0] == "spec" else "containerPort"
    if field in MERGE_KEYS:
        return MERGE_KEYS[field]
    for source in (dest, patch):
        if source:
            first = source[0]
            if not isinstance(first, dict):
                return None
            return next((k for k in ASSOCIATIVE_KEYS if k in first), None)
    return None


def _strip(value: Any) -> Any:
    """A patch value put in whole: without its `$patch` directives and null map values."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "$patch" and v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value if not (isinstance(v, dict) and v.get("$patch") in ("replace", "delete"))]
    return value


def _merge(dest: Any, patch: Any, path: tuple[str, ...]) -> Any:
    if isinstance(patch, dict):
        return _merge_map(dest, patch, path)
    if isinstance(patch, list):
        return _merge_list(dest, patch, path)
    return patch


def _merge_map(dest: Any, patch: dict, path: tuple[str, ...]) -> Any:
    directive = patch.get("$patch")
    if directive == "delete":
        return _DELETE
    if directive == "replace":
        return _strip(patch)
    if dest is None:
        dest = {}
    if not isinstance(dest, dict):
        where = ".".join(path)
        raise MergeError(f"wrong Node Kind for {where} expected: MappingNode was {_kind(dest)}: value: {{{dest}}}")
    dest = dict(dest)  # copy on write: `dest` may be the resource's own map
    for key, value in patch.items():
        if key == "$patch":
            continue
        if value is None:
            dest.pop(key, None)
            continue
        merged = _merge(dest.get(key), value, (*path, key))
        if merged is _DELETE:
            dest.pop(key, None)
        else:
            dest[key] = merged
    return dest


def _merge_list(dest: Any, patch: list, path: tuple[str, ...]) -> Any:
    if any(isinstance(e, dict) and e.get("$patch") == "replace" for e in patch):
        return _strip(patch)
    dest_list = dest if isinstance(dest, list) else []
    key = _merge_key(path, dest_list, patch)
    if key is None:
        return _strip(patch)
    result = list(dest_list)
    added = []
    for element in patch:
        if not isinstance(element, dict) or key not in element:
            added.append(_strip(element))
            continue
        index = next(
            (i for i, e in enumerate(result) if isinstance(e, dict) and e.get(key) == element[key]),
            None,
        )
        if element.get("$patch") == "delete":
            if index is not None:
                del result[index]
            continue
        if index is None:
            added.append(_strip(element))
        else:
            merged = _merge(result[index], element, path)
            if merged is _DELETE:
                del result[index]
            else:
                result[index] = merged
    return added + result
