"""Every function library of the Kubernetes CEL environment; importing this package registers them."""
from importlib import import_module

_MODULES = ["stdlib", "optional", "quantity", "semver", "urls", "ip", "cidr", "format"]
# Libraries written alongside; each registers its overloads on import.
_OPTIONAL_MODULES = ["strings", "lists", "sets", "regex", "authz"]

for _name in _MODULES:
    import_module(f"{__name__}.{_name}")
for _name in _OPTIONAL_MODULES:
    try:
        import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _e:  # pragma: no cover - only while a library is being written
        if _e.name != f"{__name__}.{_name}":
            raise
