"""The GeneratingPolicy side of one kyverno-test.yaml: its policies compiled once (with the test's CEL
PolicyExceptions) and run on a test resource as the CLI's policy processor does (an admission request built
like the ValidatingPolicy one, the context file and cluster resources answering resource.Get/List)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.cluster import name_of
from evaluator.policies.kyverno_vpol.cli_test import VpolTest, namespaced

from .engine import CompiledGeneratingPolicy, Generated, compile_policy, is_generating_policy, run


class GpolTest:
    def __init__(self, vpol: VpolTest):
        self.vpol = vpol
        docs = vpol.read(vpol.test.get("policies") or []) + vpol.read(vpol.test.get("exceptions") or [])
        exceptions = [d for d in docs if d.get("kind") == "PolicyException"]
        self.policies: dict[str, CompiledGeneratingPolicy] = {
            name_of(d): compile_policy(d, exceptions) for d in docs if is_generating_policy(d)
        }

    def _namespaced(self, api_version: str, kind: str) -> bool:
        return namespaced({"apiVersion": api_version, "kind": kind}, self.vpol.crd_scopes)

    def generate(
        self, policy: CompiledGeneratingPolicy, doc: Mapping[str, Any], result: Mapping[str, Any]
    ) -> Generated:
        obj = self.vpol.prepared(doc)
        return run(policy, self.vpol.inputs_for(obj, result), self._namespaced, cli=True)
