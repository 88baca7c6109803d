"""L3 against PufferLib's own Pong, when the `pufferlib` package (3.0) is installed (skipped otherwise:
PyPI has only its source distribution, which our test extras do not build).

PufferLib draws round-start bits from the process-wide C `rand()` and exposes only observations,
rewards and terminals. So: PufferLib runs first; our C reference then replays the run with the same
`srand` seeding and the same `rand()` stream (both libraries share the process's C library),
recording the bits it draws; our JAX engine replays those bits. PufferLib's observations, rewards
and terminals must equal the C reference's and the JAX engine's at every step, float32 bit for bit,
and the two engines' full states must match too."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

binding = pytest.importorskip("pufferlib.ocean.pong.binding")

from paritygym.verify import compare_trajectories  # noqa: E402
from pongjax.reference import STATE_FIELDS, CPong  # noqa: E402
from pongjax.verify import replay_with_bits  # noqa: E402

LIBC = ctypes.CDLL(None)
NUM_ENVS = 100


def run_pufferlib(actions: np.ndarray, seed: int, frameskip: int, continuous: bool):
    steps, n = actions.shape
    obs = np.zeros((n, 8), np.float32)
    act = np.zeros(n, np.float32)
    rew = np.zeros(n, np.float32)
    term = np.zeros(n, np.uint8)
    trunc = np.zeros(n, np.uint8)
    handle = binding.vec_init(
        obs, act, rew, term, trunc, n, seed, width=500, height=640, paddle_width=20, paddle_height=70,
        ball_width=32, ball_height=32, paddle_speed=8, ball_initial_speed_x=10, ball_initial_speed_y=1,
        ball_max_speed_y=13, ball_speed_y_increment=3, max_score=21, frameskip=frameskip, continuous=int(continuous),
    )  # fmt: skip
    binding.vec_reset(handle, seed)
    out = {"obs": [], "reward": [], "terminated": []}
    for t in range(steps):
        act[:] = np.clip(actions[t], -1, 1) if continuous else actions[t]
        binding.vec_step(handle)
        out["obs"].append(obs.copy())
        out["reward"].append(rew.copy())
        out["terminated"].append(term.astype(bool))
    binding.vec_close(handle)
    return {k: np.stack(v) for k, v in out.items()}


def replay_c(actions: np.ndarray, seed: int, frameskip: int, continuous: bool):
    steps, n = actions.shape
    env = CPong(n, frameskip=frameskip, continuous=continuous)
    reset_bits = np.zeros(n, np.uint8)
    for i in range(n):  # PufferLib's vec_reset: srand(i + seed * n), then that env's reset draws once
        LIBC.srand(i + seed * n)
        reset_bits[i] = LIBC.rand() % 2
        env.reset_one(i, int(reset_bits[i]))
    out = {k: [] for k in [*STATE_FIELDS, "reward", "terminated"]}
    bits = []
    for t in range(steps):
        _, reward, terminal, drawn = env.step_rand_logged(actions[t])
        for k in STATE_FIELDS:
            out[k].append(env.states[k].copy())
        out["reward"].append(reward)
        out["terminated"].append(terminal)
        bits.append(drawn)
    return {k: np.stack(v) for k, v in out.items()}, reset_bits, np.stack(bits)


@pytest.mark.parametrize("frameskip,continuous,steps", [(1, False, 4000), (4, False, 1500), (4, True, 1500)])
def test_pufferlib_matches_c_reference_and_pongjax(frameskip, continuous, steps):
    rng = np.random.default_rng(frameskip)
    actions = rng.uniform(-1, 1, (steps, NUM_ENVS)).astype(np.float32) if continuous else rng.integers(0, 3, (steps, NUM_ENVS)).astype(np.float32)
    seed = 3
    theirs = run_pufferlib(actions, seed, frameskip, continuous)
    c_run, reset_bits, bits = replay_c(actions, seed, frameskip, continuous)
    ours = replay_with_bits(reset_bits, actions, bits, frameskip, continuous)
    assert theirs["terminated"].any(axis=0).all(), "every env should finish a game"
    c_view = {"obs": c_run["obs"], "reward": c_run["reward"], "terminated": c_run["terminated"]}
    result = compare_trajectories(c_view, theirs)
    assert result.matched, "C reference vs PufferLib: " + result.describe()
    result = compare_trajectories(ours, c_run)
    assert result.matched, "pongjax vs C reference: " + result.describe()
