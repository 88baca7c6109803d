from __future__ import annotations

import pytest

import paritygym

TOY_IDS = {
    "ToyCounter-v0": "toy_envs:Counter",
    "ToyWrongDtype-v0": "toy_envs:WrongDtypeCounter",
    "ToyOutOfBounds-v0": "toy_envs:OutOfBoundsCounter",
    "ToyNan-v0": "toy_envs:NanCounter",
    "ToyNeverTruncates-v0": "toy_envs:NeverTruncates",
    "ToyNim-v0": "toy_envs:NimEnv",
}


@pytest.fixture(scope="session", autouse=True)
def toy_envs():
    for env_id, entry in TOY_IDS.items():
        paritygym.register(env_id, entry, reference="none (test toy)")
    yield
    for env_id in TOY_IDS:
        paritygym.deregister(env_id)
