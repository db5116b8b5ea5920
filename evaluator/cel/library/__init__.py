"""Every function library of the Kubernetes CEL environment; importing this package registers them."""

from importlib import import_module

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

for _name in _MODULES:
    import_module(f"{__name__}.{_name}")
