"""L1: constraint rows of the sphere contacts (the moving geom first in the pair, the out-of-plane
first tangent) and joint limits, the Newton solution and the Euler step, vs MuJoCo (float64).

Rows are matched per contact by geom pair (MuJoCo's contact order is its broad phase's), edge by
edge: Jacobian, aref, D and force.
"""

from __future__ import annotations

import numpy as np
import pytest

from climbjax.data import course_model

from .helpers import mujoco_forward, new_mujoco, random_states, run_probe64

MODEL = course_model()
STATES = random_states(seed=3, count=200)
CONTACT_PYRAMIDAL, LIMIT_JOINT = 6, 3


@pytest.fixture(scope="module")
def compared():
    m, d = new_mujoco()
    return [(mujoco_forward(m, d, *s), run_probe64(*s)) for s in STATES]


def _our_rows_by_key(out) -> dict:
    """{("limit", joint) or ("contact", geom pair): [row index per MuJoCo row, in edge order]}."""
    rows = out["fwd"].rows
    enabled = np.asarray(rows.enabled)
    pairs = out["fwd"].contacts.pair
    n_dof = rows.num_dof_rows
    keyed: dict = {}
    for r, _copy in rows.mujoco_order():
        if not enabled[r]:
            continue
        if r < n_dof:
            key = ("limit", rows.dof_row_dof[r])
        else:
            key = ("contact", MODEL.contact_pairs[pairs[rows.body_row_contact[r - n_dof]]])
        keyed.setdefault(key, []).append(r)
    return keyed


def test_rows_match_mujoco(compared):
    worst = dict(J=0.0, aref=0.0, D=0.0, force=0.0)
    contact_rows = 0
    for ref, out in compared:
        keyed = _our_rows_by_key(out)
        fwd = out["fwd"]
        theirs: dict = {}
        for i in range(ref["nefc"]):
            if ref["efc_type"][i] == CONTACT_PYRAMIDAL:
                key = ("contact", tuple(int(x) for x in ref["contact_geom"][ref["efc_id"][i]]))
                contact_rows += 1
            else:
                assert ref["efc_type"][i] == LIMIT_JOINT
                key = ("limit", int(ref["efc_id"][i]))
            theirs.setdefault(key, []).append(i)
        assert set(keyed) == set(theirs)
        for key, mine in keyed.items():
            assert len(mine) == len(theirs[key])
            for r, i in zip(mine, theirs[key]):
                worst["J"] = max(worst["J"], np.max(np.abs(out["jac"][r] - ref["efc_J"][i])))
                worst["aref"] = max(worst["aref"], abs(fwd.rows.aref[r] - ref["efc_aref"][i]) / (1 + abs(ref["efc_aref"][i])))
                worst["D"] = max(worst["D"], abs(fwd.rows.D[r] - ref["efc_D"][i]) / ref["efc_D"][i])
                worst["force"] = max(worst["force"], abs(fwd.result.efc_force[r] - ref["efc_force"][i])
                                     / (1 + abs(ref["efc_force"][i])))
    print(worst, contact_rows)
    assert contact_rows > 500
    assert worst["J"] < 1e-12 and worst["aref"] < 1e-10 and worst["D"] < 1e-10 and worst["force"] < 1e-6, worst


def test_solution_and_step_match_mujoco(compared):
    worst_qacc = worst_qpos = worst_qvel = 0.0
    iteration_mismatches = 0
    for ref, out in compared:
        iteration_mismatches += int(out["fwd"].result.iterations) != ref["solver_niter"]
        scale = 1.0 + np.max(np.abs(ref["qacc"]))
        worst_qacc = max(worst_qacc, np.max(np.abs(out["fwd"].result.qacc - ref["qacc"])) / scale)
        worst_qpos = max(worst_qpos, np.max(np.abs(out["next"].qpos - ref["next_qpos"])))
        worst_qvel = max(worst_qvel, np.max(np.abs(out["next"].qvel - ref["next_qvel"])))
    print(dict(qacc_rel=worst_qacc, next_qpos=worst_qpos, next_qvel=worst_qvel, iteration_mismatches=iteration_mismatches))
    assert worst_qacc < 1e-9 and worst_qpos < 1e-10 and worst_qvel < 1e-8
    assert iteration_mismatches == 0  # the solver stops where MuJoCo's does
