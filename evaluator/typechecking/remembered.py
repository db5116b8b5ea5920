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
import pickle
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.cel.memo import RecentMemo
from evaluator.cel.versions import active_version
from evaluator.k8s import schemas
from evaluator.typechecking.policy import typecheck

_CHECKS: RecentMemo[dict] = RecentMemo(512)
_UNCOMPILED = frozenset({"message", "reason"})  # a validation's fields the check never reads


def remembered_typecheck(policy: Mapping[str, Any], documents: Sequence[Any] = ()) -> dict:
    """`typecheck(policy, documents)`, computed once per policy, CRDs and release."""
    key = _key(policy, documents)
    if key is None:
        return typecheck(policy, documents)
    found = _CHECKS.find(key)
    if found is None:
        found = _CHECKS.keep(key, typecheck(policy, documents))
    return copy.deepcopy(found)


def _key(policy: Mapping[str, Any], documents: Sequence[Any]) -> tuple | None:
    """What the check reads of the policy and its CRDs, pickled (exact: key order, NaN, -0.0, int against
    float all tell apart), with the release; None for what cannot be pickled (the check then runs every time)."""
    crds = [d for d in documents if isinstance(d, Mapping) and schemas.is_crd(d)]
    try:
        return (pickle.dumps([_checked(policy), crds], protocol=pickle.HIGHEST_PROTOCOL), active_version())
    except Exception:  # an object pickle refuses: checked each time, never wrongly shared
        return None


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
