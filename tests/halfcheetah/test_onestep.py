"""One env step (5 mj_steps) from MuJoCo's own states along real trajectories: MuJoCo's qpos,
qvel and solver warm start are injected into our env, both take the same action, and the next
observation, reward, qpos and qvel are compared. Random, smooth-random and trained (PPO) policies;
some actions pushed out of [-1, 1] to exercise the actuator clamp and the raw-action control cost."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cheetahjax import verify

TOLERANCE = {"float64": 1e-10, "float32": 1e-3}
POLICIES = [p for p in verify.POLICIES if p != "trained" or verify.trained_policy() is not None]


@functools.lru_cache(maxsize=None)
def transitions() -> dict[str, np.ndarray]:
    parts = [verify.collect_transitions(policy, episodes=2, steps=1000, seed=10, stride=4) for policy in POLICIES]
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    out["policy"] = np.concatenate([np.full(len(p["action"]), name) for p, name in zip(parts, POLICIES)])
    return out


def test_trained_policy_is_shipped():
    assert verify.trained_policy() is not None, "cheetahjax/data/ppo_policy.msgpack missing"


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_one_step_from_mujoco_states(precision):
    tr = transitions()
    errors = verify.one_step_errors(precision, tr)
    report = {p: {k: float(v[tr["policy"] == p].max()) for k, v in errors.items()} for p in POLICIES}
    print(f"\none-step max abs error ({precision}) over {len(tr['action'])} transitions: {report}")
    for field, err in errors.items():
        assert err.max() <= TOLERANCE[precision], (field, err.max())


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_out_of_range_actions(precision):
    """Gymnasium passes actions unclipped: MuJoCo clamps the controls, the cost uses the raw action."""
    tr = transitions()
    pick = slice(0, 200)
    out = {k: v[pick].copy() for k, v in tr.items() if k != "policy"}
    rng = np.random.default_rng(3)
    out["action"] = (out["action"] * rng.uniform(1.0, 2.5, out["action"].shape)).astype(np.float32)
    ref = verify.MujocoHalfCheetah()
    try:
        for i in range(len(out["action"])):
            ref.reset(0)
            ref.set_state(dict(qpos=out["qpos"][i], qvel=out["qvel"][i], qacc_warmstart=out["qacc_warmstart"][i]))
            rec = ref.step(out["action"][i])
            out["next_obs"][i], out["next_reward"][i] = rec["obs"], rec["reward"]
            out["next_qpos"][i], out["next_qvel"][i] = rec["qpos"], rec["qvel"]
    finally:
        ref.close()
    errors = verify.one_step_errors(precision, out)
    for field, err in errors.items():
        assert err.max() <= TOLERANCE[precision], (field, err.max())


def test_float64_actions_are_used_unrounded():
    """Gymnasium writes a float64 action into MuJoCo's ctrl unrounded and prices it in float64;
    the float64 env does the same. Rounding these actions to float32 would move the next qvel by
    ~1e-7, far above the tolerance."""
    tr = transitions()
    pick = slice(0, 200)
    out = {k: v[pick].copy() for k, v in tr.items() if k != "policy"}
    rng = np.random.default_rng(4)
    out["action"] = out["action"].astype(np.float64) + rng.uniform(-1e-3, 1e-3, out["action"].shape)
    assert np.mean(out["action"].astype(np.float32) != out["action"]) > 0.99  # not float32 values
    ref = verify.MujocoHalfCheetah()
    try:
        for i in range(len(out["action"])):
            ref.reset(0)
            ref.set_state(dict(qpos=out["qpos"][i], qvel=out["qvel"][i], qacc_warmstart=out["qacc_warmstart"][i]))
            obs, reward, *_ = ref.env.step(out["action"][i])  # the float64 array, as given
            out["next_obs"][i], out["next_reward"][i] = obs, reward
            out["next_qpos"][i], out["next_qvel"][i] = ref.sim.data.qpos, ref.sim.data.qvel
    finally:
        ref.close()
    errors = verify.one_step_errors("float64", out)
    print({k: float(v.max()) for k, v in errors.items()})
    for field, err in errors.items():
        assert err.max() <= TOLERANCE["float64"], (field, err.max())
