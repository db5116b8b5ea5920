"""Every function library of the Kubernetes CEL environment, each module imported when first needed.

A module registers its functions when imported. `declarations.json` says, per function name, which modules
declare it (an overload or a constant check) and the order in which importing them all at once registers
them: the registry (`registry.LibraryRegistry`) imports a name's modules when the name is first looked up
and keeps each name's overloads in that order, so a program resolves its calls as if every module had been
imported (and `names()` imports them all). A simulation of simple policies never imports the IP, URL,
format or quantity modules (cold start). After adding a library function, regenerate the file with
`python -m evaluator.cel.library.declarations --write` (a test compares).
"""

import json
from importlib import import_module
from pathlib import Path

from evaluator.cel.registry import REGISTRY

_MODULES = [
    "stdlib",
    "optional",
    "strings",
    "lists",
    "sets",
    "regex",
    "quantity",
    "semver",
    "urls",
    "ip",
    "cidr",
    "format",
    "authz",
    "jsonpatch",
]


def load_all() -> None:
    """Import every library module (in the order `declarations.json` was made in)."""
    for name in _MODULES:
        import_module(f"{__name__}.{name}")


def _defer() -> None:
    declared = json.loads((Path(__file__).parent / "declarations.json").read_text(encoding="utf-8"))
    full = {short: f"{__name__}.{short}" for short in declared["order"]}
    REGISTRY.defer(
        {name: [full[m] for m in modules] for name, modules in declared["names"].items()},
        list(full.values()),
        import_module,
    )


_defer()
