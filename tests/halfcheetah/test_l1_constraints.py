"""L1: constraint rows (joint limits, pyramidal contact edges) and MuJoCo's soft-constraint
parameters: efc_J, efc_pos, efc_margin, efc_vel, efc_aref, efc_R, efc_D (float64)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planarjax.physics.constraint import impedance

from .helpers import cheetah_states, efc_view, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()


@settings(max_examples=100, deadline=None)
@given(cheetah_states())
def test_rows_match_mujoco_efc(state):
    ref = mujoco_forward(*MJ, *state)
    out = run_probe64(*state)
    rows = out["fwd"].rows
    assert len(efc_view(rows, rows.pos)) == ref["nefc"]
    if ref["nefc"] == 0:
        return
    n_limits = int(np.sum(ref["efc_type"] == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT))
    kinds = efc_view(rows, np.array([0] * rows.num_dof_rows + [1] * len(rows.body_row_body)))
    assert np.array_equal(kinds, (np.arange(ref["nefc"]) >= n_limits).astype(int))
    assert max_abs(efc_view(rows, out["jac"]), ref["efc_J"]) < 1e-12
    assert max_abs(efc_view(rows, rows.pos), ref["efc_pos"]) < 1e-12
    assert max_abs(efc_view(rows, rows.margin), ref["efc_margin"]) < 1e-15
    assert max_abs(efc_view(rows, rows.vel), ref["efc_vel"]) < 1e-11
    np.testing.assert_allclose(efc_view(rows, rows.aref), ref["efc_aref"], rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(efc_view(rows, rows.R), ref["efc_R"], rtol=1e-11)
    np.testing.assert_allclose(efc_view(rows, rows.D), ref["efc_D"], rtol=1e-11)


@pytest.mark.parametrize("solimp", [(0.0, 0.8, 0.01, 0.5, 2.0), (0.0, 0.8, 0.03, 0.5, 2.0), (0.9, 0.95, 0.001, 0.5, 2.0),
                                    (0.2, 0.7, 0.05, 0.3, 1.0), (0.1, 0.9, 0.02, 0.7, 3.0), (0.5, 0.5, 0.1, 0.5, 2.0)])
@settings(max_examples=40, deadline=None)
@given(pos=st.floats(-0.2, 0.0, allow_nan=False))
def test_impedance_matches_mujoco_limit_rows(solimp, pos):
    """The impedance curve, read back from MuJoCo's efc_D of a one-joint limit, for several solimp."""
    xml = f"""<mujoco><worldbody><body><joint type="hinge" axis="0 1 0" limited="true" range="0 1"
              solimplimit="{' '.join(map(str, solimp))}"/><geom type="capsule" size=".1 .2"/></body></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[0] = pos - 1e-9
    mujoco.mj_forward(m, d)
    assert d.nefc == 1
    # efc_R = (1 - d) / d * invweight0 for a limit row.
    d_mujoco = m.dof_invweight0[0] / (d.efc_R[0] + m.dof_invweight0[0])
    with jax.enable_x64(True):
        ours = float(impedance(jnp.asarray([d.efc_pos[0]]), jnp.zeros(1), np.asarray([solimp]))[0])
    assert abs(ours - d_mujoco) < 1e-12
