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
from cheetahjax.physics import kinematics, step as physics
from cheetahjax.physics.model import PlanarModel

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


def mujoco_forward(m, d, qpos, qvel, ctrl, warmstart=None) -> dict:
    """Run mj_forward on the state, then mj_step; return copies of what the tests compare."""
    mujoco.mj_resetData(m, d)
    d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
    if warmstart is not None:
        d.qacc_warmstart[:] = warmstart
    mujoco.mj_forward(m, d)
    mass = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, mass)
    out = dict(
        xpos=d.xpos.copy(), xmat=d.xmat.copy(), xipos=d.xipos.copy(), xanchor=d.xanchor.copy(),
        geom_xpos=d.geom_xpos.copy(), geom_xmat=d.geom_xmat.copy(), cdof=d.cdof.copy(), cinert=d.cinert.copy(),
        cvel=d.cvel.copy(), cdof_dot=d.cdof_dot.copy(), mass=mass, qfrc_bias=d.qfrc_bias.copy(),
        qfrc_passive=d.qfrc_passive.copy(), qfrc_actuator=d.qfrc_actuator.copy(), qacc_smooth=d.qacc_smooth.copy(),
        ncon=d.ncon, contact_geom=np.array([d.contact.geom[i] for i in range(d.ncon)]).reshape(-1, 2),
        contact_pos=d.contact.pos[:d.ncon].copy(), contact_dist=d.contact.dist[:d.ncon].copy(),
        contact_frame=d.contact.frame[:d.ncon].copy(), nefc=d.nefc, efc_type=d.efc_type.copy(),
        efc_id=d.efc_id.copy(), efc_pos=d.efc_pos.copy(), efc_margin=d.efc_margin.copy(),
        efc_J=d.efc_J.reshape(d.nefc, m.nv).copy() if d.nefc else np.zeros((0, m.nv)),
        efc_aref=d.efc_aref.copy(), efc_D=d.efc_D.copy(), efc_R=d.efc_R.copy(), efc_vel=d.efc_vel.copy(),
        efc_force=d.efc_force.copy(), qacc=d.qacc.copy(), qfrc_constraint=d.qfrc_constraint.copy(),
    )
    mujoco.mj_step(m, d)
    out.update(next_qpos=d.qpos.copy(), next_qvel=d.qvel.copy(), next_warmstart=d.qacc_warmstart.copy())
    return out


def engine_probe(model: PlanarModel):
    """Jitted function: one state -> every engine quantity (MuJoCo-comparable where possible)."""

    def probe(qpos, qvel, ctrl, warmstart):
        fwd = physics.forward(model, qpos, qvel, ctrl, warmstart)
        poses = kinematics.poses(model, qpos)
        cvel, cdof_dot = kinematics.com_velocity(model, fwd.kin.cdof, qvel)
        nxt = physics.euler(model, physics.PhysicsState(qpos, qvel, warmstart), fwd)
        from cheetahjax.physics import dynamics
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
