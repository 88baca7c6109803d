"""The C reference (pongjax/csrc/pong.c): compiled on first use with the system C compiler at -O3,
loaded with ctypes, driven in batches through numpy arrays.

`CPong` is the batched C engine with state get/set (so tests can inject states); `CPongAdapter`
is the single-env `paritygym.verify.ReferenceAdapter`; `bench_reference` is the benchmark hook.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pathlib
import subprocess
import tempfile
import time
from typing import Any

import gymnasium
import numpy as np

from paritygym.references import require_program
from pongjax.game import PongParams

SOURCE = pathlib.Path(__file__).with_name("csrc") / "pong.c"
CFLAGS = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC"]

STATE_DTYPE = np.dtype(
    [
        ("paddle_yl", np.float32), ("paddle_yr", np.float32),
        ("ball_x", np.float32), ("ball_y", np.float32), ("ball_vx", np.float32), ("ball_vy", np.float32),
        ("score_l", np.uint32), ("score_r", np.uint32),
        ("tick", np.int32), ("n_bounces", np.int32),
        ("obs", np.float32, (8,)),
    ]
)  # fmt: skip
STATE_FIELDS = [name for name in STATE_DTYPE.names]


class _Config(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_float)
        for name in (
            "width", "height", "paddle_width", "paddle_height", "paddle_speed", "ball_width", "ball_height",
            "ball_initial_speed_x", "ball_initial_speed_y", "ball_speed_y_increment", "ball_max_speed_y",
        )
    ] + [("max_score", ctypes.c_uint32), ("frameskip", ctypes.c_int32), ("continuous", ctypes.c_int32), ("corrected", ctypes.c_int32)]  # fmt: skip


def _cache_dir() -> pathlib.Path:
    root = os.environ.get("PARITYGYM_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "paritygym")
    path = pathlib.Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def compile_library() -> pathlib.Path:
    """Compiles pong.c (once per source/flags version) and returns the shared library's path."""
    cc = os.environ.get("CC") or require_program("cc", "the Pong C reference (pongjax/csrc/pong.c)", "gcc", "clang")
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:16]
    target = _cache_dir() / f"pong_ref_{digest}.so"
    if not target.exists():
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            out = pathlib.Path(tmp) / target.name
            subprocess.run([cc, *CFLAGS, str(SOURCE), "-o", str(out)], check=True, capture_output=True, text=True)
            os.replace(out, target)  # atomic: concurrent test workers never see a half-written file
    return target


_LIB: ctypes.CDLL | None = None


def load_library() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(str(compile_library()))
        ptr = ctypes.c_void_p
        lib.pong_reset.argtypes = [ptr, ptr, ctypes.c_int32, ptr]
        lib.pong_step.argtypes = [ptr, ptr, ctypes.c_int32, ptr, ptr, ptr, ptr]
        lib.pong_step_rand_logged.argtypes = [ptr, ptr, ctypes.c_int32, ptr, ptr, ptr, ptr]
        lib.pong_observations.argtypes = [ptr, ctypes.c_int32, ptr]
        lib.pong_random_rollout.argtypes = [ptr, ptr, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32]
        lib.pong_random_rollout.restype = ctypes.c_double
        lib.pong_state_size.restype = ctypes.c_int32
        lib.pong_config_size.restype = ctypes.c_int32
        if lib.pong_state_size() != STATE_DTYPE.itemsize or lib.pong_config_size() != ctypes.sizeof(_Config):
            raise RuntimeError("pong.c struct layout does not match pongjax.reference")
        _LIB = lib
    return _LIB


def _ptr(arr: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(arr.ctypes.data)


class CPong:
    """A batch of ``num_envs`` C Pong envs.

    Args:
        params: court geometry and speeds (pongjax's `PongParams`).
        frameskip, continuous, corrected: as in `pongjax.env.Pong`.
    """

    def __init__(self, num_envs: int, params: PongParams | None = None, frameskip: int = 1,
                 continuous: bool = False, corrected: bool = False):
        self.lib = load_library()
        p = params or PongParams()
        self.config = _Config(
            p.width, p.height, p.paddle_width, p.paddle_height, p.paddle_speed, p.ball_width, p.ball_height,
            p.ball_initial_speed_x, p.ball_initial_speed_y, p.ball_speed_y_increment, p.ball_max_speed_y,
            int(p.max_score), int(frameskip), int(bool(continuous)), int(bool(corrected)),
        )  # fmt: skip
        self.num_envs = num_envs
        self.continuous = continuous
        self.states = np.zeros(num_envs, STATE_DTYPE)
        self.rewards = np.zeros(num_envs, np.float32)
        self.terminals = np.zeros(num_envs, np.uint8)

    def reset(self, bits: np.ndarray | None = None) -> np.ndarray:
        """Starts new games; ``bits`` (uint8[num_envs]) are the round-start random bits (None: rand())."""
        bits_arr = None if bits is None else np.ascontiguousarray(bits, np.uint8)
        self.lib.pong_reset(ctypes.byref(self.config), _ptr(self.states), self.num_envs,
                            None if bits_arr is None else _ptr(bits_arr))
        return self.states["obs"].copy()

    def reset_one(self, i: int, bit: int) -> None:
        """Starts a new game in env ``i`` only."""
        bits = np.array([bit], np.uint8)
        address = self.states.ctypes.data + i * STATE_DTYPE.itemsize
        self.lib.pong_reset(ctypes.byref(self.config), ctypes.c_void_p(address), 1, _ptr(bits))

    def step(self, actions: np.ndarray, bits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Steps every env once; returns copies of (obs, rewards, terminals)."""
        acts = np.ascontiguousarray(np.asarray(actions, np.float32).reshape(self.num_envs))
        bits_arr = None if bits is None else np.ascontiguousarray(bits, np.uint8)
        self.lib.pong_step(ctypes.byref(self.config), _ptr(self.states), self.num_envs, _ptr(acts),
                           None if bits_arr is None else _ptr(bits_arr), _ptr(self.rewards), _ptr(self.terminals))
        return self.states["obs"].copy(), self.rewards.copy(), self.terminals.astype(bool)

    def step_rand_logged(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Steps with round-start bits from C's `rand()` (as PufferLib draws them); returns copies of
        (obs, rewards, terminals, bits drawn: 0/1, or 2 where an env drew none)."""
        acts = np.ascontiguousarray(np.asarray(actions, np.float32).reshape(self.num_envs))
        bits = np.empty(self.num_envs, np.uint8)
        self.lib.pong_step_rand_logged(ctypes.byref(self.config), _ptr(self.states), self.num_envs, _ptr(acts),
                                       _ptr(self.rewards), _ptr(self.terminals), _ptr(bits))  # fmt: skip
        return self.states["obs"].copy(), self.rewards.copy(), self.terminals.astype(bool), bits

    def get_state(self, i: int = 0) -> dict[str, np.ndarray]:
        return {name: np.array(self.states[i][name]) for name in STATE_FIELDS}

    def set_state(self, state: dict[str, Any], i: int = 0) -> None:
        for name in STATE_FIELDS:
            self.states[i][name] = state[name]

    def random_rollout(self, steps: int, seed: int = 0) -> float:
        """Benchmark loop entirely in C (random actions and round bits from rand())."""
        return self.lib.pong_random_rollout(ctypes.byref(self.config), _ptr(self.states), self.num_envs, steps, seed)


class CPongAdapter:
    """One C Pong env as a `paritygym.verify.ReferenceAdapter`.

    Records have the fields of `pongjax.reference.STATE_FIELDS` plus reward and terminated. The
    caller supplies each step's random bit (``bit=``) so that the C env draws what our env drew.
    """

    def __init__(self, **kwargs: Any):
        self.env = CPong(1, **kwargs)

    def _record(self, reward: float = 0.0, terminated: bool = False) -> dict[str, np.ndarray]:
        rec = self.env.get_state(0)
        rec["reward"] = np.float32(reward)
        rec["terminated"] = np.bool_(terminated)
        return rec

    def reset(self, seed: int) -> dict[str, np.ndarray]:
        self.env.reset(np.array([seed & 1], np.uint8))
        return self._record()

    def step(self, action: Any, bit: int | None = None) -> dict[str, np.ndarray]:
        bits = None if bit is None else np.array([bit], np.uint8)
        _, reward, terminal = self.env.step(np.array([action], np.float32), bits)
        return self._record(float(reward[0]), bool(terminal[0]))

    def get_state(self) -> dict[str, np.ndarray]:
        return self.env.get_state(0)

    def set_state(self, state: dict[str, Any]) -> None:
        self.env.set_state(state, 0)

    def close(self) -> None:
        pass


class CPongVectorEnv(gymnasium.vector.VectorEnv):
    """The C reference as a Gymnasium vector env (numpy in/out, same-step autoreset), so that policies
    can be trained and evaluated on the reference itself (L4). Round-start bits come from a numpy
    generator seeded by ``seed``; ``max_steps_in_episode`` truncates like `Pong-v0`'s parameter."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, seed: int = 0, frameskip: int = 1, continuous: bool = False,
                 corrected: bool = False, max_steps_in_episode: int = 2**31 - 1):
        self.env = CPong(num_envs, frameskip=frameskip, continuous=continuous, corrected=corrected)
        self.num_envs = num_envs
        self.max_steps = max_steps_in_episode
        self.single_observation_space = gymnasium.spaces.Box(-0.025, 1.0, (8,), np.float32)
        self.single_action_space = (
            gymnasium.spaces.Box(-1.0, 1.0, (1,), np.float32) if continuous else gymnasium.spaces.Discrete(3)
        )
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(seed)
        self._time = np.zeros(num_envs, np.int64)

    def _bits(self, n: int) -> np.ndarray:
        return self._rng.integers(0, 2, n, dtype=np.uint8)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._time[:] = 0
        return self.env.reset(self._bits(self.num_envs)), {}

    def step(self, actions):
        from paritygym.spaces import validate_batched_action

        actions = validate_batched_action(actions, self.single_action_space, self.num_envs)
        obs, reward, terminated = self.env.step(actions, self._bits(self.num_envs))
        self._time = np.where(terminated, 0, self._time + 1)
        truncated = (self._time >= self.max_steps) & ~terminated
        final_obs = obs.copy()
        for i in np.flatnonzero(truncated):
            self.env.reset_one(int(i), int(self._bits(1)[0]))
            self._time[i] = 0
        if truncated.any():
            obs = self.env.states["obs"].copy()
        return obs, reward, terminated, truncated, {"final_obs": final_obs}


def _rollout_worker(args: tuple[int, int, int, dict, int, Any]) -> tuple[int, float]:
    num_envs, steps, seed, kwargs, _, barrier = args
    env = CPong(num_envs, **kwargs)
    env.reset()
    env.random_rollout(min(steps, 10), seed)  # warm caches
    barrier.wait()
    start = time.perf_counter()
    env.random_rollout(steps, seed)
    return num_envs * steps, time.perf_counter() - start


def bench_reference(batch_size: int, num_steps: int, num_procs: int, **kwargs: Any) -> float:
    """C reference steps/s: ``batch_size`` envs stepped ``num_steps`` times with random actions,
    the whole loop in C, split over ``num_procs`` processes (one per core: PufferLib's layout)."""
    load_library()  # compile before timing
    if num_procs <= 1:
        env = CPong(batch_size, **kwargs)
        env.reset()
        env.random_rollout(min(num_steps, 10), 1)
        steps = _steps_for(batch_size, num_steps)
        start = time.perf_counter()
        env.random_rollout(steps, 0)
        return batch_size * steps / (time.perf_counter() - start)
    from paritygym.bench.processes import split_batch, steps_per_second_in_processes

    per_proc = split_batch(batch_size, num_procs)
    steps = _steps_for(max(per_proc), num_steps)
    return steps_per_second_in_processes(_rollout_worker, [(n, steps, i, kwargs, i) for i, n in enumerate(per_proc)])


def _steps_for(batch: int, requested: int) -> int:
    """At least ``requested`` steps, and at least ~2M env steps so that timing is not noise."""
    return max(requested, 2_000_000 // max(batch, 1))
