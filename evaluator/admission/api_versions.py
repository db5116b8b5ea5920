"""apiVersion split the way Kyverno's lookups split it: at the first slash, without ParseGroupVersion's
error for a second one (so "a/b/c" names group "a", version "b/c", and a lookup reports it not found)."""

from __future__ import annotations


def split_api_version(api_version: str) -> tuple[str, str]:
    """(group, version); a version alone is the core group."""
    group, slash, version = api_version.partition("/")
    return (group, version) if slash else ("", api_version)
