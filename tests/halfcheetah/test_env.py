"""The env contract: conformance, registration, task definition details, precision modes, render."""

from __future__ import annotations

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from cheetahjax.env import HalfCheetah
from cheetahjax.render import render_state
from paritygym.testing import check_env


def test_conformance():
    report = check_env("HalfCheetah-v0")
    assert len(report.checks) >= 5


def test_make_and_spaces_match_gymnasium():
    env, params = paritygym.make("HalfCheetah-v0")
    assert isinstance(env, HalfCheetah)
    reference = gymnasium.spec("HalfCheetah-v5")
    assert params.max_steps_in_episode == reference.max_episode_steps == 1000
    assert env.observation_space(params).shape == (17,)
    space = env.action_space(params)
    assert space.shape == (6,) and np.all(np.asarray(space.low) == -1.0) and np.all(np.asarray(space.high) == 1.0)


def test_reset_distribution():
    env, params = paritygym.make("HalfCheetah-v0")
    keys = jax.random.split(jax.random.key(0), 4096)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    qpos, qvel = np.asarray(states.physics.qpos), np.asarray(states.physics.qvel)
    assert np.all(np.abs(qpos - env.model.qpos0) <= 0.1) and abs(qpos.std() - 0.1 / np.sqrt(3)) < 0.005
    assert abs(qvel.mean()) < 0.01 and abs(qvel.std() - 0.1) < 0.005
    assert np.all(np.asarray(states.physics.qacc_warmstart) == 0)


def test_truncation_and_no_termination():
    env, params = paritygym.make("HalfCheetah-v0", max_steps_in_episode=3)
    step = jax.jit(env.step)
    key = jax.random.key(1)
    _, state = env.reset(key, params)
    flags = []
    for t in range(4):
        _, state, reward, terminated, truncated, info = step(jax.random.key(t), state, jnp.zeros(6), params)
        flags.append((bool(terminated), bool(truncated)))
    assert flags == [(False, False), (False, False), (False, True), (False, False)]


def test_non_finite_action_is_zero_action():
    env, params = paritygym.make("HalfCheetah-v0")
    step = jax.jit(env.step_env)
    _, state = env.reset(jax.random.key(2), params)
    bad = step(jax.random.key(0), state, jnp.array([np.nan, 0, 0, 0, 0, np.inf], jnp.float32), params)
    zero = step(jax.random.key(0), state, jnp.zeros(6, jnp.float32), params)
    for a, b in zip(jax.tree.leaves(bad[:3]), jax.tree.leaves(zero[:3])):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_float64_mode_requires_x64_and_runs_with_it():
    env, params = paritygym.make("HalfCheetah-v0", precision="float64")
    if not jax.config.jax_enable_x64:
        with pytest.raises(RuntimeError, match="jax_enable_x64"):
            env.reset(jax.random.key(0), params)
    with jax.enable_x64(True):
        obs, state = env.reset(jax.random.key(0), params)
        assert obs.dtype == jnp.float64 and env.observation_space(params).dtype == jnp.float64


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="precision"):
        HalfCheetah(precision="float16")
    with pytest.raises(ValueError, match="frame_skip"):
        HalfCheetah(frame_skip=0)


def test_render_side_view():
    env, params = paritygym.make("HalfCheetah-v0")
    _, state = env.reset(jax.random.key(0), params)
    frame = render_state(jax.device_get(state), params)
    assert frame.shape == (480, 480, 3) and frame.dtype == np.uint8
    body = np.array(env.model.geom_rgba[1][:3]) * 255
    # The torso colour appears near the image centre (the camera follows the torso).
    centre = frame[180:300, 120:360].reshape(-1, 3).astype(float)
    assert np.min(np.abs(centre - body).sum(axis=1)) < 60
    # The floor (checkered band) fills the bottom rows.
    assert np.ptp(frame[-10:].reshape(-1, 3).mean(axis=1)) > 5
