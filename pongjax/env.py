"""`Pong-v0`: PufferLib 3.0 Pong as a gymnax environment (see docs/envs/pong.md)."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import environment, spaces

from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.random import key_word
from pongjax import game

INT32_MAX = 2**31 - 1


@struct.dataclass
class EnvState:
    game: game.PongState
    time: jax.Array  # agent steps in this episode (for truncation)


@struct.dataclass
class EnvParams(game.PongParams):
    # PufferLib has no time limit; set one (e.g. for training) to truncate long games.
    max_steps_in_episode: int = bounded(INT32_MAX, ge=1)


class Pong(environment.Environment):
    """PufferLib 3.0 Pong: the agent is the right paddle against a scripted left paddle.

    Args:
        frame_skip: frames per agent step (PufferLib's `frameskip`: 1 in pong.py, 4 in its
            training config). `frameskip` is its deprecated spelling.
        continuous: actions are one float in [-1, 1] (paddle direction) instead of 0/1/2.
        corrected: fix PufferLib 3.0's quirks (scores in the observation, fresh observation after
            a point). Off by default: the default reproduces 3.0 exactly.

    Discrete actions must have an integer dtype: a float action is a `TypeError` when the step is
    traced (it would otherwise be truncated: 2.7 -> 2, NaN -> 0).
    """

    def __init__(self, frame_skip: int = 1, continuous: bool = False, corrected: bool = False, *,
                 frameskip: int | None = None):
        super().__init__()
        if frameskip is not None:
            warnings.warn("Pong: option 'frameskip' is deprecated, use 'frame_skip'", DeprecationWarning, stacklevel=2)
            frame_skip = frameskip
        self.frame_skip = check_value("frame_skip", frame_skip, "int", ge=1)
        self.continuous = check_value("continuous", continuous, "bool")
        self.corrected = check_value("corrected", corrected, "bool")

    @property
    def default_params(self) -> EnvParams:
        return EnvParams()

    @property
    def name(self) -> str:
        return "Pong-v0"

    @property
    def num_actions(self) -> int:
        return 1 if self.continuous else 3

    def action_space(self, params: EnvParams | None = None) -> spaces.Space:
        if self.continuous:
            return spaces.Box(-1.0, 1.0, (1,), jnp.float32)
        return spaces.Discrete(3)

    def observation_space(self, params: EnvParams | None = None) -> spaces.Box:
        # PufferLib declares Box(0, 1), but the ball may overshoot the left edge or a wall by up to
        # one frame's travel before it bounces (no position clamp there), so ball x and y can be
        # slightly negative: -10/500 and -13/640 with the default court.
        low = jnp.array([0.0, 0.0, -0.025, -0.025, 0.0, 0.0, 0.0, 0.0], jnp.float32)
        return spaces.Box(low, 1.0, (8,), jnp.float32)

    @staticmethod
    def round_bit(key: jax.Array) -> jax.Array:
        """The one random bit an agent step may use (PufferLib's `rand() % 2` at a round start),
        hashed from the key's words: a Threefry call here would cost more than the game step."""
        return (key_word(key) & 1).astype(jnp.uint8)

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        s = game.new_game(params, self.round_bit(key))
        return s.obs, EnvState(game=s, time=jnp.int32(0))

    def step_env(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams):
        if not self.continuous:
            action = check_discrete_action(action, 3)  # at trace time: no cost when the step runs
        direction = game.paddle_direction(action, self.continuous)
        s, reward, terminal, last_obs = game.step(
            state.game, direction, self.round_bit(key), params, self.frame_skip, self.corrected
        )
        time = jnp.where(terminal, 0, state.time + 1)
        return s.obs, EnvState(game=s, time=time), reward, terminal, {"last_obs": last_obs}

    def step(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams | None = None):
        """As gymnax's step, except that a game's last point restarts the game inside the step
        (PufferLib's own autoreset, using the step's random bit); only truncation resets here,
        with the same bit (whatever the step did with it is discarded by the reset)."""
        if params is None:
            params = self.default_params
        obs, state, reward, terminated, info = self.step_env(key, state, action, params)
        truncated = (state.time >= params.max_steps_in_episode) & ~terminated
        obs_reset, state_reset = self.reset_env(key, params)
        state = jax.tree.map(lambda r, s: jnp.where(truncated, r, s), state_reset, state)
        final_obs = info.pop("last_obs")
        obs = jnp.where(truncated, obs_reset, obs)
        info = {**info, "terminated": terminated, "truncated": truncated, "final_observation": final_obs}
        return obs, state, reward, terminated, truncated, info

    def is_terminated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return jnp.bool_(False)  # the last point restarts the game within the step
