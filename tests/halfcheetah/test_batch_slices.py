"""The physics step runs a large batch as a loop over slices of environments (``planarjax.physics.step
._in_chunks``): 256 per slice in the CPU form, 8,192 in the accelerator form. Environments are
independent, so every slicing must give the same next states. Not bit for bit: XLA:CPU compiles each
slice width to kernels with their own summation order, so float32 results differ in the last bits
(and a chaotic rollout then drifts apart, as it does between a CPU and a TPU). What is checked here
is one agent step from states in contact with the floor, to float32 rounding: a slice padded, cut
or put back in the wrong place would be off by the whole state."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import paritygym
from paritygym.backend import forced_form
from planarjax.physics import step as physics_step

BATCH = 300      # two CPU-form slices, the second padded; one accelerator-form slice
WARMUP = 30      # agent steps of random play first, until the bodies touch the floor


def _batched(env, params):
    reset = jax.vmap(env.reset, in_axes=(0, None))
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))

    def actions(key):
        return jax.random.uniform(key, (BATCH, env.num_actions), minval=-1.0, maxval=1.0)

    return reset, step, actions


def _warm_states(env_id: str):
    env, params = paritygym.make(env_id)
    reset, step, actions = _batched(env, params)

    def run(key):
        _, state = reset(jax.random.split(key, BATCH), params)

        def one(state, k):
            return step(jax.random.split(k, BATCH), state, actions(k), params)[1], None

        return jax.lax.scan(one, state, jax.random.split(jax.random.key(1), WARMUP))[0]

    with forced_form("cpu"):
        return jax.jit(run)(jax.random.key(0))


def _one_step(env_id: str, state, form: str):
    env, params = paritygym.make(env_id)
    _, step, actions = _batched(env, params)
    key = jax.random.key(2)
    with forced_form(form):
        obs, _, reward = jax.jit(lambda s: step(jax.random.split(key, BATCH), s, actions(key), params)[:3])(state)
    return np.asarray(obs), np.asarray(reward)


@pytest.mark.parametrize("env_id", ["HalfCheetah-v0", "Climb-v0"])
def test_every_slicing_gives_the_same_next_states(env_id, monkeypatch):
    state = _warm_states(env_id)
    cpu_obs, cpu_reward = _one_step(env_id, state, "cpu")
    accelerator = _one_step(env_id, state, "accelerator")
    monkeypatch.setattr(physics_step, "CPU_BATCH_CHUNK", 7)   # read when the step is traced
    small_slices = _one_step(env_id, state, "cpu")
    scale = 1.0 + np.abs(cpu_obs).max(axis=0)
    for name, (obs, reward) in (("accelerator form", accelerator), ("slices of 7", small_slices)):
        np.testing.assert_array_less(np.abs(obs - cpu_obs) / scale, 1e-4, err_msg=name)
        np.testing.assert_allclose(reward, cpu_reward, rtol=1e-4, atol=1e-4, err_msg=name)
    assert np.isfinite(cpu_obs).all() and np.ptp(cpu_obs[:, 0]) > 0


def test_slice_sizes_by_form():
    assert physics_step.CPU_BATCH_CHUNK < BATCH <= physics_step.ACCELERATOR_BATCH_CHUNK
