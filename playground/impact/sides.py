"""The two sides of an impact run, base and head: each a project as it is now, or one of its versions
(versions.py), given as {"project": id, "version": N or null}. A side becomes the documents it runs (every
policy of the project with its other documents: bindings, params, namespaces), read as a batch job reads them."""

from __future__ import annotations

from typing import Any

from evaluator.batch import policy_key
from playground.batch import inputs
from playground.core import edge
from playground.core.errors import ServiceError
from playground.impact import versions
from playground.services import project_service


def policy_keys(documents: list[dict]) -> list[str]:
    """The policies among the document texts, named as the batch rows name them (a version's listing: no
    compiling)."""
    objects, _ = inputs.project_objects(documents)
    keys = []
    for obj in objects:
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if obj.get("kind") in inputs.POLICY_KINDS and isinstance(name, str) and name:
            keys.append(policy_key({"kind": obj.get("kind"), "policy": name}))
    return keys


def clean(side: Any, path: str) -> dict:
    """{"project": id, "version": N or None}, or a 400 naming the field."""
    if not isinstance(side, dict):
        raise edge.invalid('must be an object {"project": id, "version": N (left out: as it is now)}', path)
    unknown = sorted(set(side) - {"project", "version"})
    if unknown:
        raise edge.invalid("unknown field (expected project, version)", f"{path}.{unknown[0]}")
    project = side.get("project")
    if not isinstance(project, str) or not project or edge.text_problem(project):
        raise edge.invalid("give the id of a project", f"{path}.project")
    version = side.get("version")
    if version is not None and (type(version) is not int or not 0 < version < 2**31):
        raise edge.invalid("must be a version number (1, 2, …) or null for the project as it is now", f"{path}.version")
    return {"project": project, "version": version}


def resolve(side: dict, path: str) -> dict:
    """{label, project, version, title, documents (objects), policies, kubernetesVersion, warnings}."""
    state = project_service.project_state(side["project"])
    if side["version"] is None:
        content, label = state, f"{state['title'] or state['id']} (now)"
    else:
        try:
            content = versions.content_of(state["id"], side["version"])
        except ServiceError as exc:
            raise ServiceError(exc.code, f"{path}.version: {exc.message}", exc.status, path=f"{path}.version") from None
        label = f"{state['title'] or state['id']} version {side['version']}"
    objects, warnings = inputs.project_objects(content.get("documents") or [])
    kubernetes_version = content.get("kubernetesVersion") or state["kubernetesVersion"]
    policies = inputs.policies_of(objects, kubernetes_version)
    return {
        "label": label,
        "project": state["id"],
        "version": side["version"],
        "documents": objects,
        "policies": [p["key"] for p in policies],
        "broken": {p["key"]: p["error"] for p in policies if p["error"]},
        "kubernetesVersion": kubernetes_version,
        "warnings": [{**w, "source": f"{path}: {w.get('source')}"} for w in warnings],
    }
