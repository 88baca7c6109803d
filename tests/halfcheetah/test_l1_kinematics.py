"""L1: forward kinematics and the centre-of-mass frame quantities vs MuJoCo (float64)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from .helpers import cheetah_states, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()
TOL = 1e-12


@settings(max_examples=60, deadline=None)
@given(cheetah_states())
def test_body_and_geom_poses(state):
    ref = mujoco_forward(*MJ, *state)
    poses = run_probe64(*state)["poses"]
    assert max_abs(poses.body_xz, ref["xpos"][:, [0, 2]]) < TOL
    cos, sin = poses.body_cos, poses.body_sin
    zero, one = np.zeros_like(cos), np.ones_like(cos)
    xmat = np.stack([cos, zero, sin, zero, one, zero, -sin, zero, cos], -1)
    assert max_abs(xmat, ref["xmat"]) < TOL
    assert max_abs(poses.body_com_xz, ref["xipos"][:, [0, 2]]) < TOL
    assert max_abs(poses.jnt_anchor_xz, ref["xanchor"][:, [0, 2]]) < TOL
    assert max_abs(poses.geom_pos, ref["geom_xpos"]) < TOL
    assert max_abs(poses.geom_mat.reshape(-1, 9), ref["geom_xmat"]) < TOL
    # Planar: MuJoCo's out-of-plane components are exactly zero.
    assert np.all(ref["xpos"][:, 1] == 0)


@settings(max_examples=60, deadline=None)
@given(cheetah_states())
def test_com_frame_cdof_cinert(state):
    ref = mujoco_forward(*MJ, *state)
    kin = run_probe64(*state)["fwd"].kin
    # MuJoCo cdof is [angular; linear] about the subtree COM; the planar part is (w_y, v_x, v_z).
    assert max_abs(kin.cdof, ref["cdof"][:, [1, 3, 5]]) < TOL
    assert np.all(ref["cdof"][:, [0, 2, 4]] == 0)
    # MuJoCo cinert = (Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m dx, m dy, m dz, m) about the same point.
    assert max_abs(kin.body_inertia, ref["cinert"][:, [9, 6, 8, 1]]) < 1e-11


@settings(max_examples=60, deadline=None)
@given(cheetah_states())
def test_com_velocity(state):
    ref = mujoco_forward(*MJ, *state)
    out = run_probe64(*state)
    assert max_abs(out["cvel"], ref["cvel"][:, [1, 3, 5]]) < 1e-11
    assert max_abs(out["cdof_dot"], ref["cdof_dot"][:, [1, 3, 5]]) < 1e-11
