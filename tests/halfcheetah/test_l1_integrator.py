"""L1: Euler with implicit joint damping: one full mj_step (float64)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from .helpers import cheetah_states, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()


@settings(max_examples=100, deadline=None)
@given(cheetah_states())
def test_one_mj_step(state):
    ref = mujoco_forward(*MJ, *state)
    nxt = run_probe64(*state)["next"]
    assert max_abs(nxt.qvel, ref["next_qvel"]) < 1e-11 * (1 + np.abs(ref["qacc"]).max())
    assert max_abs(nxt.qpos, ref["next_qpos"]) < 1e-12 * (1 + np.abs(ref["qacc"]).max())
    # mj_step leaves the solver's acceleration (not the integrated one) as the next warm start.
    assert max_abs(nxt.qacc_warmstart, ref["next_warmstart"]) < 1e-11 * (1 + np.abs(ref["qacc"]).max())
