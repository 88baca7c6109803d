"""Fixtures of the Gen 9 tests: one Gen 9 Showdown bridge per session."""

from __future__ import annotations

import pytest

from pokejax.gen9.reference import Gen9Bridge


@pytest.fixture(scope="session")
def showdown9():
    with Gen9Bridge() as bridge:
        yield bridge

