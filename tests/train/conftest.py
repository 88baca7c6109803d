from __future__ import annotations

import pytest

from ..toy_envs import register_toys


@pytest.fixture(scope="session", autouse=True)
def toy_envs():
    register_toys()
