"""Which admission-policy API versions a Kubernetes release serves (by default, without feature gates).

ValidatingAdmissionPolicy: v1beta1 from 1.28, v1 from 1.30 (v1alpha1 is not checked: it was behind a gate
throughout). MutatingAdmissionPolicy: v1alpha1 from 1.32 (alpha, behind a gate), v1beta1 from 1.34, v1 from
1.36. A document of a version the release does not serve is refused as kubectl reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_GROUP = "admissionregistration.k8s.io"
_INTRODUCED = {
    ("ValidatingAdmissionPolicy", "v1beta1"): 28,
    ("ValidatingAdmissionPolicy", "v1"): 30,
    ("MutatingAdmissionPolicy", "v1alpha1"): 32,
    ("MutatingAdmissionPolicy", "v1beta1"): 34,
    ("MutatingAdmissionPolicy", "v1"): 36,
}


def unserved_reason(document: Mapping[str, Any], version: str) -> str | None:
    """kubectl's "no matches for kind" text when release `version` ("1.31") does not serve the document's
    admission-policy API version; None when it does (or the document is something else)."""
    api_version, kind = document.get("apiVersion"), str(document.get("kind") or "")
    if not isinstance(api_version, str) or not api_version.startswith(_GROUP + "/"):
        return None
    policy_kind = kind.removesuffix("Binding")
    introduced = _INTRODUCED.get((policy_kind, api_version.split("/", 1)[1]))
    if introduced is None or int(version.split(".")[1]) >= introduced:
        return None
    return (
        f'no matches for kind "{kind}" in version "{api_version}": Kubernetes {version} does not serve it '
        f"(from 1.{introduced}); ensure CRDs are installed first"
    )
