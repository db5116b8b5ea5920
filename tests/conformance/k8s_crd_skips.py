"""Cases of tests/data/conformance/k8s-crd we do not pass yet, each with the reason (reported as skips).

None today: every development case passes. A case added here must carry the exact reason it fails.
"""

KNOWN_GAPS: dict[str, str] = {}
