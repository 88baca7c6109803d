"""MuJoCo's C engine as the reference: course.xml stepped with mj_step (8 per agent step), the
same action-to-control map, and the game's observation and reward computed from MuJoCo's state.
Seen through paritygym's ReferenceAdapter protocol.

Records: ``obs`` (24,), ``reward``, ``qpos`` (5,), ``qvel`` (5,), ``qacc_warmstart`` (5,),
``terminated``, ``progress``.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import jax
import mujoco
import numpy as np

from climbjax import course, game
from climbjax.data import COURSE_XML, course_model
from climbjax.env import SUBSTEPS
from paritygym.verify import Record


def action_to_ctrl(action: np.ndarray, ctrlrange: np.ndarray) -> np.ndarray:
    """game.action_to_ctrl in numpy float64 (same operations in the same order: identical result)."""
    lo, hi = ctrlrange[:, 0], ctrlrange[:, 1]
    a = np.clip(np.asarray(action, np.float32).astype(np.float64), -1.0, 1.0)
    return lo + (a + 1.0) * (0.5 * (hi - lo))


@functools.lru_cache(maxsize=None)
def _game_readout(profile_key: int):
    """Jitted (qpos, qvel, head_contact) -> (observation, progress, summit), float64."""
    profile = _PROFILES[profile_key]

    def readout(qpos, qvel, head_contact):
        return (game.observation(qpos, qvel, head_contact, profile, np.float64), game.potential(qpos),
                game.summit(qpos))

    return jax.jit(readout)


_PROFILES: dict[int, tuple] = {}


class MujocoClimb:
    """One episode at a time on MuJoCo (ReferenceAdapter)."""

    def __init__(self, section: int = 0, start_x_noise: float = 0.1):
        self.m = mujoco.MjModel.from_xml_path(str(COURSE_XML))
        self.d = mujoco.MjData(self.m)
        self.section = section
        self.start_x_noise = start_x_noise
        self.head = self.m.geom("head").id
        self.profile = game.terrain_profile(course_model())
        self._profile_key = id(self.profile)
        _PROFILES[self._profile_key] = self.profile
        self._last: dict[str, Any] = {}

    def _head_contact(self) -> bool:
        c = self.d.contact
        return any(self.head in c.geom[i] and c.dist[i] < 0 for i in range(self.d.ncon))

    def _readout(self) -> tuple[np.ndarray, float, bool]:
        with jax.enable_x64(True):
            obs, progress, summit = jax.device_get(_game_readout(self._profile_key)(
                self.d.qpos.copy(), self.d.qvel.copy(), np.bool_(self._head_contact())))
        return np.asarray(obs), float(progress), bool(summit)

    def _record(self, reward: float = 0.0, terminated: bool = False) -> Record:
        d = self.d
        obs, progress, _ = self._readout()
        self._last = dict(obs=obs, reward=np.float64(reward), qpos=d.qpos.copy(), qvel=d.qvel.copy(),
                          qacc_warmstart=d.qacc_warmstart.copy(), terminated=np.bool_(terminated),
                          progress=np.float64(progress))
        return self._last

    def reset(self, seed: int) -> Record:
        rng = np.random.default_rng(seed)
        mujoco.mj_resetData(self.m, self.d)
        x, z = course.SECTION_STARTS[self.section]
        x += rng.uniform(-self.start_x_noise, self.start_x_noise)
        self.d.qpos[:] = [x, z - game.POT_Z_OFFSET, 0.0, *game.START_HAMMER]
        mujoco.mj_forward(self.m, self.d)
        return self._record()

    def step(self, action: Any) -> Record:
        before = self._last.get("progress")
        if before is None:
            before = self._record()["progress"]
        action = np.asarray(action, np.float32)
        if not np.all(np.isfinite(action)):
            action = np.zeros_like(action)
        self.d.ctrl[:] = action_to_ctrl(action, self.m.actuator_ctrlrange)
        mujoco.mj_step(self.m, self.d, nstep=SUBSTEPS)
        mujoco.mj_forward(self.m, self.d)  # contacts of the new state, for the observation (state unchanged)
        _, after, summit = self._readout()
        reward = (after - before) + (10.0 if summit else 0.0)
        return self._record(reward, summit)

    def get_state(self) -> Record:
        return dict(self._last)

    def set_state(self, state: Record) -> None:
        self.d.qpos[:] = np.asarray(state["qpos"], np.float64)
        self.d.qvel[:] = np.asarray(state["qvel"], np.float64)
        mujoco.mj_forward(self.m, self.d)
        if "qacc_warmstart" in state:
            self.d.qacc_warmstart[:] = np.asarray(state["qacc_warmstart"], np.float64)
        self._record()

    def close(self) -> None:
        pass


def _mujoco_worker(args: tuple) -> tuple[int, float]:
    """Steps ``batch_size`` MjData of the course in turn with random actions; (agent steps, seconds)."""
    batch_size, steps, seed, barrier = args
    m = mujoco.MjModel.from_xml_path(str(COURSE_XML))
    datas = [mujoco.MjData(m) for _ in range(batch_size)]
    rng = np.random.default_rng(seed)
    for k, d in enumerate(datas):
        d.qpos[:] = [course.SECTION_STARTS[k % course.NUM_SECTIONS][0], course.SECTION_STARTS[k % course.NUM_SECTIONS][1]
                     - game.POT_Z_OFFSET, 0.0, *game.START_HAMMER]
    if barrier is not None:
        barrier.wait()  # all processes start timing together
    start = time.perf_counter()
    for _ in range(steps):
        for d in datas:
            d.ctrl[:] = action_to_ctrl(rng.uniform(-1, 1, m.nu), m.actuator_ctrlrange)
            mujoco.mj_step(m, d, nstep=SUBSTEPS)
    return steps * batch_size, time.perf_counter() - start


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """Agent steps per second of the MuJoCo C reference: ``batch_size`` MjData stepped in turn with
    random actions (8 mj_step each), split over ``num_procs`` processes started together."""
    steps = max(1, num_steps // batch_size)
    if num_procs <= 1:
        done, elapsed = _mujoco_worker((batch_size, steps, 0, None))
        return done / elapsed
    from paritygym.bench.processes import split_batch, steps_per_second_in_processes

    jobs = [(n, steps, i) for i, n in enumerate(split_batch(batch_size, num_procs))]
    return steps_per_second_in_processes(_mujoco_worker, jobs)
