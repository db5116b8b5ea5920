"""Document loading: multi-doc YAML with locations, Lists, broken YAML, and the role index."""

from __future__ import annotations

from evaluator.admission.documents import index_documents, load_documents, load_objects

TEXT = """\
# leading comment
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec: {}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team-a, labels: {env: prod}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: limits, namespace: team-a}
  data: {max: "3", since: 2024-01-01}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: viewer}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
"""


def test_documents_keep_index_and_start_line():
    documents, errors = load_documents(TEXT, "policies.yaml")
    assert errors == []
    assert [(d.kind, d.index, d.line, d.list_index) for d in documents] == [
        ("ValidatingAdmissionPolicy", 0, 2, None),
        ("ValidatingAdmissionPolicyBinding", 1, 8, None),
        ("Namespace", 2, 16, 0),  # list items carry their own line
        ("ConfigMap", 2, 19, 1),
        ("ClusterRole", 3, 24, None),
        ("CustomResourceDefinition", 4, 28, None),
    ]
    assert documents[0].location() == {"document": 0, "line": 2, "source": "policies.yaml"}
    # timestamps stay strings, as sigs.k8s.io/yaml reads them
    assert documents[3].data["data"]["since"] == "2024-01-01"


def test_index_sorts_by_role():
    documents, _ = load_documents(TEXT)
    index = index_documents(documents)
    assert [d.name for d in index.validating_policies] == ["p"]
    assert [d.name for d in index.validating_bindings] == ["b"]
    assert index.namespace("team-a")["metadata"]["labels"] == {"env": "prod"}
    assert index.namespace("ghost") is None
    assert [d.kind for d in index.rbac] == ["ClusterRole"]
    assert [d.kind for d in index.crds] == ["CustomResourceDefinition"]
    assert [d.name for d in index.objects_of_kind("v1", "ConfigMap")] == ["limits"]
    assert {d.kind for d in index.params} == {"Namespace", "ConfigMap"}


def test_broken_yaml_is_located_and_other_documents_still_load():
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [oops\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    )
    documents, errors = load_documents(text, "f.yaml")
    assert [d.name for d in documents] == ["a", "c"]
    assert len(errors) == 1
    error = errors[0]
    assert error.document == 1 and error.line is not None and error.line >= 6 and error.column is not None
    assert error.message.startswith("invalid YAML:")
    assert str(error).startswith("f.yaml:")


def test_an_integer_too_long_to_read_is_located_at_its_first_digit():
    """Python refuses to read more than 4,300 digits: the error names the number's line and column, and the
    other documents still load (before, it named only the document's first line)."""
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\nspec:\n  replicas: 1" + "0" * 5000 + "\n"
    )
    documents, errors = load_documents(text, "f.yaml")
    assert [d.name for d in documents] == ["a"]
    assert [(e.document, e.line, e.column) for e in errors] == [(1, 9, 13)]
    assert errors[0].message == "invalid YAML: an integer of 5,001 digits is too long to read (at most 4,300)"
    assert load_documents("kind: X\napiVersion: v1\nn: [0x1F, 1_000, -12, 1:20]\n")[0][0].data["n"] == [
        31,
        1000,
        -12,
        80,
    ]


def test_duplicate_keys_missing_type_and_non_objects():
    text = "apiVersion: v1\nkind: ConfigMap\nkind: Secret\n---\nmetadata: {name: x}\n---\n- 1\n- 2\n---\n"
    documents, errors = load_documents(text)
    assert documents == []
    assert [e.document for e in errors] == [0, 1, 2]
    assert errors[0].message == 'invalid YAML: mapping key "kind" already defined at line 2' and errors[0].line == 3
    assert errors[1].message == "error validating data: [apiVersion not set, kind not set]"
    assert errors[2].message == "document is not an object (got list)"


def test_typed_lists_fill_item_types_and_empty_input_is_fine():
    documents, errors = load_documents("apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata: {name: q}\n")
    assert errors == [] and documents[0].kind == "ConfigMap" and documents[0].api_version == "v1"
    assert load_documents("") == ([], [])
    assert load_documents("# only a comment\n---\n") == ([], [])
    assert load_documents(None)[1][0].message == "input is not text"


def test_json_input_and_parsed_objects():
    documents, errors = load_documents('{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}')
    assert errors == [] and documents[0].name == "n"
    documents, errors = load_objects(
        [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}, "junk", None]
    )
    assert [d.name for d in documents] == ["x"] and errors[0].document == 1 and errors[0].line is None


def test_later_documents_replace_earlier_ones_with_a_warning():
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: '1'}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: '2'}\n"
    )
    index = index_documents(load_documents(text)[0])
    assert [d.data["data"]["v"] for d in index.params] == ["2"]
    assert index.warnings and "replaces document 0" in index.warnings[0]["message"]


def test_field_paths_locate_lines_and_columns():
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  validations:
  - expression: "true"
  - expression: ""
    message: hi
"""
    documents, _ = load_documents("# c\n---\n" + text, "p.yaml")
    doc = documents[0]
    assert doc.line == 3
    assert doc.location("spec.validations[1].expression") == {
        "document": 0,
        "line": 10,
        "column": 5,
        "source": "p.yaml",
    }
    assert doc.location("spec.validations[1].message")["line"] == 11
    # a missing field points at its nearest parent
    assert doc.location("spec.failurePolicy") == {"document": 0, "line": 7, "column": 1, "source": "p.yaml"}
    assert doc.location("nothing.here") == {"document": 0, "line": 3, "source": "p.yaml"}
    list_doc = load_documents(TEXT)[0][3]
    assert list_doc.location("data.max") == {"document": 2, "line": 22, "column": 10, "item": 1}
    assert load_documents(text, positions=False)[0][0].positions is None


def test_positions_helpers():
    from evaluator.admission.positions import canonical_path, locate, split_path

    assert split_path("spec.validations[0].expression") == ["spec", "validations", "[0]", "expression"]
    # A bracketed map key (as Kubernetes writes CRD schema paths) is a name, so it finds the key's position.
    assert split_path("metadata.labels[app.kubernetes.io/name]") == ["metadata", "labels", "app.kubernetes.io/name"]
    assert canonical_path("spec.properties[spec].rules[0]") == "spec.properties.spec.rules[0]"
    assert locate({"metadata.labels.app.kubernetes.io/name": (4, 5)}, "metadata.labels[app.kubernetes.io/name]") == (
        4,
        5,
    )
    assert locate(None, "a") is None
    assert locate({"a": (1, 1), "a.b[0]": (2, 3)}, "a.b[0].c") == (2, 3)
