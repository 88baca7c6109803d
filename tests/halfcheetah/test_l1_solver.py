"""L1: the constraint solver (qacc, efc_force, qfrc_constraint) vs MuJoCo's Newton solver (float64)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import cheetah_states, efc_view, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()


@settings(max_examples=100, deadline=None)
@given(cheetah_states())
def test_qacc_and_forces_match_mujoco(state):
    ref = mujoco_forward(*MJ, *state)
    fwd = run_probe64(*state)["fwd"]
    scale = 1 + np.abs(ref["qacc"]).max()
    assert max_abs(fwd.result.qacc, ref["qacc"]) < 1e-11 * scale
    assert int(fwd.result.iterations) == ref["solver_niter"]
    force_scale = 1 + np.abs(ref["qfrc_constraint"]).max()
    assert max_abs(fwd.result.qfrc_constraint, ref["qfrc_constraint"]) < 1e-10 * force_scale
    if ref["nefc"]:
        assert max_abs(efc_view(fwd.rows, fwd.result.efc_force), ref["efc_force"]) < 1e-10 * force_scale


@settings(max_examples=40, deadline=None)
@given(cheetah_states(), st.floats(-1e3, 1e3), st.integers(0, 2**31 - 1))
def test_any_warm_start_matches_mujoco(state, scale, seed):
    """MuJoCo keeps a warm start that beats a_smooth and may stop short of the exact minimiser
    from it; from the same warm start we take the same steps to the same point."""
    warm = scale * np.random.default_rng(seed).standard_normal(9)
    ref = mujoco_forward(*MJ, *state, warmstart=warm)
    fwd = run_probe64(*state, warmstart=warm)["fwd"]
    assert max_abs(fwd.result.qacc, ref["qacc"]) < 1e-11 * (1 + np.abs(ref["qacc"]).max())
    assert int(fwd.result.iterations) == ref["solver_niter"]
