"""The version of measurefirst (the same as pyproject.toml's; tests/test_public_api.py checks that they agree)."""

__version__ = "0.1.0"
