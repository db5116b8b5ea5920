"""Image references as go-containerregistry's `name.ParseReference` reads them (non-strict: default
registry index.docker.io, default tag latest), for Kyverno's `image()` CEL library."""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_REGISTRY = "index.docker.io"
DEFAULT_TAG = "latest"
_REPOSITORY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-./"
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class ImageRefError(ValueError):
    pass


@dataclass(frozen=True)
class ImageRef:
    cel_type_name = "kyverno.Image"

    registry: str
    repository: str
    tag: str = ""
    digest: str = ""

    @property
    def identifier(self) -> str:
        return self.digest or self.tag

    def __str__(self) -> str:
        base = f"{self.registry}/{self.repository}"
        return f"{base}@{self.digest}" if self.digest else f"{base}:{self.tag}"


def _repository(name: str) -> tuple[str, str]:
    if not name:
        raise ImageRefError("a repository name must be specified")
    registry, repository = DEFAULT_REGISTRY, name
    parts = name.split("/", 1)
    if len(parts) == 2 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry, repository = parts
    if registry == "docker.io":
        registry = DEFAULT_REGISTRY
    if any(c not in _REPOSITORY_CHARS for c in repository) or not repository:
        raise ImageRefError(f"repository can only contain the characters `{_REPOSITORY_CHARS}`: {repository}")
    if registry == DEFAULT_REGISTRY and "/" not in repository:
        repository = "library/" + repository
    return registry, repository


def _tag(name: str) -> ImageRef:
    base, tag = name, ""
    parts = name.split(":")
    if len(parts) > 1 and "/" not in parts[-1]:
        base, tag = ":".join(parts[:-1]), parts[-1]
    if not tag:
        tag = DEFAULT_TAG
    if not _TAG.match(tag):
        raise ImageRefError(f"tag can only contain the characters `a-zA-Z0-9_-.`: {tag}")
    registry, repository = _repository(base)
    return ImageRef(registry, repository, tag=tag)


def _digest(name: str) -> ImageRef:
    parts = name.split("@")
    if len(parts) != 2:
        raise ImageRefError(
            f"a digest must contain exactly one '@' separator (e.g. registry/repository@digest) saw: {name}"
        )
    base, digest = parts
    if not _DIGEST.match(digest):
        raise ImageRefError(f"digest must be of the form sha256:<64 hex digits>: {digest}")
    try:  # a tag before the digest is allowed and ignored: a Digest reference has no tag
        tagged = _tag(base)
        registry, repository = tagged.registry, tagged.repository
    except ImageRefError:
        registry, repository = _repository(base)
    return ImageRef(registry, repository, digest=digest)


def parse_reference(text: str) -> ImageRef:
    try:
        return _tag(text)
    except ImageRefError:
        pass
    try:
        return _digest(text)
    except ImageRefError:
        raise ImageRefError(f"could not parse reference: {text}") from None
