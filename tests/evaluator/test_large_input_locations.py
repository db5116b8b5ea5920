"""Large multi-document inputs: the request is chosen as `request_position` chooses it over every document
(though most are not read to choose it), and errors deep in a large input keep their exact line and column
(documents are located from their text only when an error needs it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.admission.documents import load_documents
from evaluator.cli import main
from evaluator.cli.simulate_command import _choose_request, request_position
from evaluator.cli.yaml_text import parse_documents, without_document


def config_map(i: int) -> str:
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{i}\n  namespace: ns-{i % 7}\ndata:\n  key: v{i}\n"
    )


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: deep
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  validations:
  - expression: "object.data.key == 'v1' && )"
"""
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata: {key: [1, 2}\n"


def test_an_error_in_document_40000_names_its_line_and_column(tmp_path: Path, capsys):
    documents = [config_map(i) for i in range(40_000)] + [POLICY, BROKEN, config_map(40_002)]
    text = "---\n".join(documents)
    (tmp_path / "big.yaml").write_text(text)
    lines = text.split("\n")
    expression_line = lines.index("  - expression: \"object.data.key == 'v1' && )\"")  # 0-based
    assert expression_line > 320_000
    assert main(["simulate", "-f", str(tmp_path / "big.yaml"), "-o", "json"]) == 2
    errors = json.loads(capsys.readouterr().out)["errors"]
    [compile_error] = [e for e in errors if e.get("path") == "spec.validations[0].expression"]
    assert (compile_error["source"], compile_error["yamlDocument"]) == (str(tmp_path / "big.yaml"), 40_000)
    assert compile_error["line"] == expression_line + 1
    assert lines[expression_line][compile_error["column"] - 1] == ")"
    [yaml_error] = [e for e in errors if "invalid YAML" in e["message"]]
    assert yaml_error["yamlDocument"] == 40_001
    broken_line = lines.index("  name: broken") + 1  # 0-based line of `data: {key: [1, 2}`
    assert lines[broken_line] == "data: {key: [1, 2}"
    assert (yaml_error["line"], yaml_error["column"]) == (broken_line + 1, 18)


def test_located_fields_are_those_of_a_reading_with_every_position_kept():
    text = "---\n".join([config_map(i) for i in range(50)] + [POLICY])
    documents, errors = load_documents(text, "big.yaml")
    assert not errors
    policy = documents[-1]
    assert policy._text is not None  # not located yet
    where = policy.location("spec.validations[0].expression")
    assert (where["line"], where["column"]) == (text.split("\n").index("  validations:") + 2, 5)
    assert policy._text is None and policy.positions["metadata.name"] == (text.split("\n").index("  name: deep") + 1, 3)
    assert policy.scalars["spec.validations[0].expression"].value == "object.data.key == 'v1' && )"


REVIEW = '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"operation": "CREATE"}}'
PARAM_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, paramRef: {name: config-3}}
"""
ESCAPED_REQUEST = '"op\\x65ration": CREATE\nobj: {}\n'
CASES = {
    "last plain object": [config_map(i) for i in range(5)],
    "an AdmissionReview in the middle": [config_map(0), REVIEW, config_map(1)],
    "a param named by a binding is skipped": [config_map(1), PARAM_BINDING, config_map(3)],
    "a key spelled with an escape": [config_map(1), ESCAPED_REQUEST, config_map(2)],
    "only cluster state": [POLICY, PARAM_BINDING],
    "a broken last document": [config_map(1), config_map(2), BROKEN],
}


@pytest.mark.parametrize("documents", CASES.values(), ids=CASES.keys())
def test_the_request_chosen_is_the_one_chosen_from_every_document(documents):
    files = [("a.yaml", "---\n".join(documents[:2])), ("b.yaml", "---\n".join(documents[2:]))]
    found = [
        (position, line, data)
        for position, (name, text) in enumerate(files)
        for line, data in parse_documents(text, name)[0]
    ]
    chosen = request_position([data for _, _, data in found])
    texts, request, name, problems = _choose_request(files)
    if chosen is None:
        assert request is None and name is None and texts == [text for _, text in files]
        assert problems == [p for n, t in files for p in parse_documents(t, n)[1]]
        return
    position, line, data = found[chosen]
    assert request == data and name == files[position][0] and problems == []
    assert texts[position] == without_document(files[position][1], line)
