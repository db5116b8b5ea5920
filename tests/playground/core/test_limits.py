"""Size limits (playground/core/limits.py)."""

import pytest
from django.test import override_settings

from playground.core import limits
from playground.core.errors import ServiceError


@override_settings(PLAYGROUND_MAX_DOCUMENT_BYTES=10)
def test_limits_count_bytes_not_characters():
    limits.check_text("é" * 5)  # 10 bytes
    with pytest.raises(ServiceError) as info:
        limits.check_text("é" * 6)
    assert info.value.status == 413
