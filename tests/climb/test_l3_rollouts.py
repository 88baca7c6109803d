"""L3: lockstep rollouts of our float64 env and MuJoCo from the same start with the same smooth
random actions. Contacts are chaotic, so we publish the divergence horizon: the first agent step
where |qpos|/|qvel| differ by more than 1e-3 (docs/envs/climb.md)."""

from __future__ import annotations

import numpy as np
import pytest

from climbjax import verify


def test_divergence_horizon():
    run = verify.lockstep(episodes=4, steps=450, seed=20)
    h = run["horizons"]
    print("horizons (agent steps, 450 = never):", h.tolist())
    assert np.median(h) >= 150  # 5 s of game time in lockstep at the least


@pytest.mark.slow
def test_divergence_horizon_long():
    run = verify.lockstep(episodes=16, steps=1800, seed=30)
    h = run["horizons"]
    print("horizons (agent steps, 1800 = never):", h.tolist(), "median", np.median(h))
    assert np.median(h) >= 150
