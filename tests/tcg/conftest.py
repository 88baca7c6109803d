"""Fixtures shared by the tcgjax tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the rule ids of docs/tcg/rules.md (or card effect kinds) a test checks")
