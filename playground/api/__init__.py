"""The JSON API (DRF). Every error leaves it in one shape: {"error": {code, message, line, column}}."""
