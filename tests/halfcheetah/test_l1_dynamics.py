"""L1: mass matrix (CRB), bias forces (RNE), passive and actuator forces vs MuJoCo (float64)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cheetahjax.data import half_cheetah_model
from planarjax.physics.linalg import tree_solve
from planarjax.physics.maps import tree_maps

from .helpers import cheetah_states, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()


@settings(max_examples=60, deadline=None)
@given(cheetah_states())
def test_mass_matrix(state):
    ref = mujoco_forward(*MJ, *state)
    mass = run_probe64(*state)["mass"]
    assert max_abs(mass, ref["mass"]) < 1e-12
    assert np.array_equal(mass, mass.T)
    assert np.linalg.eigvalsh(mass).min() > 0
    # The back-leg and front-leg blocks are decoupled in MuJoCo's M as in ours.
    assert np.all(mass[3:6, 6:9] == 0)


@settings(max_examples=30, deadline=None)
@given(cheetah_states(), st.integers(0, 2**31 - 1))
def test_tree_ltdl_solve_matches_dense_solve(state, seed):
    ref = mujoco_forward(*MJ, *state)
    rhs = np.random.default_rng(seed).standard_normal(9) * 100
    model = half_cheetah_model()
    pattern = np.array([ref["mass"][i, j] for i, j in zip(tree_maps(model).pattern_i, tree_maps(model).pattern_j)])
    with jax.enable_x64(True):
        x = np.asarray(tree_solve(jnp.asarray(pattern), tree_maps(model).pattern_index, model.dof_parent, jnp.asarray(rhs)))
    np.testing.assert_allclose(x, np.linalg.solve(ref["mass"], rhs), rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(cheetah_states())
def test_bias_passive_actuator_forces(state):
    ref = mujoco_forward(*MJ, *state)
    fwd = run_probe64(*state)["fwd"]
    scale = 1 + np.abs(ref["qfrc_bias"]).max()
    assert max_abs(fwd.qfrc_bias, ref["qfrc_bias"]) < 1e-12 * scale
    assert max_abs(fwd.qfrc_passive, ref["qfrc_passive"]) < 1e-12
    # ctrl is drawn up to 1.3: out-of-range controls are clamped like MuJoCo's ctrllimited.
    assert max_abs(fwd.qfrc_actuator, ref["qfrc_actuator"]) < 1e-12
    smooth = ref["qfrc_passive"] - ref["qfrc_bias"] + ref["qfrc_actuator"]
    assert max_abs(fwd.qfrc_smooth, smooth) < 1e-12 * scale
