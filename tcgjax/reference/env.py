"""The single-agent env on the reference engine: the same contract as tcgjax.env.TCGPocketA1 (the
agent's action, then the opponent acts until the agent must act again or the game ends), with
observations from tcgjax.reference.observe. Used by the env parity tests and by the reference
benchmark (`bench_reference`).
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from tcgjax import spec
from tcgjax.decks import Deck, shipped_decks
from tcgjax.reference.bots import heuristic_action
from tcgjax.reference.engine import Game
from tcgjax.reference.observe import observe

OPPONENTS = ("random", "heuristic")


class ReferenceSingleAgentEnv:
    """The single-agent env on the reference engine (what tcgjax.env.TCGPocketA1 must match).
    `interleaved=True`: one game action per step, the agent passing (`END`, ignored) while the
    opponent decides, as in TCGPocketA1(interleaved=True)."""

    def __init__(self, opponent: str = "random", max_turns: int = spec.DEFAULT_MAX_TURNS,
                 max_opponent_actions: int = 512, seed: int = 0, interleaved: bool = False) -> None:
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
        self.opponent = opponent
        self.max_turns = max_turns
        self.max_opponent_actions = max_opponent_actions
        self.rng = np.random.default_rng(seed)  # the random opponent's choices
        self.game: Game | None = None
        self.agent = 0
        self.stuck = False
        self.interleaved = interleaved

    def reset(self, decks: Sequence[Deck], game_seed: int, agent: int) -> np.ndarray:
        self.game = Game.new(decks, game_seed, max_turns=self.max_turns)
        self.agent = agent
        if not self.interleaved:
            _, self.stuck = self._advance(None)
        return observe(self.game, self.agent)

    def action_mask(self) -> np.ndarray:
        if self.game.state.decider != self.agent:
            mask = np.zeros(spec.NUM_ACTIONS, bool)
            mask[spec.END] = self.interleaved and not self.game.done  # the pass while the opponent decides
            return mask
        return self.game.legal_actions()

    def _opponent_action(self) -> int:
        if self.opponent == "heuristic":
            return heuristic_action(self.game)
        return int(self.rng.choice(np.flatnonzero(self.game.legal_actions())))

    def _reward(self, before_over: bool) -> float:
        s = self.game.state
        if before_over or not s.game_over or s.winner < 0:
            return 0.0
        return 1.0 if s.winner == self.agent else -1.0

    def _advance(self, agent_action: int | None) -> tuple[float, bool]:
        if self.interleaved:  # one game action: the agent's, or the opponent's while it decides
            if self.game.done:
                return 0.0, False
            self.game.step(agent_action if self.game.state.decider == self.agent else self._opponent_action())
            return self._reward(False), False
        reward, count = 0.0, 0
        if agent_action is not None and not self.game.done:
            self.game.step(agent_action)
            reward += self._reward(False)
        while not self.game.done and self.game.state.decider != self.agent and count < self.max_opponent_actions:
            was_over = self.game.done
            self.game.step(self._opponent_action())
            reward += self._reward(was_over)
            count += 1
        stuck = count >= self.max_opponent_actions and not self.game.done and self.game.state.decider != self.agent
        return reward, stuck

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """(observation, reward, terminated, truncated, info). An illegal action is replaced by the
        lowest legal one, as in the JAX env (info["illegal_action"])."""
        mask = self.action_mask()
        legal = 0 <= action < spec.NUM_ACTIONS and bool(mask[action])
        if not legal:
            action = int(np.argmax(mask))
        reward, self.stuck = self._advance(action)
        s = self.game.state
        terminated = s.game_over and not s.truncated
        truncated = s.truncated or self.stuck
        return observe(self.game, self.agent), reward, terminated, truncated, {
            "illegal_action": not legal, "action_mask": self.action_mask()}


def _random_agent_steps(num_steps: int, seed: int) -> tuple[int, float]:
    """Agent steps of random play (random agent, random opponent) over shipped decks, timed."""
    rng = np.random.default_rng(seed)
    decks = list(shipped_decks().values())
    env = ReferenceSingleAgentEnv("random", seed=seed)

    def new_episode():
        pair = [decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]]
        return env.reset(pair, int(rng.integers(2**32)), int(rng.integers(2)))

    new_episode()
    start = time.perf_counter()
    for _ in range(num_steps):
        mask = env.action_mask()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            new_episode()
    return num_steps, time.perf_counter() - start


def _worker(args):
    steps, seed, barrier = args
    barrier.wait()
    return _random_agent_steps(steps, seed)


def bench_reference(batch_size: int, num_steps: int, num_procs: int) -> float:
    """`paritygym bench TCGPocketA1-v0 --reference`: agent steps/s of the reference single-agent env
    with random play (random agent, random opponent; observations built every step, as in the JAX
    env). The reference has no batch: `batch_size * num_steps` steps (at least 20,000) are split over
    `num_procs` processes."""
    total = max(batch_size * num_steps, 20_000)
    if num_procs <= 1:
        steps, seconds = _random_agent_steps(total, seed=1)
        return steps / seconds
    from paritygym.bench.processes import steps_per_second_in_processes

    return steps_per_second_in_processes(_worker, [(total // num_procs, 100 + i) for i in range(num_procs)])
