"""L2: several constraints at once (float64): states where contacts and joint limits are active
together, and states with many simultaneous contacts. The solver, forces and the full mj_step are
compared with MuJoCo; the test also checks that the sampled states really contain the combination
(so it cannot pass vacuously)."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from .helpers import LEG_RANGES, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()
LIMIT = int(mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT)


def _low_cheetah_states(seed: int, count: int):
    """Torso near or into the floor, any pitch, legs at or past their limits, fast motion."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        qpos = np.concatenate([[rng.uniform(-2, 2), rng.uniform(-0.6, -0.2), rng.uniform(-math.pi, math.pi)],
                               [rng.choice([lo, hi]) + rng.uniform(-0.15, 0.15) for lo, hi in LEG_RANGES]])
        yield qpos, 4.0 * rng.standard_normal(9), rng.uniform(-1.2, 1.2, 6)


def _compare(state, ref):
    ours = run_probe64(*state)
    fwd, nxt = ours["fwd"], ours["next"]
    scale = 1 + np.abs(ref["qacc"]).max()
    force_scale = 1 + np.abs(ref["qfrc_constraint"]).max()
    assert max_abs(fwd.result.qacc, ref["qacc"]) < 1e-11 * scale
    assert int(fwd.result.iterations) == ref["solver_niter"]  # crowded solves: several Newton steps, as many as MuJoCo
    assert max_abs(fwd.result.qfrc_constraint, ref["qfrc_constraint"]) < 1e-10 * force_scale
    assert max_abs(nxt.qvel, ref["next_qvel"]) < 1e-11 * scale
    assert max_abs(nxt.qpos, ref["next_qpos"]) < 1e-12 * scale


@pytest.mark.parametrize("kind", ["contacts_and_limits", "many_contacts"])
def test_constraint_combinations_match_mujoco(kind):
    checked = 0
    for state in _low_cheetah_states(seed=7 if kind == "many_contacts" else 8, count=400):
        ref = mujoco_forward(*MJ, *state)
        limits = int(np.sum(ref["efc_type"][:ref["nefc"]] == LIMIT))
        wanted = (ref["ncon"] >= 2 and limits >= 2) if kind == "contacts_and_limits" else ref["ncon"] >= 5
        if not wanted:
            continue
        _compare(state, ref)
        checked += 1
        if checked == 40:
            break
    assert checked >= 20, f"only {checked} sampled states had the combination {kind}"
