"""Type checks remembered per policy: an edit to one policy of a project re-checks that one, not all of them.

A policy's type check depends only on its spec's expressions and the types they are checked against (the
spec less each validation's static `message` and `reason`, which nothing compiles), the
CustomResourceDefinitions among the documents (they type custom kinds) and the release simulated, so those
are the key: typing a message or renaming the policy checks nothing again. What is kept is the check before
its diagnostics are located in the text (that depends on where the policy sits), and each caller gets a
copy to locate.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.cel.memo import RecentMemo, exact_key
from evaluator.cel.versions import active_version
from evaluator.k8s import schemas
from evaluator.typechecking.policy import typecheck

_CHECKS: RecentMemo[dict] = RecentMemo(512)
_UNCOMPILED = frozenset({"message", "reason"})  # a validation's fields the check never reads


def remembered_typecheck(policy: Mapping[str, Any], documents: Sequence[Any] = ()) -> dict:
    """`typecheck(policy, documents)`, computed once per policy, CRDs and release."""
    crds = [d for d in documents if isinstance(d, Mapping) and schemas.is_crd(d)]
    # what the check reads of the policy, and the CRDs: their schemas are big, and a check against them is
    # what most deserves remembering (512 entries)
    read = exact_key([_checked(policy), crds], max_bytes=1024 * 1024)
    key = None if read is None else (read, active_version())
    return copy.deepcopy(_CHECKS.remember(key, lambda: typecheck(policy, documents)))


def _checked(policy: Any) -> Any:
    """The part of a policy `typecheck` reads: its spec, each validation without its static message and reason."""
    spec = policy.get("spec") if isinstance(policy, Mapping) else None
    validations = spec.get("validations") if isinstance(spec, Mapping) else None
    if not isinstance(validations, list):
        return spec
    return {
        **spec,
        "validations": [
            {k: v for k, v in item.items() if k not in _UNCOMPILED} if isinstance(item, Mapping) else item
            for item in validations
        ],
    }
