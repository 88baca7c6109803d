"""MuJoCo C as the reference for the planar physics engine's tests (HalfCheetah and Climb)."""

from __future__ import annotations

import mujoco
import numpy as np


def mujoco_forward(m: mujoco.MjModel, d: mujoco.MjData, qpos, qvel, ctrl, warmstart=None) -> dict:
    """Run mj_forward on the state, then mj_step; return copies of every quantity the engine's
    tests compare (kinematics, dynamics, contacts, constraint rows, accelerations, next state)."""
    mujoco.mj_resetData(m, d)
    d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
    if warmstart is not None:
        d.qacc_warmstart[:] = warmstart
    mujoco.mj_forward(m, d)
    mass = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, mass)
    ncon = d.ncon
    out = dict(
        xpos=d.xpos.copy(), xmat=d.xmat.copy(), xipos=d.xipos.copy(), xanchor=d.xanchor.copy(),
        geom_xpos=d.geom_xpos.copy(), geom_xmat=d.geom_xmat.copy(), cdof=d.cdof.copy(), cinert=d.cinert.copy(),
        cvel=d.cvel.copy(), cdof_dot=d.cdof_dot.copy(), mass=mass, qfrc_bias=d.qfrc_bias.copy(),
        qfrc_passive=d.qfrc_passive.copy(), qfrc_actuator=d.qfrc_actuator.copy(),
        actuator_force=d.actuator_force.copy(), qacc_smooth=d.qacc_smooth.copy(),
        ncon=ncon, contact_geom=np.array([d.contact.geom[i] for i in range(ncon)]).reshape(-1, 2),
        contact_pos=d.contact.pos[:ncon].copy(), contact_dist=d.contact.dist[:ncon].copy(),
        contact_frame=d.contact.frame[:ncon].copy(), contact_friction=d.contact.friction[:ncon].copy(),
        contact_exclude=d.contact.exclude[:ncon].copy(), nefc=d.nefc, efc_type=d.efc_type.copy(),
        efc_id=d.efc_id.copy(), efc_pos=d.efc_pos.copy(), efc_margin=d.efc_margin.copy(),
        efc_J=d.efc_J.reshape(d.nefc, m.nv).copy() if d.nefc else np.zeros((0, m.nv)),
        efc_aref=d.efc_aref.copy(), efc_D=d.efc_D.copy(), efc_R=d.efc_R.copy(), efc_vel=d.efc_vel.copy(),
        efc_force=d.efc_force.copy(), qacc=d.qacc.copy(), qfrc_constraint=d.qfrc_constraint.copy(),
        solver_niter=int(d.solver_niter[0]),  # the models are one tree: one island
    )
    mujoco.mj_step(m, d)
    out.update(next_qpos=d.qpos.copy(), next_qvel=d.qvel.copy(), next_warmstart=d.qacc_warmstart.copy())
    return out
