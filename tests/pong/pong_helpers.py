"""Shared helpers for the Pong tests (a uniquely named module: every test folder shares one import namespace): one compiled step per configuration, and state injection
into both our env and the C reference."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from pongjax import game
from pongjax.env import Pong
from pongjax.reference import STATE_FIELDS, CPong

LO, HI = -35.0, 605.0  # paddle range for the default court


@functools.lru_cache(maxsize=None)
def jax_step(frameskip: int = 1, continuous: bool = False, corrected: bool = False):
    """A compiled single-env step taking (state_dict, action, bit) -> (state_dict, reward, terminal)."""
    env = Pong(frame_skip=frameskip, continuous=continuous, corrected=corrected)
    params = env.default_params

    def run(fields, action, bit):
        s = game.PongState(**fields)
        direction = game.paddle_direction(action, continuous)
        s, reward, terminal, last_obs = game.step(s, direction, bit, params, frameskip, corrected)
        return {k: getattr(s, k) for k in STATE_FIELDS}, reward, terminal, last_obs

    return jax.jit(run)


def to_jax_fields(state: dict) -> dict:
    out = {}
    for k in STATE_FIELDS:
        v = np.asarray(state[k])
        out[k] = jnp.asarray(v, jnp.int32 if k in ("score_l", "score_r", "tick", "n_bounces") else jnp.float32)
    return out


def step_both(state: dict, action, bit: int, frameskip: int = 1, continuous: bool = False, corrected: bool = False):
    """Steps the same injected state in our engine and the C reference; returns both results."""
    ours_state, reward, terminal, _ = jax.device_get(
        jax_step(frameskip, continuous, corrected)(to_jax_fields(state), jnp.asarray(action), jnp.uint8(bit))
    )
    ref = CPong(1, frameskip=frameskip, continuous=continuous, corrected=corrected)
    ref.set_state(state)
    _, ref_reward, ref_terminal = ref.step(np.array([action], np.float32).reshape(1), np.array([bit], np.uint8))
    ours = {k: np.asarray(v) for k, v in ours_state.items()} | {"reward": np.float32(reward), "terminated": bool(terminal)}
    theirs = ref.get_state(0) | {"reward": ref_reward[0], "terminated": bool(ref_terminal[0])}
    return ours, theirs


def assert_same(ours: dict, theirs: dict) -> None:
    """Every field identical (floats bit for bit; +0.0 == -0.0)."""
    for k in ours:
        a, b = np.asarray(ours[k]), np.asarray(theirs[k])
        assert np.array_equal(a.astype(np.float64), b.astype(np.float64)), f"{k}: ours={a} reference={b}"


def make_state(**overrides) -> dict:
    """A mid-rally state with the default court, fields overridable; obs computed by our engine."""
    base = dict(
        paddle_yl=285.0, paddle_yr=285.0, ball_x=250.0, ball_y=304.0, ball_vx=10.0, ball_vy=-1.0,
        score_l=0, score_r=0, tick=5, n_bounces=0, obs=np.zeros(8, np.float32),
    )  # fmt: skip
    base.update(overrides)
    s = game.PongState(**to_jax_fields(base))
    base["obs"] = np.asarray(game.observe(s, game.PongParams(), corrected=False))
    return base
