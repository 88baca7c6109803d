"""L2: Climb-v0's float64 physics substeps along warm-started trajectories of a hammer-swinging
gait from every course section, against MuJoCo (course.xml) run here: every substep of every
agent step agrees to 1e-10 in qpos and qvel, and the Newton solver takes as many iterations as
MuJoCo's solver_niter (so it stops where MuJoCo stops, also when the warm start ends the solve)."""

from __future__ import annotations

import pytest

from climbjax import substeps
from climbjax.data import course_model

from ..substep_parity import check_substeps


def test_gait_substeps_match_mujoco():
    check_substeps(course_model(), substeps.climb_records(2000, seed=0))


@pytest.mark.slow
def test_gait_substeps_match_mujoco_long():
    check_substeps(course_model(), substeps.climb_records(20000, seed=1000))
