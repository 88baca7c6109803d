"""One env step (8 mj_steps) from MuJoCo's own states along trajectories that start in every course
section: qpos, qvel and the solver's warm start are injected into our float64 env, both take the
same action, and the next qpos, qvel, observation and reward are compared."""

from __future__ import annotations

import numpy as np

from climbjax import verify


def test_one_step_from_mujoco_states():
    tr = verify.collect_transitions(episodes=4, steps=300, seed=10, stride=3)
    errors = verify.one_step_errors(tr)
    print({k: float(v.max()) for k, v in errors.items()}, len(tr["action"]))
    for field, err in errors.items():
        assert err.max() <= 1e-10, (field, err.max())
    # the states were varied: the head touched terrain and the pot moved
    assert np.mean(tr["next_obs"][:, 13]) > 0.05
    assert np.ptp(tr["qpos"][:, 0]) > 5
