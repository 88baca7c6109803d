"""`HalfCheetah-v0`: Gymnasium's HalfCheetah-v5 task on the JAX planar physics engine
(see docs/envs/halfcheetah.md).

The dynamics are MuJoCo's (Euler with implicit damping, soft contacts and limits, Newton solver)
re-implemented in `planarjax.physics`; the task is Gymnasium's: 17 observations (qpos[1:],
qvel), reward = forward velocity - 0.1 * |action|^2, no termination, truncation at 1000 steps,
reset noise U(-0.1, 0.1) on qpos and 0.1 N(0, 1) on qvel.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from cheetahjax.data import half_cheetah_model
from paritygym.checks import bounded
from planarjax.env import PlanarPhysicsEnv
from planarjax.physics.model import PlanarModel
from planarjax.physics.step import PhysicsState



@struct.dataclass
class EnvState:
    physics: PhysicsState  # qpos (9,), qvel (9,), qacc_warmstart (9,)
    time: jax.Array        # agent steps in this episode (for truncation)


@struct.dataclass
class EnvParams:
    max_steps_in_episode: int = bounded(1000, ge=1)
    forward_reward_weight: float = 1.0
    ctrl_cost_weight: float = 0.1
    reset_noise_scale: float = bounded(0.1, ge=0)


class HalfCheetah(PlanarPhysicsEnv):
    """Gymnasium HalfCheetah-v5 on the JAX engine.

    Args:
        precision: "float32" (default, fast) or "float64" (needs ``jax.config.update(
            "jax_enable_x64", True)`` or ``with jax.enable_x64(True)`` when the env is used).
        frame_skip: physics steps (of 0.01 s) per agent step; Gymnasium uses 5.
        solver_iterations: cap on Newton iterations per physics step; None (default): the
            model's opt.iterations (100), as MuJoCo. The solver stops earlier: in float64 where
            MuJoCo's tolerance tests stop it, in float32 once its answer is exact.

    Actions: 6 motor commands, float32 (the action space); in float64 mode a float64 action is
    used unrounded, as Gymnasium passes it to MuJoCo. Like MuJoCo, values outside [-1, 1] are
    clamped by the actuators while the control cost uses the action as given. A non-finite action is treated as all
    zeros (MuJoCo zeroes the controls on a NaN; Gymnasium's reward would be NaN).
    """

    substeps_argument = "frame_skip"

    def __init__(self, precision: str = "float32", frame_skip: int = 5, solver_iterations: int | None = None,
                 model: PlanarModel | None = None):
        super().__init__(model or half_cheetah_model(), precision, frame_skip, solver_iterations)
        self.frame_skip = int(frame_skip)

    @property
    def default_params(self) -> EnvParams:
        return EnvParams()

    @property
    def name(self) -> str:
        return "HalfCheetah-v0"

    def observation_space(self, params: EnvParams | None = None) -> spaces.Box:
        return spaces.Box(-jnp.inf, jnp.inf, (self.model.nq - 1 + self.model.nv,), self.dtype)

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key: Any = None) -> jax.Array:
        return jnp.concatenate([state.physics.qpos[1:], state.physics.qvel])

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        self._check_precision()
        k_pos, k_vel = jax.random.split(key)
        noise = jnp.asarray(params.reset_noise_scale, self.dtype)
        qpos = jnp.asarray(self.model.qpos0, self.dtype) + jax.random.uniform(
            k_pos, (self.model.nq,), self.dtype, -noise, noise)
        qvel = noise * jax.random.normal(k_vel, (self.model.nv,), self.dtype)
        physics = PhysicsState(qpos=qpos, qvel=qvel, qacc_warmstart=jnp.zeros(self.model.nv, self.dtype))
        state = EnvState(physics=physics, time=jnp.int32(0))
        return self.get_obs(state), state

    def step_env(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams):
        self._check_precision()
        # Gymnasium writes the action into MuJoCo's float64 ctrl as given and prices it in its own
        # dtype: in float64 mode a float64 action is used unrounded; any other action is taken as
        # the action space's float32 (rounded, as Gymnasium would see a float32 action).
        action = jnp.asarray(action)
        wide_action = self.dtype == np.float64 and action.dtype == jnp.float64
        action = action.astype(jnp.float64 if wide_action else jnp.float32).reshape(self.model.nu)
        action = jnp.where(jnp.all(jnp.isfinite(action)), action, 0.0)
        physics, displacement = self._multi_step(state.physics, action.astype(self.dtype))
        x_velocity = displacement[0] / self.dt
        reward_forward = params.forward_reward_weight * x_velocity
        # Gymnasium squares and sums the action in its dtype, left to right; so do we, so that the
        # float64 reward matches to rounding rather than to float32's 1e-7. (For a float32 action in
        # float64 mode the squares are formed exactly in float64 and rounded once, which keeps XLA
        # from fusing them into multiply-adds with a different rounding.)
        if wide_action or self.dtype != np.float64:
            squares = action * action
        else:
            wide = action.astype(jnp.float64)
            squares = (wide * wide).astype(jnp.float32)
        total = squares[0]
        for i in range(1, self.model.nu):
            total = total + squares[i]
        reward_ctrl = -(jnp.asarray(params.ctrl_cost_weight, action.dtype) * total)
        reward = (reward_forward + reward_ctrl.astype(self.dtype)).astype(self.dtype)
        new_state = EnvState(physics=physics, time=state.time + 1)
        info = {"x_position": physics.qpos[0], "x_velocity": x_velocity, "reward_forward": reward_forward,
                "reward_ctrl": reward_ctrl}
        return self.get_obs(new_state), new_state, reward, jnp.bool_(False), info

    def is_terminated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return jnp.bool_(False)  # HalfCheetah never terminates; it is truncated at max_steps_in_episode
