"""The env contract (conformance, registration, spaces, resets per section, termination at the
summit, truncation, bad actions, determinism) and the game's geometry read-outs vs MuJoCo."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

import paritygym
from climbjax import course, game
from climbjax.env import Climb
from climbjax.render import render_state
from paritygym.testing import check_env

from .helpers import new_mujoco, random_states


@pytest.fixture(scope="module")
def env_and_fns():
    env, params = paritygym.make("Climb-v0")
    return env, params, jax.jit(env.step), jax.jit(env.reset)


def test_conformance():
    report = check_env("Climb-v0")
    assert len(report.checks) >= 5


def test_make_and_spaces(env_and_fns):
    env, params, _, _ = env_and_fns
    assert isinstance(env, Climb) and env.name == "Climb-v0"
    assert env.observation_space(params).shape == (game.OBSERVATION.size,) == (24,)
    space = env.action_space(params)
    assert space.shape == (2,) and np.all(np.asarray(space.low) == -1) and np.all(np.asarray(space.high) == 1)
    assert abs(env.dt - 1 / 30) < 1e-7  # float32 timestep


def test_reset_places_the_pot_at_each_section(env_and_fns):
    env, params, _, reset = env_and_fns
    for section in range(course.NUM_SECTIONS):
        obs, state = reset(jax.random.key(section), params.replace(start_section=section))
        x, z = game.pot_position(state.physics.qpos)
        sx, sz = course.SECTION_STARTS[section]
        assert abs(float(x) - sx) <= params.start_x_noise + 1e-6 and abs(float(z) - sz) < 1e-6
        assert np.all(np.isfinite(np.asarray(obs)))
    keys = jax.random.split(jax.random.key(9), 64)
    _, states = jax.vmap(reset, in_axes=(0, None))(keys, params.replace(start_section=-1))
    starts = {int(np.argmin(np.abs(course.SECTION_STARTS[:, 0] - x))) for x in np.asarray(states.physics.qpos[:, 0])}
    assert starts == set(range(course.NUM_SECTIONS))


def test_summit_terminates_with_bonus(env_and_fns):
    env, params, step, reset = env_and_fns
    _, state = reset(jax.random.key(0), params)
    on_top = jnp.array([15.0, 3.85 - game.POT_Z_OFFSET, 0.0, -0.6, 0.3], jnp.float32)
    state = state.replace(physics=state.physics.replace(qpos=on_top))
    _, _, reward, terminated, truncated, info = step(jax.random.key(1), state, jnp.zeros(2), params)
    assert bool(terminated) and not bool(truncated) and float(reward) > params.summit_bonus - 1


def test_truncation(env_and_fns):
    env, params, step, reset = env_and_fns
    params = params.replace(max_steps_in_episode=3)
    _, state = reset(jax.random.key(1), params)
    flags = []
    for t in range(4):
        _, state, _, terminated, truncated, _ = step(jax.random.key(t), state, jnp.zeros(2), params)
        flags.append((bool(terminated), bool(truncated)))
    assert flags == [(False, False), (False, False), (False, True), (False, False)]


def test_bad_actions_are_defined(env_and_fns):
    env, params, _, reset = env_and_fns
    step_env = jax.jit(env.step_env)
    _, state = reset(jax.random.key(2), params)
    run = lambda a: jax.tree.leaves(step_env(jax.random.key(0), state, jnp.asarray(a, jnp.float32), params)[:3])
    for a, b in zip(run([np.nan, 0.3]), run([0.0, 0.0])):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    for a, b in zip(run([7.0, -3.0]), run([1.0, -1.0])):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_bad_constructor_arguments():
    with pytest.raises(ValueError):
        Climb(precision="float16")
    with pytest.raises(ValueError):
        Climb(solver_iterations=0)


def test_same_seed_same_trajectory(env_and_fns):
    env, params, step, reset = env_and_fns
    actions = np.random.default_rng(0).uniform(-1, 1, (20, 2)).astype(np.float32)

    def run():
        obs, state = reset(jax.random.key(5), params)
        out = [np.asarray(obs)]
        for t, a in enumerate(actions):
            obs, state, *_ = step(jax.random.key(100 + t), state, a, params)
            out.append(np.asarray(obs))
        return np.stack(out)

    assert np.array_equal(run(), run())


def test_head_offset_and_terrain_profile_match_mujoco():
    m, d = new_mujoco()
    head, pot = m.geom("head").id, m.body("pot").id
    for qpos, _, _ in random_states(seed=4, count=50):
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        dx, dz = game.head_offset(jnp.asarray(qpos))
        assert abs(float(dx) - (d.geom_xpos[head, 0] - d.xpos[pot, 0])) < 1e-5
        assert abs(float(dz) - (d.geom_xpos[head, 2] - d.xpos[pot, 2])) < 1e-5
    # Terrain: a ray cast straight down in MuJoCo from high above, at points across the course.
    profile = game.terrain_profile(Climb().model)
    geomid = np.zeros(1, np.int32)
    d.qpos[:] = [-100.0, 50.0, 0.0, 0.0, 0.0]  # the climber out of the way of the rays
    mujoco.mj_kinematics(m, d)
    for x in np.linspace(-2.4, 17.4, 120):
        dist = mujoco.mj_ray(m, d, np.array([x, 0.0, 20.0]), np.array([0.0, 0.0, -1.0]), None, 1, -1, geomid)
        ours = float(game.terrain_heights(profile, jnp.asarray(x)))
        assert abs((20.0 - dist) - ours) < 0.03, (x, 20.0 - dist, ours)


def test_render(env_and_fns):
    env, params, _, reset = env_and_fns
    _, state = reset(jax.random.key(0), params)
    frame = render_state(jax.device_get(state), params)
    assert frame.shape == (320, 480, 3) and frame.dtype == np.uint8
    moved = jax.device_get(state.replace(physics=state.physics.replace(qpos=state.physics.qpos.at[3].set(1.5))))
    assert not np.array_equal(frame, render_state(moved, params))
