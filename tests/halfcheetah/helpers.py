"""Shared helpers for the HalfCheetah tests: MuJoCo as the reference, state generators, and the
engine's quantities laid out like MuJoCo's."""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from hypothesis import strategies as st

from cheetahjax.data import half_cheetah_model
from cheetahjax.data.generate import compile_half_cheetah
from planarjax.physics import kinematics, step as physics
from planarjax.physics.model import PlanarModel

from ..mujoco_reference import mujoco_forward  # noqa: F401  (re-exported for the tests here)

# Joint ranges of the six leg joints (from the compiled model, not hard-coded).
_MJ = compile_half_cheetah()
LEG_RANGES = [tuple(_MJ.jnt_range[j]) for j in range(3, 9)]


def new_mujoco():
    """A fresh (MjModel, MjData) pair for Gymnasium's HalfCheetah."""
    m = compile_half_cheetah()
    return m, mujoco.MjData(m)


@st.composite
def cheetah_states(draw, joint_slack: float = 0.3, speed: float = 10.0):
    """A valid HalfCheetah state: torso anywhere from buried to airborne, any pitch, joints up to
    ``joint_slack`` past their limits, velocities up to ``speed``, controls a bit out of range."""
    f = lambda lo, hi: draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))
    qpos = [f(-5.0, 5.0), f(-0.75, 0.1), f(-math.pi, math.pi)]
    qpos += [f(lo - joint_slack, hi + joint_slack) for lo, hi in LEG_RANGES]
    qvel = [f(-speed, speed) for _ in range(9)]
    ctrl = [f(-1.3, 1.3) for _ in range(6)]
    return np.array(qpos), np.array(qvel), np.array(ctrl)


def random_states(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The facts file's random-state recipe (seeded numpy), for bulk checks."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        qpos = np.concatenate([[rng.uniform(-5, 5), rng.uniform(-0.75, 0.1), rng.uniform(-math.pi, math.pi)],
                               [rng.uniform(lo - 0.3, hi + 0.3) for lo, hi in LEG_RANGES]])
        out.append((qpos, 3.0 * rng.standard_normal(9), rng.uniform(-1, 1, 6)))
    return out


def engine_probe(model: PlanarModel):
    """Jitted function: one state -> every engine quantity (MuJoCo-comparable where possible)."""

    def probe(qpos, qvel, ctrl, warmstart):
        fwd = physics.forward(model, qpos, qvel, ctrl, warmstart)
        poses = kinematics.poses(model, qpos)
        cvel, cdof_dot = kinematics.com_velocity(model, fwd.kin.cdof, qvel)
        nxt = physics.euler(model, physics.PhysicsState(qpos, qvel, warmstart), fwd)
        from planarjax.physics import dynamics
        return dict(fwd=fwd, poses=poses, cvel=cvel, cdof_dot=cdof_dot, mass=dynamics.dense(model, fwd.mass),
                    jac=fwd.rows.dense_jacobian(model, fwd.kin.cdof), next=nxt)

    return jax.jit(probe)


@functools.lru_cache(maxsize=None)
def probe64():
    """Session-wide float64 probe (compiled once; called inside jax.enable_x64)."""
    return engine_probe(half_cheetah_model())


def run_probe64(qpos, qvel, ctrl, warmstart=None) -> dict:
    with jax.enable_x64(True):
        warm = np.zeros(9) if warmstart is None else warmstart
        out = probe64()(*(jnp.asarray(np.asarray(x, dtype=np.float64)) for x in (qpos, qvel, ctrl, warm)))
        return jax.tree.map(np.asarray, out)


def efc_view(rows, values: np.ndarray) -> np.ndarray:
    """Our per-row values (for one environment) in MuJoCo's efc order, enabled rows only."""
    enabled = np.asarray(rows.enabled)
    return np.array([values[r] for r, _ in rows.mujoco_order() if enabled[r]])


def max_abs(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b))) if a.size else 0.0
