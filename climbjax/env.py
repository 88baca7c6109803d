"""`Climb-v0`: a pot-and-hammer climbing game on the planar physics engine (planarjax)
(see docs/envs/climb.md).

A heavy pot moves only by what its hammer does against the terrain: the action sets the targets of
two position servos (hammer angle and extension) and the engine runs MuJoCo's dynamics for the
course in ``climbjax/data/course.xml`` (8 physics steps of 1/240 s per 30 Hz agent step). The
reward is the change of course progress (metres along the route) plus a bonus at the summit, which
ends the episode.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from climbjax import course, game
from climbjax.data import course_model
from paritygym.checks import bounded
from planarjax.env import PlanarPhysicsEnv
from planarjax.physics import collision, kinematics
from planarjax.physics.model import PlanarModel
from planarjax.physics.step import PhysicsState

SUBSTEPS = 8                 # physics steps per agent step: 8 x 1/240 s = 1/30 s
HEAD_CONTACT_DISTANCE = 0.0  # the head touches terrain when it penetrates (a MuJoCo contact with rows)


@struct.dataclass
class EnvState:
    physics: PhysicsState  # qpos (5,), qvel (5,), qacc_warmstart (5,)
    time: jax.Array        # agent steps in this episode (for truncation)


@struct.dataclass
class EnvParams:
    max_steps_in_episode: int = bounded(1800, ge=1)                         # 60 s of game time
    start_section: int = bounded(0, ge=-1, le=course.NUM_SECTIONS - 1)      # 0..3: that section's start; -1: random
    start_x_noise: float = bounded(0.1, ge=0)                               # uniform noise on the start x (m)
    progress_weight: float = 1.0                                            # reward per metre of course progress
    summit_bonus: float = 10.0


class Climb(PlanarPhysicsEnv):
    """The climbing game (Climb-v0).

    Args:
        precision: "float32" (default, fast) or "float64" (needs 64-bit JAX, as for parity tests).
        solver_iterations: cap on Newton iterations per physics step; None (default): the
            model's opt.iterations, as MuJoCo.

    Actions: 2 floats, [hammer angle target, hammer extension target], each in [-1, 1] mapped
    linearly onto the servo's range (angle -3.6..2.0 rad from the pot's forward axis, counter-
    clockwise; extension 0..0.9 m). Values outside [-1, 1] are clipped; a non-finite action is
    treated as all zeros (the middle of both ranges).
    """

    def __init__(self, precision: str = "float32", solver_iterations: int | None = None, model: PlanarModel | None = None):
        base = model or course_model()
        game.check_joint_names(base)
        super().__init__(base, precision, SUBSTEPS, solver_iterations)
        self.profile = game.terrain_profile(base)
        head = base.geom_names.index("head")
        self._head_pairs = np.array([k for k, pair in enumerate(base.contact_pairs) if head in pair])

    @property
    def default_params(self) -> EnvParams:
        return EnvParams()

    @property
    def name(self) -> str:
        return "Climb-v0"

    def observation_space(self, params: EnvParams | None = None) -> spaces.Box:
        return spaces.Box(-jnp.inf, jnp.inf, (game.OBSERVATION.size,), self.dtype)

    def head_contact(self, qpos: jax.Array) -> jax.Array:
        """True when the hammer head penetrates any terrain piece (MuJoCo: a head contact with dist < 0)."""
        contacts = collision.collide(self.model, kinematics.forward_kinematics(self.model, qpos))
        mine = np.isin(np.asarray(contacts.pair), self._head_pairs)
        return jnp.any(contacts.dist[mine] < HEAD_CONTACT_DISTANCE)

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key: Any = None) -> jax.Array:
        qpos = state.physics.qpos
        return game.observation(qpos, state.physics.qvel, self.head_contact(qpos), self.profile, self.dtype)

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        self._check_precision()
        k_section, k_x = jax.random.split(key)
        random_section = jax.random.randint(k_section, (), 0, course.NUM_SECTIONS)
        chosen = jnp.clip(jnp.asarray(params.start_section, jnp.int32), 0, course.NUM_SECTIONS - 1)
        section = jnp.where(jnp.asarray(params.start_section) < 0, random_section, chosen)
        noise = jnp.asarray(params.start_x_noise, self.dtype)
        x_offset = jax.random.uniform(k_x, (), self.dtype, -noise, noise)
        qpos = game.start_qpos(section, x_offset, self.dtype)
        zeros = jnp.zeros(self.model.nv, self.dtype)
        state = EnvState(physics=PhysicsState(qpos=qpos, qvel=zeros, qacc_warmstart=zeros), time=jnp.int32(0))
        return self.get_obs(state), state

    def step_env(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams):
        self._check_precision()
        action = jnp.asarray(action, jnp.float32).reshape(self.model.nu)
        action = jnp.where(jnp.all(jnp.isfinite(action)), action, 0.0)
        ctrl = game.action_to_ctrl(action.astype(self.dtype), self.model.actuator_ctrlrange)
        physics, _ = self._multi_step(state.physics, ctrl)
        before, after = game.potential(state.physics.qpos), game.potential(physics.qpos)
        at_summit = game.summit(physics.qpos)
        reward = (jnp.asarray(params.progress_weight, self.dtype) * (after - before).astype(self.dtype)
                  + jnp.where(at_summit, jnp.asarray(params.summit_bonus, self.dtype), 0.0))
        new_state = EnvState(physics=physics, time=state.time + 1)
        x, z = game.pot_position(physics.qpos)
        info = {"progress": after, "height": z, "x": x, "summit": at_summit,
                "section": course.section_of_progress(after)}
        return self.get_obs(new_state), new_state, reward.astype(self.dtype), at_summit, info

    def is_terminated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return game.summit(state.physics.qpos)
