"""Pong-v0 through the public API: registry, conformance checker, vector API, options."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import paritygym
from paritygym.testing import check_env
from pongjax.env import Pong


@pytest.mark.parametrize("kwargs", [{}, {"frameskip": 4}, {"continuous": True}, {"corrected": True}], ids=str)
def test_conformance(kwargs):
    report = check_env("Pong-v0", **kwargs)
    assert report.episodes_ended > 0


def test_make_splits_static_options_from_params():
    env, params = paritygym.make("Pong-v0", frameskip=4, paddle_speed=6.0)
    assert isinstance(env, Pong) and env.frameskip == 4
    assert params.paddle_speed == 6.0
    with pytest.raises(TypeError, match="no static option or parameter"):
        paritygym.make("Pong-v0", paddle_sped=6.0)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_frameskip_is_refused(bad):
    with pytest.raises(ValueError, match="frameskip"):
        Pong(frameskip=bad)


def test_out_of_range_discrete_action_is_stay_in_functional_api():
    env, params = paritygym.make("Pong-v0")
    obs, state = env.reset(jax.random.key(0), params)
    a = env.step(jax.random.key(1), state, 7, params)
    b = env.step(jax.random.key(1), state, 0, params)
    assert all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(a[1]), jax.tree.leaves(b[1])))


def test_vector_env_refuses_bad_actions_and_truncates_with_a_limit():
    venv = paritygym.make_vec("Pong-v0", num_envs=3, seed=1, max_steps_in_episode=5)
    obs, _ = venv.reset()
    assert obs.shape == (3, 8) and obs.dtype == np.float32
    with pytest.raises(ValueError, match="outside Discrete"):
        venv.step(np.array([0, 3, 1]))
    with pytest.raises(TypeError, match="integer dtype"):
        venv.step(np.array([0.0, 1.0, 1.0]))
    truncated = [venv.step(np.array([1, 2, 0]))[3] for _ in range(5)]
    assert not truncated[3].any() and truncated[4].all()
