"""L4 for GameBoy-v0: does a policy trained on emurust score the same when the game runs in PyBoy?

Training on PyBoy is not affordable on a CPU machine (one PyBoy runs a few thousand frames per
second; a PPO run is millions of frames), so this checks *evaluation transfer* only: a PPO policy
trained on emurust by `examples/ppo_gameboy.py` (CATCH, RAM observation, frame skip 4) plays
``episodes`` episodes on each backend, sampled (stochastic) policy. PyBoy runs the bundled CATCH
ROM behind a vector env with GameBoy-v0's exact episode protocol (same start states: the title
screen left after 0..noop_max frames chosen by a seeded generator; same RAM observation, reward and
termination functions from `emurust.env.GAMES`). Episodes on the two backends are independent
draws (seed-matched episodes would be identical frame for frame, which L3 already shows). A Welch
TOST on the episode return (margin 0.5 reward, alpha 0.05) judges equivalence.

    python examples/ppo_gameboy.py --time-budget-s 480   # writes runs/ppo_gameboy/checkpoint.msgpack
    paritygym verify GameBoy-v0 --level 4 --episodes 1024 \\
        --out docs/verification/GameBoy-v0-L4.json --markdown docs/verification/GameBoy-v0-L4.md
"""

from __future__ import annotations

import io
import pathlib
import time
from typing import Any

import gymnasium
import numpy as np

from emurust.env import GAMES, START, RamView, step_outcome

ENV_ID = "GameBoy-v0"
L4_MARGIN = 0.5  # equivalence margin of the TOST on mean episode return (reward units)
#: The policy evaluated: `$PARITYGYM_GAMEBOY_POLICY`, else what `examples/ppo_gameboy.py` writes.
DEFAULT_CHECKPOINT = "runs/ppo_gameboy/checkpoint.msgpack"


class PyBoyGameVectorEnv(gymnasium.vector.VectorEnv):
    """A bundled game on ``num_envs`` PyBoy 2.8.1 instances, with GameBoy-v0's protocol for the RAM
    observation: discrete action table of button masks held for ``frame_skip`` frames, reward and
    termination functions of RAM, truncation after ``max_episode_steps``, same-step autoreset into
    one of the game's start states (chosen by a generator seeded with ``seed``)."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, seed: int = 0, *, game: str = "catch", frame_skip: int = 4,
                 max_episode_steps: int | None = 10_000, noop_max: int = 30) -> None:  # fmt: skip
        from emurust.reference import PyBoyReference

        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; bundled games: {sorted(GAMES)}")
        if num_envs < 1 or frame_skip < 1 or noop_max < 0:
            raise ValueError("num_envs and frame_skip must be positive and noop_max non-negative")
        spec = GAMES[game]
        self.num_envs = num_envs
        self.frame_skip = frame_skip
        self.max_episode_steps = max_episode_steps
        self.actions = np.asarray(spec.actions, np.uint8)
        self.reward_fn, self.terminated_fn = spec.reward, spec.terminated
        self.obs_ram = list(spec.ram_observation)
        watched = sorted({*self.reward_fn.addresses, *self.terminated_fn.addresses})
        self.read_addresses = list(dict.fromkeys([*self.obs_ram, *watched]))
        self._columns = {a: i for i, a in enumerate(self.read_addresses)}
        rom = spec.rom()
        self.machines = [PyBoyReference(rom) for _ in range(num_envs)]
        self._starts = self._start_states(self.machines[0], spec.boot_frames, noop_max)
        self._ram = np.zeros((num_envs, len(self.read_addresses)), np.uint8)
        self._steps = np.zeros(num_envs, np.int64)
        self._rng = np.random.default_rng(seed)
        self.single_observation_space = gymnasium.spaces.Box(0, 255, (len(self.obs_ram),), np.uint8)
        self.single_action_space = gymnasium.spaces.Discrete(len(self.actions))
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    @staticmethod
    def _start_states(machine, boot_frames: int, noop_max: int) -> list[bytes]:
        """PyBoy states right after the game starts, one per number of title frames waited, made the
        way GameBoy-v0 makes its own (boot frames, then n frames, then START held 2 frames, 2 more)."""
        pb = machine.pyboy
        pb.tick(boot_frames, False)
        title = io.BytesIO()
        pb.save_state(title)
        states = []
        for noops in range(noop_max + 1):
            title.seek(0)
            pb.load_state(title)
            if noops:
                pb.tick(1, False)
                title = io.BytesIO()
                pb.save_state(title)
            machine._set_buttons(START)
            pb.tick(2, False)
            machine._set_buttons(0)
            pb.tick(2, False)
            buf = io.BytesIO()
            pb.save_state(buf)
            states.append(buf.getvalue())
        return states

    def _restart(self, i: int) -> None:
        machine = self.machines[i]
        machine.pyboy.load_state(io.BytesIO(self._starts[int(self._rng.integers(len(self._starts)))]))
        machine._buttons = 0  # the saved state has no button held
        self._steps[i] = 0

    def _read(self, i: int) -> None:
        memory = self.machines[i].pyboy.memory
        self._ram[i] = [memory[a] for a in self.read_addresses]

    def _observation(self) -> np.ndarray:
        return self._ram[:, [self._columns[a] for a in self.obs_ram]].copy()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for i in range(self.num_envs):
            self._restart(i)
            self._read(i)
        return self._observation(), {}

    def step(self, actions):
        from paritygym.spaces import validate_batched_action

        actions = validate_batched_action(actions, self.single_action_space, self.num_envs)
        prev = RamView(self._ram.copy(), self._columns)
        for i, machine in enumerate(self.machines):
            machine._set_buttons(int(self.actions[int(actions[i])]))
            machine.pyboy.tick(self.frame_skip, False, False)
            self._read(i)
        self._steps += 1
        now = RamView(self._ram, self._columns)
        reward, terminated, truncated = step_outcome(self.reward_fn, self.terminated_fn, prev, now, self._steps,
                                                     self.max_episode_steps)
        obs = self._observation()
        info: dict[str, Any] = {}
        done = terminated | truncated
        if done.any():
            info["final_obs"] = obs
            for i in np.flatnonzero(done):
                self._restart(int(i))
                self._read(int(i))
            obs = self._observation()
        return obs, reward, terminated, truncated, info

    def close_extras(self, **kwargs: Any) -> None:
        for machine in self.machines:
            machine.close()


def checkpoint_path() -> pathlib.Path:
    """The trained policy L4 evaluates (PARITYGYM_GAMEBOY_POLICY, else {DEFAULT_CHECKPOINT})."""
    from paritygym.train.ppo import find_checkpoint

    return find_checkpoint("PARITYGYM_GAMEBOY_POLICY", DEFAULT_CHECKPOINT, "examples/ppo_gameboy.py", f"L4 for {ENV_ID}")


def verify_l4(level: int = 4, episodes: int = 1024, seed: int = 0, alpha: float = 0.05, eval_envs: int = 32) -> list:
    """`paritygym verify GameBoy-v0 --level 4 --episodes N`: N episodes per backend (see the module
    docstring); one report, passed when the TOST shows the mean returns equivalent within L4_MARGIN."""
    import paritygym
    from paritygym.train.ppo import load_checkpoint, trained_steps
    from paritygym.train.transfer import evaluate_on_vector_env
    from paritygym.verify import check_transfer_request, transfer_report

    check_transfer_request("emurust.l4", level, episodes)
    path = checkpoint_path()
    config, params, learner = load_checkpoint(path)
    learner.venv.close()
    kwargs = dict(config.env_kwargs)
    if config.env_id != ENV_ID or kwargs.get("observation") != "ram" or kwargs.get("game", "catch") != "catch":
        raise ValueError(f"{path} must be a {ENV_ID} CATCH policy on the RAM observation, got {config.env_id} {kwargs}")
    frame_skip = int(kwargs.get("frame_skip", 4))
    backends = {
        "ours": lambda: paritygym.make_vec(ENV_ID, num_envs=eval_envs, seed=seed, **kwargs),
        "reference": lambda: PyBoyGameVectorEnv(eval_envs, seed=seed + 1, frame_skip=frame_skip),
    }
    returns, lengths, seconds = {}, {}, {}
    for name, make in backends.items():
        venv = make()
        start = time.perf_counter()
        try:
            values = evaluate_on_vector_env(learner, params, venv, episodes, {"return": lambda r, info: r, "length": lambda r, info: np.ones_like(r)},
                                            seed=seed + (name == "reference"))  # fmt: skip
        finally:
            venv.close()
        seconds[name] = time.perf_counter() - start
        returns[name], lengths[name] = values["return"], values["length"]
    details = {
        "evaluation": "evaluation transfer only: the policy was trained on emurust (training on PyBoy is not affordable "
                      "on CPU); independent episodes on each backend, sampled policy",
        "game": "CATCH (emurust/roms/catch), RAM observation, frame skip %d" % frame_skip,
        "episodes_per_backend": episodes,
        "mean_return": {k: float(v.mean()) for k, v in returns.items()},
        "std_return": {k: float(v.std(ddof=1)) for k, v in returns.items()},
        "mean_length": {k: float(v.mean()) for k, v in lengths.items()},
        "seconds": seconds,
        "checkpoint": str(path),
        "trained_with": {"env_kwargs": kwargs, "steps_trained": trained_steps(path), "hidden": config.hidden,
                         "seed": config.seed, "command": "python examples/ppo_gameboy.py --time-budget-s 480"},
    }  # fmt: skip
    return [transfer_report(ENV_ID, "PPO policy (trained on emurust): emurust vs PyBoy 2.8.1", returns["ours"],
                            returns["reference"], L4_MARGIN, alpha, "mean return", 2 * episodes, details)]
