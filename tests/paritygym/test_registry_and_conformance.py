"""The registry, make/make_vec and the conformance checker, on toy envs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import paritygym
from paritygym.testing import ConformanceError, check_env


def test_registered_ids_are_versioned_and_sorted():
    ids = paritygym.registered_envs()
    assert ids == sorted(ids) and "Pong-v0" in ids
    assert all("-v" in i for i in ids)


@pytest.mark.parametrize("bad", ["Pong", "pong-v", "Pong-v0x", "1Pong-v0"])
def test_malformed_ids_are_refused(bad):
    with pytest.raises(ValueError):
        paritygym.register(bad, "x:y")


def test_duplicate_ids_are_refused():
    with pytest.raises(ValueError, match="already registered"):
        paritygym.register("Pong-v0", "pongjax.env:Pong")


def test_unknown_id_suggests_the_registered_version():
    with pytest.raises(KeyError, match="Did you mean 'Pong-v0'"):
        paritygym.make("Pong-v9")


def test_make_routes_kwargs_to_constructor_or_params():
    env, params = paritygym.make("ToyCounter-v0", noisy_start=False, goal=3)
    assert env.noisy_start is False and params.goal == 3


@pytest.mark.parametrize("num_envs,seed", [(0, 0), (-1, 0), (2.5, 0), (2, -1), (2, 1.5)])
def test_make_vec_refuses_bad_sizes_and_seeds(num_envs, seed):
    with pytest.raises(ValueError):
        paritygym.make_vec("ToyCounter-v0", num_envs=num_envs, seed=seed)


def test_make_checks_params_and_the_vector_env_checks_hand_made_ones():
    from paritygym.vector import JaxVectorEnv

    with pytest.raises(ValueError, match=r"ToyCounter-v0: param max_steps_in_episode must be an int >= 1"):
        paritygym.make("ToyCounter-v0", max_steps_in_episode=-5)
    with pytest.raises(TypeError, match="param goal must be an int"):
        paritygym.make("ToyCounter-v0", goal=2.5)
    env, params = paritygym.make("ToyCounter-v0")
    with pytest.raises(ValueError, match="max_steps_in_episode"):
        JaxVectorEnv(env, params.replace(max_steps_in_episode=0), num_envs=2)


def test_options_lists_static_options_and_params_with_defaults():
    assert paritygym.options("ToyCounter-v0") == {"static options": {"noisy_start": True},
                                                  "params": {"goal": 5, "max_steps_in_episode": 50}}


def test_toy_env_passes_conformance():
    report = check_env("ToyCounter-v0")
    assert report.episodes_ended > 0
    assert len(report.checks) >= 6


@pytest.mark.parametrize(
    "env_id,message",
    [
        ("ToyWrongDtype-v0", "dtype"),
        ("ToyOutOfBounds-v0", "bounds"),
        ("ToyNan-v0", "non-finite"),
        ("ToyNeverTruncates-v0", "truncation"),
        ("ToyLooseOption-v0", "static option noisy_start='yes'"),
        ("ToyUnboundedLimit-v0", "param max_steps_in_episode=0"),
        ("ToyFloatActions-v0", "float32 2.7 action"),
    ],
)
def test_conformance_catches_broken_envs(env_id, message):
    with pytest.raises(ConformanceError, match=message):
        check_env(env_id)


def test_vector_env_is_a_gymnasium_vector_env_with_same_step_autoreset():
    venv = paritygym.make_vec("ToyCounter-v0", num_envs=4, seed=0, noisy_start=False, goal=2)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = venv.reset()
    venv.step(np.ones(4, np.int32))
    obs, reward, terminated, truncated, info = venv.step(np.ones(4, np.int32))
    assert terminated.all() and (reward == 1).all()
    assert (info["final_obs"][:, 0] == 2).all()  # the episode's last observation
    assert (obs[:, 0] == 0).all()  # already the next episode's first


def test_vector_env_same_seed_same_trajectory():
    def run(seed):
        venv = paritygym.make_vec("ToyCounter-v0", num_envs=5, seed=seed)
        obs = [venv.reset()[0]]
        rng = np.random.default_rng(0)
        for _ in range(20):
            obs.append(venv.step(rng.integers(0, 2, 5).astype(np.int32))[0])
        return np.stack(obs)

    assert np.array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_every_registered_env_has_a_conformance_test():
    """Each env's own test folder runs check_env on it (compiled once there, not again here)."""
    from pathlib import Path

    sources = [p.read_text() for p in Path(__file__).parents[1].rglob("test_*.py")]
    checked = {env_id for env_id in paritygym.registered_envs()
               if any("check_env" in s and f'"{env_id}"' in s for s in sources)}
    missing = [i for i in paritygym.registered_envs() if not i.startswith("Toy") and i not in checked]
    assert not missing, f"registered envs without a check_env test: {missing}"
