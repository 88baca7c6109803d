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
    force_scale = 1 + np.abs(ref["qfrc_constraint"]).max()
    assert max_abs(fwd.result.qfrc_constraint, ref["qfrc_constraint"]) < 1e-10 * force_scale
    if ref["nefc"]:
        assert max_abs(efc_view(fwd.rows, fwd.result.efc_force), ref["efc_force"]) < 1e-10 * force_scale


@settings(max_examples=40, deadline=None)
@given(cheetah_states(), st.floats(-1e3, 1e3), st.integers(0, 2**31 - 1))
def test_answer_does_not_depend_on_warm_start(state, scale, seed):
    """MuJoCo's result is the unique minimiser; any warm start must reach it."""
    ref = mujoco_forward(*MJ, *state)
    warm = scale * np.random.default_rng(seed).standard_normal(9)
    fwd = run_probe64(*state, warmstart=warm)["fwd"]
    assert max_abs(fwd.result.qacc, ref["qacc"]) < 1e-10 * (1 + np.abs(ref["qacc"]).max())
