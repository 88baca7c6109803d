"""Pong-v0 through the public API: registry, conformance checker, vector API, options."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym.testing import check_env
from pongjax.env import Pong


@pytest.mark.parametrize("kwargs", [{}, {"frame_skip": 4}, {"continuous": True}, {"corrected": True}], ids=str)
def test_conformance(kwargs):
    report = check_env("Pong-v0", **kwargs)
    assert report.episodes_ended > 0


def test_make_splits_static_options_from_params():
    env, params = paritygym.make("Pong-v0", frame_skip=4, paddle_speed=6.0)
    assert isinstance(env, Pong) and env.frame_skip == 4
    assert params.paddle_speed == 6.0
    with pytest.raises(TypeError, match=r"no option \['paddle_sped'\].*'frame_skip'.*'paddle_speed'"):
        paritygym.make("Pong-v0", paddle_sped=6.0)


def test_frameskip_is_a_deprecated_name_of_frame_skip():
    with pytest.warns(DeprecationWarning, match="'frameskip' is deprecated, use 'frame_skip'"):
        env, _ = paritygym.make("Pong-v0", frameskip=4)
    assert env.frame_skip == 4
    with pytest.warns(DeprecationWarning, match="frameskip"):
        assert Pong(frameskip=3).frame_skip == 3
    with pytest.raises(TypeError, match="give 'frame_skip' only"):
        paritygym.make("Pong-v0", frameskip=4, frame_skip=4)


@pytest.mark.parametrize("bad,exc", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_bad_frame_skip_is_refused(bad, exc):
    with pytest.raises(exc, match="frame_skip"):
        Pong(frame_skip=bad)


@pytest.mark.parametrize("option", ["continuous", "corrected"])
def test_bool_options_take_bools_only(option):
    with pytest.raises(TypeError, match=option):
        paritygym.make("Pong-v0", **{option: "yes"})


@pytest.mark.parametrize("kwargs,exc", [
    (dict(max_steps_in_episode=-5), ValueError), (dict(max_steps_in_episode=0), ValueError),
    (dict(max_score="a"), TypeError), (dict(max_score=0), ValueError), (dict(width=float("nan")), ValueError),
    (dict(paddle_speed=True), TypeError), (dict(max_steps_in_episode=2**31), ValueError),
])
def test_bad_params_are_refused_by_make(kwargs, exc):
    (name,) = kwargs
    with pytest.raises(exc, match=f"Pong-v0: param {name} must be"):
        paritygym.make("Pong-v0", **kwargs)


def test_float_actions_are_refused_when_the_step_is_traced():
    env, params = paritygym.make("Pong-v0")
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    for bad in (jnp.float32(2.7), jnp.float32(jnp.nan), 2.7, True):
        with pytest.raises(TypeError, match="integer dtype"):
            jax.jit(env.step)(key, state, bad, params)
    for good in (2, jnp.int32(2), np.uint8(2)):
        jax.eval_shape(env.step, key, state, good, params)


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
