"""The policy kinds: one package per kind, each registering itself with the admission core.

`load_kinds()` imports every package in this folder, so a new kind is a new folder whose `__init__.py`
(directly or through a module it imports) calls `evaluator.admission.policy_kind.register`; nothing else
needs editing. The interface a kind implements is documented in `evaluator/admission/policy_kind.py`.
"""

from __future__ import annotations

import importlib
import pkgutil


def load_kinds() -> None:
    """Import every policy package (each registers its kinds); cheap after the first call."""
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")
