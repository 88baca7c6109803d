"""Game Boy RL environments over emurust (`GameBoy-v0`).

Any DMG ROM becomes an env by saying what the agent sees (screen, RAM bytes or both), which
buttons it may press (a discrete action table of button masks), and how reward and termination
follow from RAM. Reward and termination are plain Python functions of RAM read in batch: each
step the Rust batch writes the watched bytes of every emulator into one array, and the functions
get `RamView`s of it (before and after the step) and return one value per env.

    venv = paritygym.make_vec("GameBoy-v0", num_envs=64, seed=0)            # the bundled CATCH game
    venv = paritygym.make_vec("GameBoy-v0", num_envs=64, rom_path="game.gb",
                              reward=ram_delta(0xD000, size=2), terminated=ram_equals(0xD010, 1))

Helpers: `ram_delta` (change of a RAM value, the usual score reward), `ram_value`,
`ram_equals`, `ram_in`, `combine`. A function may declare the addresses it reads in an `addresses`
attribute (the helpers do); otherwise pass `watch=[...]`.

Episodes start from a reset state: for the bundled games, the title screen is left after a random
number (0..`noop_max`) of frames chosen from the seed, which seeds the game's own random numbers;
for other ROMs, power-on or `reset_state` (bytes from `GameBoy.save_state`). Autoreset is
same-step, like paritygym's JAX envs: a finished env's returned observation is the first of its
next episode and `info["final_obs"]` holds the last one.
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import warnings
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import emurust
from paritygym.checks import check_value

# ---- RAM views and reward/termination helpers -------------------------------------------------


class RamView:
    """The watched RAM bytes of every env: `view[addr]` is a (num_envs,) int64 array."""

    def __init__(self, data: np.ndarray, columns: dict[int, int]) -> None:
        self.data = data
        self.columns = columns

    def __getitem__(self, address: int) -> np.ndarray:
        try:
            return self.data[:, self.columns[address]].astype(np.int64)
        except KeyError:
            raise KeyError(f"address {address:#06x} is not watched; add it to `watch` or to the function's `addresses`") from None

    def value(self, address: int, size: int = 1, byteorder: str = "little", bcd: bool = False, signed: bool = False) -> np.ndarray:
        """A multi-byte value: `size` bytes from `address`, as binary or packed BCD."""
        order = range(size) if byteorder == "little" else range(size - 1, -1, -1)
        total = np.zeros(self.data.shape[0], np.int64)
        scale = 1
        for i in order:
            b = self[address + i]
            if bcd:
                total += ((b >> 4) * 10 + (b & 15)) * scale
                scale *= 100
            else:
                total += b * scale
                scale *= 256
        if signed and not bcd:
            total = np.where(total >= scale // 2, total - scale, total)
        return total


RewardFn = Callable[[RamView, RamView], np.ndarray]
TerminationFn = Callable[[RamView], np.ndarray]


def _with_addresses(fn: Callable, addresses: Sequence[int], description: str) -> Callable:
    fn.addresses = tuple(addresses)  # type: ignore[attr-defined]
    fn.description = description  # type: ignore[attr-defined]
    return fn


def ram_value(address: int, size: int = 1, byteorder: str = "little", bcd: bool = False, signed: bool = False, scale: float = 1.0) -> RewardFn:
    """Reward = the value itself (times `scale`) after each step."""
    def reward(prev: RamView, now: RamView) -> np.ndarray:
        return (now.value(address, size, byteorder, bcd, signed) * scale).astype(np.float32)
    return _with_addresses(reward, range(address, address + size), f"value of {size} byte(s) at {address:#06x}")


def ram_delta(address: int, size: int = 1, byteorder: str = "little", bcd: bool = False, signed: bool = False,
              scale: float = 1.0, clip: tuple[float, float] | None = None) -> RewardFn:
    """Reward = change of a RAM value over the step (e.g. a score), times `scale`, optionally clipped."""
    def reward(prev: RamView, now: RamView) -> np.ndarray:
        d = (now.value(address, size, byteorder, bcd, signed) - prev.value(address, size, byteorder, bcd, signed)) * scale
        if clip is not None:
            d = np.clip(d, *clip)
        return d.astype(np.float32)
    return _with_addresses(reward, range(address, address + size), f"change of {size} byte(s) at {address:#06x}")


def ram_equals(address: int, value: int) -> TerminationFn:
    """Terminated when the byte at `address` equals `value`."""
    def terminated(now: RamView) -> np.ndarray:
        return now[address] == value
    return _with_addresses(terminated, [address], f"byte {address:#06x} == {value}")


def ram_in(address: int, values: Sequence[int]) -> TerminationFn:
    """Terminated when the byte at `address` is one of `values`."""
    vals = np.asarray(list(values), np.int64)
    def terminated(now: RamView) -> np.ndarray:
        return np.isin(now[address], vals)
    return _with_addresses(terminated, [address], f"byte {address:#06x} in {list(values)}")


def combine(*fns: Callable) -> Callable:
    """Sum of rewards, or logical OR of terminations (decided by the first function's arity)."""
    import inspect

    addresses = sorted({a for f in fns for a in getattr(f, "addresses", ())})
    if len(inspect.signature(fns[0]).parameters) == 2:
        def reward(prev: RamView, now: RamView) -> np.ndarray:
            return np.sum([f(prev, now) for f in fns], axis=0).astype(np.float32)
        return _with_addresses(reward, addresses, " + ".join(getattr(f, "description", "?") for f in fns))

    def terminated(now: RamView) -> np.ndarray:
        return np.any([f(now) for f in fns], axis=0)
    return _with_addresses(terminated, addresses, " or ".join(getattr(f, "description", "?") for f in fns))


def step_outcome(reward_fn: Callable | None, terminated_fn: Callable | None, prev: RamView, now: RamView,
                 steps: np.ndarray, max_episode_steps: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(reward, terminated, truncated) of one batched step from the RAM before and after it; shared
    by GameBoy-v0 and the PyBoy backend of its L4 so both score a game the same way."""
    num_envs = len(steps)
    reward = np.zeros(num_envs, np.float32) if reward_fn is None else np.asarray(reward_fn(prev, now), np.float32)
    terminated = np.zeros(num_envs, bool) if terminated_fn is None else np.asarray(terminated_fn(now), bool)
    if reward.shape != (num_envs,) or terminated.shape != (num_envs,):
        raise ValueError(f"reward/terminated functions must return shape ({num_envs},), got {reward.shape} and {terminated.shape}")
    truncated = (steps >= max_episode_steps) & ~terminated if max_episode_steps else np.zeros(num_envs, bool)
    return reward, terminated, truncated


# ---- bundled games -----------------------------------------------------------------------------

START = 0x08
#: A generic action table for arbitrary ROMs: nothing, single buttons, and A/B with a direction.
DEFAULT_ACTIONS = (0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x11, 0x21, 0x12, 0x22)


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything GameBoy-v0 needs to know about a bundled game."""

    rom: Callable[[], bytes]
    actions: tuple[int, ...]
    reward: RewardFn
    terminated: TerminationFn
    #: Frames to hold per start-up phase: boot and title wait, then (noops), then START.
    boot_frames: int
    ram_observation: tuple[int, ...]
    description: str


def _catch_rom() -> bytes:
    from emurust.roms import rom_bytes

    return rom_bytes("catch")


GAMES: dict[str, GameSpec] = {
    "catch": GameSpec(
        rom=_catch_rom,
        # nothing, left, right, left fast, right fast
        actions=(0x00, 0x20, 0x10, 0x21, 0x11),
        reward=ram_delta(0xC0A0, size=2),
        terminated=ram_equals(0xC0A3, 2),
        boot_frames=12,
        # score (2), lives, state, paddle x, then the six falling objects (kind, x, y)
        ram_observation=tuple(range(0xC0A0, 0xC0A5)) + tuple(range(0xC0A8, 0xC0BA)),
        description="CATCH (emurust/roms/catch): score +1 per fruit, +5 per coin; game over after 3 lives",
    ),
}


@functools.lru_cache(maxsize=16)
def _start_states(rom: bytes, boot_rom: bytes | None, profile: str, boot_frames: int, noop_max: int) -> tuple[bytes, ...]:
    """States right after a game starts, one per number of title frames waited (0..noop_max)."""
    gb = emurust.GameBoy(rom, boot_rom=boot_rom, profile=profile)
    gb.tick(boot_frames, False)
    states = []
    for noops in range(noop_max + 1):
        if noops:
            gb.tick(1, False)
        branch = emurust.GameBoy(rom, boot_rom=boot_rom, profile=profile)
        branch.load_state(gb.save_state())
        branch.buttons = START
        branch.tick(2, False)
        branch.buttons = 0
        branch.tick(2, False)
        states.append(branch.save_state())
    return tuple(states)


# ---- the vector env ---------------------------------------------------------------------------

_UNSET = object()  # a deprecated option not given (None is a value: no time limit)


class GameBoyVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` Game Boys stepped together by one Rust call per step (threaded, GIL released).

    Args:
        num_envs, seed: batch size and the seed of the reset choices.
        game: a bundled game (`"catch"`), used when neither `rom` nor `rom_path` is given.
        rom, rom_path: any DMG ROM (bytes or file); then give `reward`/`terminated` (default: none).
        frame_skip: frames per step; buttons are held through them and only the last is drawn.
        observation: "screen", "ram" or "screen+ram" (a Dict space with keys "screen" and "ram").
        screen: "gray" (H, W) or "rgb" (H, W, 3) uint8; downscale: 1, 2, 4, 8 or 16 (block mean).
        ram_addresses: bytes observed with "ram" (default: the game's, else none).
        actions: discrete action table of button masks (bit 0 A, 1 B, 2 Select, 3 Start, 4 Right,
            5 Left, 6 Up, 7 Down).
        reward, terminated: functions of RAM (see the module docstring); `watch` adds addresses.
        max_steps_in_episode: truncation after this many steps (None: never); `max_episode_steps` is
            its deprecated name.
        noop_max: bundled games start after 0..noop_max title frames chosen from the seed.
        reset_state: for custom ROMs, the state episodes start from (default: power-on).
        boot_rom, profile: passed to the emulator ("pyboy" matches PyBoy 2.8.1 frame for frame).
        num_threads: threads stepping the batch, the calling one included (0 = one per core).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        *,
        game: str | None = "catch",
        rom: bytes | None = None,
        rom_path: str | pathlib.Path | None = None,
        frame_skip: int = 4,
        observation: str = "screen",
        screen: str = "gray",
        downscale: int = 2,
        ram_addresses: Sequence[int] | None = None,
        actions: Sequence[int] | None = None,
        reward: RewardFn | None = None,
        terminated: TerminationFn | None = None,
        watch: Sequence[int] = (),
        max_steps_in_episode: int | None = 10_000,
        noop_max: int = 30,
        reset_state: bytes | None = None,
        boot_rom: bytes | None = None,
        profile: str = "pyboy",
        num_threads: int = 0,
        max_episode_steps: int | None | object = _UNSET,
    ) -> None:
        if max_episode_steps is not _UNSET:
            warnings.warn("GameBoy-v0: option 'max_episode_steps' is deprecated, use 'max_steps_in_episode'",
                          DeprecationWarning, stacklevel=2)
            max_steps_in_episode = max_episode_steps
        # checked here, before any emulator is made: the same rules and messages as the JAX envs'
        frame_skip = check_value("frame_skip", frame_skip, "int", ge=1, le=1 << 16)
        downscale = check_value("downscale", downscale, "int", choices=(1, 2, 4, 8, 16))
        noop_max = check_value("noop_max", noop_max, "int", ge=0)
        num_threads = check_value("num_threads", num_threads, "int", ge=0)
        if max_steps_in_episode is not None:
            max_steps_in_episode = check_value("max_steps_in_episode", max_steps_in_episode, "int", ge=1)
        for name, value, choices in (("screen", screen, ("gray", "rgb")), ("profile", profile, ("pyboy", "hardware")),
                                     ("observation", observation, ("screen", "ram", "screen+ram"))):
            if value not in choices:
                raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
        if rom is not None and rom_path is not None:
            raise ValueError("give `rom` or `rom_path`, not both")
        if rom_path is not None:
            path = pathlib.Path(rom_path)
            if not path.is_file():
                raise FileNotFoundError(f"ROM file not found: {path}")
            rom = path.read_bytes()
        spec = None
        if rom is None:
            if game not in GAMES:
                raise ValueError(f"unknown game {game!r}; bundled games: {sorted(GAMES)} (or pass rom/rom_path)")
            spec = GAMES[game]
            rom = spec.rom()
        self.num_envs = num_envs
        self.game = game if spec is not None else None
        self.frame_skip = frame_skip
        self.observation_kind = observation
        self.max_steps_in_episode = max_steps_in_episode
        self.actions = np.asarray(actions if actions is not None else (spec.actions if spec else DEFAULT_ACTIONS), dtype=np.uint8)
        if self.actions.ndim != 1 or len(self.actions) == 0:
            raise ValueError("actions must be a non-empty list of button masks")
        self.reward_fn = reward if reward is not None else (spec.reward if spec else None)
        self.terminated_fn = terminated if terminated is not None else (spec.terminated if spec else None)
        obs_ram = list(ram_addresses if ram_addresses is not None else (spec.ram_observation if spec else ()))
        if "ram" in observation and not obs_ram:
            raise ValueError("observation includes 'ram' but no ram_addresses were given")
        self.obs_ram = obs_ram if "ram" in observation else []
        watched = set(watch)
        for fn in (self.reward_fn, self.terminated_fn):
            watched.update(getattr(fn, "addresses", ()))
        # One batched read serves the observation and the reward/termination functions.
        self.read_addresses = list(dict.fromkeys([*self.obs_ram, *sorted(watched)]))
        self._columns = {a: i for i, a in enumerate(self.read_addresses)}
        self._obs_ram_columns = [self._columns[a] for a in self.obs_ram]

        use_screen = "screen" in observation
        self.vec = emurust.VecGameBoy(
            rom, num_envs, frame_skip, screen=screen if use_screen else None, downscale=downscale,
            ram_addresses=self.read_addresses, boot_rom=boot_rom, profile=profile, num_threads=num_threads,
        )
        if spec is not None:
            self._starts = _start_states(rom, boot_rom, profile, spec.boot_frames, noop_max)
        else:
            self._starts = (reset_state,) if reset_state is not None else ()
            if reset_state is not None:
                self.vec.reset_state = reset_state  # validates the state now

        self._screen = np.zeros(self.vec.screen_shape, np.uint8) if use_screen else None
        self._ram = np.zeros(self.vec.ram_shape, np.uint8)
        self._prev_ram = np.zeros_like(self._ram)
        self._steps = np.zeros(num_envs, np.int64)
        self._rng = np.random.default_rng(seed)

        screen_space = None
        if use_screen:
            screen_space = gymnasium.spaces.Box(0, 255, tuple(self.vec.screen_shape[1:]), np.uint8)
        ram_space = gymnasium.spaces.Box(0, 255, (len(self.obs_ram),), np.uint8)
        if observation == "screen":
            self.single_observation_space = screen_space
        elif observation == "ram":
            self.single_observation_space = ram_space
        else:
            self.single_observation_space = gymnasium.spaces.Dict({"screen": screen_space, "ram": ram_space})
        self.single_action_space = gymnasium.spaces.Discrete(len(self.actions))
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._started = False

    # -- helpers --

    def _observation(self) -> Any:
        ram = self._ram[:, self._obs_ram_columns] if self.obs_ram else None
        if self.observation_kind == "screen":
            return self._screen.copy()
        if self.observation_kind == "ram":
            return ram.copy()
        return {"screen": self._screen.copy(), "ram": ram.copy()}

    def _outputs(self) -> dict[str, np.ndarray]:
        out = {}
        if self._screen is not None:
            out["screen_out"] = self._screen
        if self.read_addresses:
            out["ram_out"] = self._ram
        return out

    def _restart(self, mask: np.ndarray) -> None:
        """Puts the envs in `mask` at the start of a new episode (a seeded choice of start state)."""
        idx = np.flatnonzero(mask)
        if self._starts:
            for i in idx:
                self.vec.load_state(int(i), self._starts[int(self._rng.integers(len(self._starts)))])
        else:
            self.vec.reset(mask)
        self._steps[idx] = 0

    # -- gymnasium API --

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative int, got {seed!r}")
            self._rng = np.random.default_rng(int(seed))
        self._restart(np.ones(self.num_envs, bool))
        self.vec.observe(**self._outputs())
        self._started = True
        return self._observation(), {}

    def step(self, actions: Any):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = _validate_actions(actions, len(self.actions), self.num_envs)
        self._prev_ram[...] = self._ram
        self.vec.step(self.actions[actions], **self._outputs())
        self._steps += 1
        prev = RamView(self._prev_ram, self._columns)
        now = RamView(self._ram, self._columns)
        reward, terminated, truncated = step_outcome(self.reward_fn, self.terminated_fn, prev, now, self._steps,
                                                     self.max_steps_in_episode)
        obs = self._observation()
        info: dict[str, Any] = {}
        done = terminated | truncated
        if done.any():
            info["final_obs"] = obs
            info["final_observation"] = obs
            info["episode_steps"] = np.where(done, self._steps, 0)
            self._restart(done)
            self.vec.observe(**self._outputs())
            obs = self._observation()
        return obs, reward, terminated, truncated, info

    def save_state(self, index: int) -> bytes:
        return self.vec.save_state(index)

    def load_state(self, index: int, state: bytes) -> None:
        self.vec.load_state(index, state)

    def close_extras(self, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        return f"GameBoyVectorEnv(game={self.game!r}, num_envs={self.num_envs}, frame_skip={self.frame_skip}, observation={self.observation_kind!r})"


class GameBoyEnv(gymnasium.Env):
    """A single Game Boy env (a `GameBoyVectorEnv` of one); same arguments minus `num_envs`.

    GameBoy-v0's single-env entry point: `paritygym.make` returns the functional API of JAX envs,
    which a native env lacks, so it refuses GameBoy-v0 and names this class and `make_vec`."""

    metadata = {"render_modes": []}

    def __init__(self, seed: int = 0, **kwargs: Any) -> None:
        self.vector = GameBoyVectorEnv(1, seed, **kwargs)
        self.observation_space = self.vector.single_observation_space
        self.action_space = self.vector.single_action_space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.vector.reset(seed=seed)
        return _unbatch(obs), info

    def step(self, action: int):
        obs, reward, terminated, truncated, info = self.vector.step(np.array([action]))
        return _unbatch(obs), float(reward[0]), bool(terminated[0]), bool(truncated[0]), info


def _validate_actions(actions: Any, n: int, num_envs: int) -> np.ndarray:
    """Checks a batch of Discrete(n) actions (same rules as paritygym's vector API, without JAX)."""
    arr = np.asarray(actions)
    if arr.dtype == object:
        raise TypeError(f"actions must be a numeric array, got {type(actions).__name__}")
    if arr.shape != (num_envs,):
        raise ValueError(f"actions must have shape ({num_envs},) for Discrete({n}), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"actions for Discrete({n}) must have an integer dtype, got {arr.dtype}; cast with .astype(np.int32)")
    bad = np.flatnonzero((arr < 0) | (arr >= n))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"action {int(arr[i])} of env {i} is outside Discrete({n}) (valid: 0..{n - 1})")
    return arr.astype(np.intp)


def _unbatch(obs: Any) -> Any:
    if isinstance(obs, dict):
        return {k: v[0] for k, v in obs.items()}
    return obs[0]
