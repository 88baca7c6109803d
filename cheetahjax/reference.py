"""MuJoCo's C engine as the reference: Gymnasium's HalfCheetah-v5, stepped exactly as Gymnasium
steps it (mj_step x frame_skip per action), seen through paritygym's ReferenceAdapter protocol.

Records use the env's names: ``obs`` (17,), ``reward``, ``qpos`` (9,), ``qvel`` (9,),
``qacc_warmstart`` (9,), ``x_velocity``, ``terminated``, ``truncated``.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from paritygym.verify import Record


def _forward_mujoco_warning(message: str) -> None:
    # MuJoCo 4 deprecates Gymnasium's `settotalmass` attribute and says so on every model load;
    # that notice is dropped, any other MuJoCo warning is raised as a Python warning.
    if "settotalmass" not in message:
        warnings.warn(f"MuJoCo: {message}", RuntimeWarning, stacklevel=2)


def make_gymnasium_env(**kwargs: Any):
    """``gymnasium.make("HalfCheetah-v5")`` without the settotalmass deprecation notices."""
    import gymnasium
    import mujoco

    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(_forward_mujoco_warning)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gymnasium.make("HalfCheetah-v5", **kwargs)
    finally:
        mujoco.set_mju_user_warning(previous)


class MujocoHalfCheetah:
    """One Gymnasium HalfCheetah-v5 episode at a time (ReferenceAdapter)."""

    def __init__(self, **gym_kwargs: Any):
        self.env = make_gymnasium_env(**gym_kwargs)
        self.sim = self.env.unwrapped
        self._last: dict[str, np.ndarray] = {}

    def _record(self, obs: np.ndarray, reward: float = 0.0, terminated: bool = False, truncated: bool = False,
                x_velocity: float = 0.0) -> Record:
        d = self.sim.data
        self._last = dict(obs=np.asarray(obs, np.float64).copy(), reward=np.float64(reward),
                          qpos=d.qpos.copy(), qvel=d.qvel.copy(), qacc_warmstart=d.qacc_warmstart.copy(),
                          x_velocity=np.float64(x_velocity), terminated=np.bool_(terminated),
                          truncated=np.bool_(truncated))
        return self._last

    def reset(self, seed: int) -> Record:
        obs, _ = self.env.reset(seed=int(seed))
        return self._record(obs)

    def step(self, action: Any) -> Record:
        obs, reward, terminated, truncated, info = self.env.step(np.asarray(action, np.float32))
        return self._record(obs, reward, terminated, truncated, info["x_velocity"])

    def get_state(self) -> Record:
        return dict(self._last)

    def set_state(self, state: Record) -> None:
        """Inject qpos, qvel (Gymnasium's set_state, which runs mj_forward) and the solver's warm start."""
        self.sim.set_state(np.asarray(state["qpos"], np.float64), np.asarray(state["qvel"], np.float64))
        if "qacc_warmstart" in state:
            self.sim.data.qacc_warmstart[:] = np.asarray(state["qacc_warmstart"], np.float64)
        self._record(self.sim._get_obs())

    def close(self) -> None:
        self.env.close()


def rollout(seed: int, actions: np.ndarray, initial: Record | None = None) -> dict[str, np.ndarray]:
    """A Gymnasium episode with the given actions; returns stacked records [T + 1, ...] (index 0 =
    after reset). ``initial`` (qpos, qvel[, qacc_warmstart]) replaces the reset state."""
    ref = MujocoHalfCheetah()
    try:
        first = ref.reset(seed)
        if initial is not None:
            ref.set_state(initial)
            first = ref.get_state()
        records = [first] + [ref.step(a) for a in actions]
    finally:
        ref.close()
    return {k: np.stack([r[k] for r in records]) for k in records[0]}


# `paritygym bench HalfCheetah-v0 --reference`: MuJoCo C through Gymnasium, one process or one per core

def _gymnasium_worker(args: tuple) -> tuple[int, float]:
    num_envs, steps, seed, barrier = args
    envs = [make_gymnasium_env() for _ in range(num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=seed * 100_000 + i)
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1, 1, (64, 6)).astype(np.float32)
    for env in envs:  # warm up
        env.step(actions[0])
    if barrier is not None:
        barrier.wait()
    start = time.perf_counter()
    for t in range(steps):
        a = actions[t % 64]
        for env in envs:
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()
    return num_envs * steps, time.perf_counter() - start


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """Gymnasium HalfCheetah-v5 env steps/s: ``batch_size`` envs stepped in turn with random
    actions, split over ``num_procs`` processes. ``num_steps`` is capped so that a measurement
    takes a few seconds (the per-env cost does not depend on the batch)."""
    steps = max(2, min(num_steps, 40_000 // max(1, batch_size // max(1, num_procs))))
    if num_procs <= 1:
        done, elapsed = _gymnasium_worker((batch_size, steps, 0, None))
        return done / elapsed
    from paritygym.bench.processes import split_batch, steps_per_second_in_processes

    jobs = [(n, steps, i) for i, n in enumerate(split_batch(batch_size, num_procs))]
    return steps_per_second_in_processes(_gymnasium_worker, jobs)
