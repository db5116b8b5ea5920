"""The README's promises hold: the two commands right under the title, and its API example answers as it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_the_two_commands_come_first_under_the_title():
    head = README.split("\n## ", 1)[0].splitlines()
    assert head[0] == "# Admission Playground"
    block = "\n".join(head[1:12])
    assert re.search(r"```sh\nmake run .*\nmake test .*\n```", block), block


@pytest.mark.django_db
def test_the_evaluate_example_is_denied_as_described(client):
    body = re.search(r"-d '(\{.*?\n\})'", README, re.S).group(1)
    response = client.post("/api/v1/evaluate", data=json.loads(body), content_type="application/json")
    assert response.status_code == 200
    [request] = response.json()["requests"]
    assert request["result"]["allowed"] is False
    assert request["result"]["status"]["message"] == (
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replicas' with binding 'replicas' "
        "denied request: failed expression: object.spec.replicas <= 5"
    )
