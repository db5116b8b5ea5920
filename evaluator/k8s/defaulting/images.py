"""A container's default imagePullPolicy from its image reference (pkg/util/parsers.ParseImageName).

The reference is parsed with the container-image grammar (distribution/reference): a reference without
tag or digest has the tag "latest"; a tag of "latest" pulls Always, anything else (another tag, a digest
alone, or a reference that does not parse) IfNotPresent.
"""

from __future__ import annotations

import functools
import re

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"(?P<name>{_NAME})(?::(?P<tag>{_TAG}))?(?:@(?P<digest>{_DIGEST}))?")
_NAME_TOTAL_LENGTH_MAX = 255


def image_tag(image: object) -> str:
    """The tag the kubelet would pull: "" when the reference does not parse or has only a digest."""
    if not isinstance(image, str):
        return ""
    return _tag_of(str(image))


@functools.lru_cache(maxsize=4096)
def _tag_of(image: str) -> str:
    """image_tag of a string, remembered: a cluster runs few distinct images."""
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match.group("name")) > _NAME_TOTAL_LENGTH_MAX:
        return ""
    tag, digest = match.group("tag"), match.group("digest")
    if not tag and not digest:
        return "latest"
    return tag or ""


def default_pull_policy(image: object) -> str:
    if type(image) is str:  # every container's: one cached call
        return _pull_policy_of(image)
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


@functools.lru_cache(maxsize=4096)
def _pull_policy_of(image: str) -> str:
    return "Always" if _tag_of(image) == "latest" else "IfNotPresent"
