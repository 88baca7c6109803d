"""Fixtures shared by the tcgjax tests: the JAX engine is compiled once per session (one batched,
scanned program that every parity test reuses)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the rule ids of docs/tcg/rules.md (or card effect kinds) a test checks")


@pytest.fixture(scope="session")
def runner():
    from tcgjax.verify import JaxBatchRunner
    return JaxBatchRunner(batch=16, chunk=64)


@pytest.fixture(scope="session")
def db():
    from tcgjax.cards import load_cards
    return load_cards()
