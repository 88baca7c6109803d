"""Shared fixtures for pokejax's tests: one Showdown bridge per session."""

from __future__ import annotations

import pytest

from pokejax.reference import ShowdownBridge


@pytest.fixture(scope="session")
def showdown():
    with ShowdownBridge() as bridge:
        yield bridge
