"""L2: float64 physics substeps along warm-started gait trajectories (a sine running gait and the
shipped PPO policy) against MuJoCo run here: every substep of every env step agrees to 1e-10 in
qpos and qvel, and the Newton solver takes as many iterations as MuJoCo's solver_niter (so it
stops where MuJoCo stops, also when MuJoCo's warm start ends the solve early)."""

from __future__ import annotations

import pytest

from cheetahjax import substeps
from cheetahjax.data import half_cheetah_model

from ..substep_parity import check_substeps


def test_gait_substeps_match_mujoco():
    check_substeps(half_cheetah_model(), substeps.cheetah_records(2000, seed=0))


@pytest.mark.slow
def test_gait_substeps_match_mujoco_long():
    check_substeps(half_cheetah_model(), substeps.cheetah_records(20000, seed=1000))
