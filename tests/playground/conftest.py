"""Fixtures for the playground tests."""

import pytest
from channels.layers import channel_layers


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel layer object for each test: every test runs on its own event loop, and channels-redis
    keeps loop-bound state (its receive lock) that a test stopped mid-receive would otherwise leave behind."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
