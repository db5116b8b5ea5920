"""Image references as Kyverno reports them in the `images` variable (pkg/utils/api/image.go)."""

from __future__ import annotations

import re

_DEFAULT_REGISTRY = "docker.io"
_REF = re.compile(
    r"^(?P<name>[^@]+?)(?::(?P<tag>[\w][\w.-]{0,127}))?(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$"
)


def parse_image(image: str) -> dict | None:
    """Split an image reference into registry, path, name, tag, digest (docker.io defaults)."""
    if not isinstance(image, str) or not image:
        return None
    m = _REF.match(image)
    if not m:
        return None
    name, tag, digest = m.group("name"), m.group("tag") or "", m.group("digest") or ""
    if name != name.strip() or not name:
        return None
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, path = first, rest
    else:
        registry, path = _DEFAULT_REGISTRY, name
    if not tag and not digest:
        tag = "latest"
    short = path.rsplit("/", 1)[-1]
    reference = f"{registry}/{path}"
    ref_with_tag = reference + (f":{tag}" if tag else "")
    full = ref_with_tag + (f"@{digest}" if digest else "")
    return {
        "registry": registry,
        "path": path,
        "name": short,
        "tag": tag,
        "digest": digest,
        "reference": full,
        "referenceWithTag": ref_with_tag,
    }


_POD_SPEC_PATHS = {
    "Pod": ["spec"],
    "CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
}


def _pod_spec(resource: dict) -> tuple[dict | None, str]:
    kind = resource.get("kind")
    path = _POD_SPEC_PATHS.get(kind, ["spec", "template", "spec"])
    node: object = resource
    for part in path:
        if not isinstance(node, dict):
            return None, ""
        node = node.get(part)
    return (node if isinstance(node, dict) else None), "/" + "/".join(path)


def extract_images(resource: dict) -> dict:
    """{containers|initContainers|ephemeralContainers: {containerName: info}} for a pod-bearing resource."""
    if not isinstance(resource, dict):
        return {}
    if resource.get("kind") not in (
        "Pod",
        "CronJob",
        "Deployment",
        "DaemonSet",
        "StatefulSet",
        "Job",
        "ReplicaSet",
        "ReplicationController",
    ):
        return {}
    spec, pointer = _pod_spec(resource)
    out: dict = {}
    if spec is None:
        return out
    for ctype in ("initContainers", "containers", "ephemeralContainers"):
        items = spec.get(ctype)
        if not isinstance(items, list):
            continue
        for i, c in enumerate(items):
            if not isinstance(c, dict) or not isinstance(c.get("image"), str):
                continue
            info = parse_image(c["image"])
            if info is None:
                continue
            info = dict(info)
            info["jsonPointer"] = f"{pointer}/{ctype}/{i}/image"
            out.setdefault(ctype, {})[str(c.get("name", ""))] = info
    return out
