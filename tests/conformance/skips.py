"""Every deliberate skip of a conformance case, with its reason. Nothing else in tests/ skips cases."""

# cel-spec files that the Kubernetes CEL environment does not enable (see the README of
# tests/data/conformance/cel-spec): each of their tests is reported as skipped with this reason.
CEL_SPEC_FILES_NOT_IN_KUBERNETES = {
    "math_ext": "ext.Math is not in the Kubernetes base environment",
    "encoders_ext": "ext.Encoders (base64) is not in the Kubernetes base environment",
    "bindings_ext": "ext.Bindings (cel.bind) is not in the Kubernetes base environment",
    "block_ext": "cel.block is an optimiser-internal form, not in the Kubernetes base environment",
    "dynamic": "protobuf messages only",
    "enums": "protobuf messages only",
    "proto2": "protobuf messages only",
    "proto2_ext": "protobuf messages only",
    "proto3": "protobuf messages only",
    "wrappers": "protobuf messages only",
    "unknowns": "no tests",
}

# Reasons for skipping individual kinds of cel-spec tests.
NEEDS_PROTOBUF = "uses protobuf messages, which Kubernetes CEL does not have"

# Individual cel-spec tests: "file/section/test" -> reason.
_IPV4_MAPPED = (
    "Kubernetes' IP library rejects IPv4-mapped IPv6 addresses (ip.go: 'IPv4-mapped IPv6 address ... is "
    "not allowed'), where cel-go's network extension accepts them"
)
_REPEATED_KEY = (
    "cel-go skips it too (conformance/BUILD.bazel): its map literal keeps a repeated key's last value "
    "(interpreter evalMap) and holds 0 and 0u as two keys, where cel-spec wants 'Failed with repeated key'; "
    "Kubernetes runs cel-go, and so do we"
)
CEL_SPEC_TESTS: dict[str, str] = {
    # cel-spec's string_ext.json follows ext.Strings version 4 and runs against a registry of that version
    # (strings_registry(4)); what is left:
    "string_ext/value_errors/indexof_out_of_range": "cel-go skips it too: current cel-go returns -1 for an offset "
    "past the end",
    "string_ext/value_errors/lastindexof_out_of_range": "cel-go skips it too: current cel-go returns -1 for an "
    "offset past the end",
    "type_deduction/legacy_nullable_types/null_assignable_to_abstract_parameter_candidate": "cel-go skips it too "
    "(conformance/BUILD.bazel): its joinTypes keeps the later, nullable type, so `[optional.of(1), null][0]` is "
    "deduced `null`, and so is ours",
    "fields/qualified_identifier_resolution/map_value_repeat_key": _REPEATED_KEY,
    "fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous": _REPEATED_KEY,
    "network_ext/ipv4/ipv4_equals_ipv6": _IPV4_MAPPED,
    "network_ext/ipv4/ipv4_not_equals_ipv6": _IPV4_MAPPED,
}

# k8s-cel-library cases by id -> reason.
K8S_CEL_LIBRARY: dict[str, str] = {}

# Kyverno JMESPath function cases (tests/data/conformance/kyverno-jmespath) by "<Go test>/<line number>" -> reason.
KYVERNO_JMESPATH: dict[str, str] = {}
