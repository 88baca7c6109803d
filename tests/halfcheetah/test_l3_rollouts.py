"""L3: lockstep episodes of 1000 steps from Gymnasium's reset states with the same actions.

HalfCheetah is chaotic: MuJoCo itself, disturbed by 1e-14, leaves its own trajectory by more than
1e-3 after a median of ~80 steps with random actions (see docs/envs/halfcheetah.md). So the check
is statistical: our median first-divergence step must reach a fixed fraction of MuJoCo's own
(measured here, same episodes), and the first steps must agree tightly. The default run uses 12
episodes per policy; `pytest -m slow` runs the full 100 per policy.
"""

from __future__ import annotations

import numpy as np
import pytest

from cheetahjax import verify

POLICIES = ["random", "trained"]
EARLY_STEPS = {"float64": (10, 1e-6), "float32": (3, 1e-3)}  # (steps, max error over them)


def _check(precision: str, policy: str, episodes: int, seed: int):
    run = verify.lockstep(precision, policy, episodes, 1000, seed)
    first = run["first_divergence"]
    floor = verify.mujoco_sensitivity(policy, episodes, 1000, seed, precision)
    factor = verify.L3_FLOOR_FACTOR[precision]
    steps, early_tol = EARLY_STEPS[precision]
    print(f"\nL3 {precision} {policy}: our first divergence (>1e-3) median {np.median(first)}, min {first.min()}, "
          f"max {first.max()}; MuJoCo's own median {np.median(floor)}; max error over the first {steps} steps "
          f"{run['step_linf'][:, :steps].max():.3g}")
    assert run["step_linf"][:, :steps].max() <= early_tol
    assert np.median(first) >= factor * np.median(floor)


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("policy", POLICIES)
def test_lockstep_rollouts(precision, policy):
    _check(precision, policy, episodes=12, seed=100)


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("policy", verify.POLICIES)
def test_lockstep_rollouts_full(precision, policy):
    _check(precision, policy, episodes=100, seed=1000)
