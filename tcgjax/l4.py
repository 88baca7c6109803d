"""L4 for TCGPocketA1-v0: does a trained policy win as often against the heuristic bot on tcgjax as on
the reference engine (tcgjax.reference)?

Training on the reference engine is not affordable on a CPU machine (it plays a few hundred agent
steps per second; one short PPO run is hundreds of thousands of steps), so this checks *evaluation
transfer* only: the PPO policy trained on tcgjax by `examples/ppo_tcg.py` (against the random
opponent) plays ``games`` new games against the heuristic bot on each backend, with the same game
distribution (each seat's deck uniform over the 14 shipped decks, a uniform 32-bit game seed, a
random seat) and a sampled (stochastic) policy. The games on the two backends are independent
draws: paired, seed-matched games would be move-for-move identical (L3 shows the engines agree
exactly), which would test nothing L3 does not. A Welch TOST on the per-game win indicator (margin
0.05 win rate, alpha 0.05) judges equivalence.

    python examples/ppo_tcg.py --time-budget-s 900   # writes runs/ppo_tcg/checkpoint.msgpack
    paritygym verify TCGPocketA1-v0 --level 4 --episodes 1536 \\
        --out docs/verification/TCGPocketA1-v0-L4.json --markdown docs/verification/TCGPocketA1-v0-L4.md
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

import gymnasium
import numpy as np

from tcgjax import spec
from tcgjax.decks import shipped_decks
from tcgjax.game.observe import OBS_SIZE
from tcgjax.reference.env import ReferenceSingleAgentEnv

ENV_ID = "TCGPocketA1-v0"
L4_MARGIN = 0.05  # equivalence margin of the TOST on the win rate against the heuristic bot
OPPONENT_HEURISTIC = 1
#: The policy evaluated: `$PARITYGYM_TCG_POLICY`, else what `examples/ppo_tcg.py` writes.
DEFAULT_CHECKPOINT = "runs/ppo_tcg/checkpoint.msgpack"


class ReferenceTCGVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` reference single-agent envs as a Gymnasium vector env (numpy, same-step
    autoreset, ``info["action_mask"]`` every step), drawing games like `TCGPocketA1-v0`: each seat's
    deck uniform over the shipped decks, a uniform 32-bit game seed, the agent's seat at random."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, seed: int = 0, opponent: str = "heuristic",
                 max_turns: int = spec.DEFAULT_MAX_TURNS) -> None:  # fmt: skip
        if num_envs < 1:
            raise ValueError(f"num_envs must be positive, got {num_envs}")
        self.num_envs = num_envs
        self.envs = [ReferenceSingleAgentEnv(opponent, max_turns=max_turns, seed=seed * 1_000_003 + i) for i in range(num_envs)]
        self.decks = list(shipped_decks().values())
        self.single_observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(spec.NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(seed)

    def _new_game(self, i: int) -> np.ndarray:
        pair = [self.decks[int(self._rng.integers(len(self.decks)))] for _ in range(2)]
        game_seed = int(self._rng.integers(2**32))
        return self.envs[i].reset(pair, game_seed, int(self._rng.integers(2)))

    def _masks(self) -> np.ndarray:
        return np.stack([env.action_mask() for env in self.envs])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        obs = np.stack([self._new_game(i) for i in range(self.num_envs)]).astype(np.float32)
        return obs, {"action_mask": self._masks()}

    def step(self, actions):
        from paritygym.spaces import validate_batched_action

        actions = validate_batched_action(actions, self.single_action_space, self.num_envs)
        obs = np.empty((self.num_envs, OBS_SIZE), np.float32)
        reward = np.zeros(self.num_envs, np.float32)
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        final_obs = obs.copy()
        for i, env in enumerate(self.envs):
            obs[i], reward[i], terminated[i], truncated[i], _ = env.step(int(actions[i]))
            final_obs[i] = obs[i]
            if terminated[i] or truncated[i]:
                obs[i] = self._new_game(i)
        return obs, reward, terminated, truncated, {"action_mask": self._masks(), "final_obs": final_obs}


def _win(reward, info):
    return (np.asarray(reward) > 0.5).astype(np.float32)


def _loss(reward, info):
    return (np.asarray(reward) < -0.5).astype(np.float32)


def checkpoint_path() -> pathlib.Path:
    """The trained policy L4 evaluates (PARITYGYM_TCG_POLICY, else {DEFAULT_CHECKPOINT})."""
    from paritygym.train.ppo import find_checkpoint

    return find_checkpoint("PARITYGYM_TCG_POLICY", DEFAULT_CHECKPOINT, "examples/ppo_tcg.py", f"L4 for {ENV_ID}")


def evaluate_both(games: int, seed: int, eval_envs: int = 128) -> dict[str, Any]:
    """Per-game win/loss indicators of the checkpoint's sampled policy against the heuristic bot:
    ``games`` games on each backend, both stepped as vector envs of ``eval_envs`` games with
    autoreset. (paritygym.train.evaluate's fused scan would run every env for whole 256-step chunks
    after its game ended — about 7x the steps of a ~35-step game, and the JAX TCG env is slow.)"""
    import paritygym
    from paritygym.train.ppo import load_checkpoint, trained_steps
    from paritygym.train.transfer import evaluate_on_vector_env

    path = checkpoint_path()
    config, params, ppo = load_checkpoint(path)
    if config.env_id != ENV_ID:
        raise ValueError(f"{path} is a policy for {config.env_id}, not {ENV_ID}")
    env_kwargs = {**config.env_kwargs, "opponent": OPPONENT_HEURISTIC}
    metrics = {"return": lambda r, info: r, "win": _win, "loss": _loss, "length": lambda r, info: np.ones_like(r)}
    out: dict[str, Any] = {"checkpoint": str(path), "trained_with": {
        "env_kwargs": config.env_kwargs, "steps_trained": trained_steps(path), "hidden": config.hidden,
        "layers": config.layers, "seed": config.seed, "command": "python examples/ppo_tcg.py --time-budget-s 900"}}  # fmt: skip
    backends = {
        "ours": lambda: paritygym.make_vec(ENV_ID, num_envs=eval_envs, seed=seed, **env_kwargs),
        "reference": lambda: ReferenceTCGVectorEnv(eval_envs, seed=seed + 1),
    }
    for name, make in backends.items():
        venv = make()
        start = time.perf_counter()
        try:
            values = evaluate_on_vector_env(ppo, params, venv, games, metrics, seed=seed + (name == "reference"))
        finally:
            venv.close()
        out[name + "_seconds"] = time.perf_counter() - start
        out[name] = {k: np.asarray(values[k]) for k in ("win", "loss", "length")}
        print(f"{name}: {games} games in {out[name + '_seconds']:.0f} s, win rate {out[name]['win'].mean():.3f}", flush=True)
    return out


def verify_l4(level: int = 4, episodes: int = 1536, seed: int = 0, alpha: float = 0.05) -> list:
    """`paritygym verify TCGPocketA1-v0 --level 4 --episodes N`: N games per backend (see the module
    docstring); one report, passed when the TOST shows the win rates equivalent within L4_MARGIN."""
    from paritygym.verify import check_transfer_request, transfer_report

    check_transfer_request("tcgjax.l4", level, episodes, "games")
    run = evaluate_both(episodes, seed)
    win_ours, win_ref = run["ours"]["win"], run["reference"]["win"]
    details = {
        "evaluation": "evaluation transfer only: the policy was trained on tcgjax (training on the reference "
                      "engine is not affordable on CPU); independent games on each backend, sampled policy",
        "opponent": "heuristic bot (tcgjax.game.bots / tcgjax.reference.bots)",
        "games_per_backend": episodes,
        "win_rate": {"ours": float(win_ours.mean()), "reference": float(win_ref.mean())},
        "loss_rate": {"ours": float(run["ours"]["loss"].mean()), "reference": float(run["reference"]["loss"].mean())},
        "mean_game_length_agent_steps": {"ours": float(run["ours"]["length"].mean()), "reference": float(run["reference"]["length"].mean())},
        "seconds": {"ours": run["ours_seconds"], "reference": run["reference_seconds"]},
        "checkpoint": run["checkpoint"],
        "trained_with": run["trained_with"],
    }
    return [transfer_report(ENV_ID, "PPO policy (trained on tcgjax) vs heuristic bot: tcgjax vs reference engine",
                            win_ours, win_ref, L4_MARGIN, alpha, "win rate", 2 * episodes, details)]
