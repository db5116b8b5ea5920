"""Edit tokens, project ids and content ids (playground/core/tokens.py)."""

import pytest

from playground.models import Project
from playground.services import project_service
from playground.core import tokens


def test_tokens_are_hashed_and_compared():
    token = tokens.new_token()
    stored = tokens.hash_token(token)
    assert stored != token and len(stored) == 64
    assert tokens.token_matches(token, stored)
    assert not tokens.token_matches(token + "x", stored)
    assert not tokens.token_matches(None, stored) and not tokens.token_matches("", stored)
    assert not tokens.token_matches(token, "")


def test_content_ids_are_short_and_stable():
    assert tokens.content_id(b"abc") == tokens.content_id(b"abc")
    assert tokens.content_id(b"abc") != tokens.content_id(b"abd")
    assert len(tokens.content_id(b"abc")) == 10


@pytest.mark.django_db
def test_project_ids_are_unguessable_and_tokens_never_stored():
    state, token = project_service.create_project("t")
    assert len(state["id"]) == 10
    assert not Project.objects.filter(edit_token_hash=token).exists()
