"""Parity between the two engines: play games on the reference, replay the same actions on the JAX
engine (batched with vmap, fused with lax.scan), and compare the canonical state and the legal-action
mask after every action.

    runner = JaxBatchRunner(batch=16, chunk=64)
    trajectories = [play_reference(decks, seed, rng) for ...]
    mismatches = compare_with_jax(trajectories, runner)   # [] when every game is identical

Used by tests/tcg (L1 scenarios run through the same compiled program) and by the `verify` hook.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.verify import TrajectoryComparison, compare_trajectories
from tcgjax import spec
from tcgjax.cards import TYPE_INDEX
from tcgjax.decks import Deck
from tcgjax.game import card_tables
from tcgjax.game.state import GameState, discard_counts, from_canonical
from tcgjax.game.state import fields as state_fields
from tcgjax.game.step import legal_actions, new_game, step, step_batch
from tcgjax.reference import Game

Policy = Callable[[np.random.Generator, np.ndarray], int]
NO_ACTION = -1  # an illegal action: the JAX step leaves the state unchanged (padding)


def uniform_policy(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action."""
    return int(rng.choice(np.flatnonzero(mask)))


def eager_policy(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random legal action that, 70% of the time, prefers playing cards, attaching and attacking:
    games reach Knock Outs and card effects far more often than under the uniform policy."""
    legal = np.flatnonzero(mask)
    eager = legal[(legal >= spec.PLAY_HAND) & (legal < spec.ABILITY) | (legal >= spec.ATTACK) & (legal < spec.CHOOSE_SELF)]
    if len(eager) and rng.random() < 0.7:
        return int(rng.choice(eager))
    return int(rng.choice(legal))


def deck_arrays(decks: Sequence[Deck]) -> tuple[np.ndarray, np.ndarray]:
    """([2, 20] card indices, [2, 3] Energy type indices padded with -1)."""
    cards = np.array([d.cards for d in decks], np.int32)
    energy = np.full((2, 3), -1, np.int32)
    for i, deck in enumerate(decks):
        for j, name in enumerate(deck.energy_types):
            energy[i, j] = TYPE_INDEX[name]
    return cards, energy


@dataclasses.dataclass
class Trajectory:
    """A game played on the reference: the actions, the legal mask and canonical state at the start
    and after each action (masks and states have one more entry than actions)."""

    decks: tuple[Deck, Deck]
    seed: int
    actions: list[int]
    masks: list[np.ndarray]
    states: list[dict[str, np.ndarray]]
    max_turns: int = spec.DEFAULT_MAX_TURNS

    @property
    def num_steps(self) -> int:
        return len(self.actions)


def play_reference(decks: Sequence[Deck], seed: int, rng: np.random.Generator, policy: Policy = uniform_policy,
                   max_turns: int = spec.DEFAULT_MAX_TURNS, max_steps: int = 10_000) -> Trajectory:
    game = Game.new(decks, seed, max_turns=max_turns)
    traj = Trajectory(tuple(decks), seed, [], [], [game.canonical()], max_turns)
    while not game.done:
        if traj.num_steps >= max_steps:
            raise RuntimeError(f"game with seed {seed} did not end within {max_steps} actions")
        mask = game.legal_actions()
        action = policy(rng, mask)
        game.step(action)
        traj.actions.append(action)
        traj.masks.append(mask)
        traj.states.append(game.canonical())
    traj.masks.append(game.legal_actions())
    return traj


def replay_reference(game: Game, actions: Sequence[int]) -> tuple[list[np.ndarray], list[dict]]:
    """Apply actions to a (constructed) reference game: (masks before, canonical states after)."""
    masks, states = [], []
    for action in actions:
        masks.append(game.legal_actions())
        game.step(action)
        states.append(game.canonical())
    return masks, states


class JaxBatchRunner:
    """The JAX engine compiled once for a fixed batch of games and a fixed chunk of actions."""

    def __init__(self, batch: int = 16, chunk: int = 64, max_turns: int = spec.DEFAULT_MAX_TURNS,
                 opening_hand_rule: int = spec.OPENING_RESHUFFLE, step_chunk: int | None = None,
                 batched: bool = False) -> None:
        """`step_chunk`: step the batch with `step_batch(..., chunk=step_chunk)` instead of the
        vmapped `step` (the default). `batched`: step it with `step_batch` at its own sub-batch
        sizes (the env's route; in the accelerator form each part runs on the whole batch)."""
        self.batch, self.chunk = batch, chunk
        tables = card_tables()

        def one_step(state: GameState, action):
            mask = legal_actions(tables, state)
            state = step(tables, state, action, max_turns)
            return state, (state, mask)

        def run_one(state: GameState, actions):
            return jax.lax.scan(one_step, state, actions)

        def one_batch_step(states: GameState, actions):
            masks = jax.vmap(lambda s: legal_actions(tables, s))(states)
            states = step_batch(tables, states, actions, max_turns, chunk=step_chunk)
            return states, (states, masks)

        def run_batch(states: GameState, actions):
            swap = lambda x: jnp.swapaxes(x, 0, 1)  # noqa: E731 [chunk, B] <-> [B, chunk]
            final, outs = jax.lax.scan(one_batch_step, states, swap(actions))
            return final, jax.tree_util.tree_map(swap, outs)

        self._tables = tables
        self._new: dict[int, Callable] = {}
        self.opening_hand_rule = opening_hand_rule
        self._run = jax.jit(run_batch if batched or step_chunk is not None else jax.vmap(run_one))

    def new_games(self, seeds, cards, energy, opening_hand_rule: int | None = None) -> GameState:
        rule = self.opening_hand_rule if opening_hand_rule is None else opening_hand_rule
        if rule not in self._new:
            tables = self._tables
            self._new[rule] = jax.jit(jax.vmap(lambda seed, c, e: new_game(tables, seed, c, e, rule)))
        return self._new[rule](jnp.asarray(seeds, jnp.uint32), jnp.asarray(cards), jnp.asarray(energy))

    def run(self, states: GameState, actions) -> tuple[GameState, GameState, jnp.ndarray]:
        """(final states, states after each action [B, chunk, ...], masks before each action [B, chunk, A])."""
        final, (per_step, masks) = self._run(states, jnp.asarray(actions, jnp.int32))
        return final, per_step, masks

    def stack(self, states: Sequence[GameState]) -> GameState:
        """Batch `batch` states (repeating the last one to fill the batch)."""
        states = list(states) + [states[-1]] * (self.batch - len(states))
        return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *states)

    def replay(self, start: GameState | dict, action_lists: Sequence[Sequence[int]] | None = None,
               starts: Sequence[GameState | dict] | None = None):
        """Replay action lists from start states (one per list). Returns, per list, (masks before each
        action, canonical states after each action) as numpy."""
        if starts is None:
            starts = [start] * len(action_lists)
        starts = [from_canonical(s) if isinstance(s, dict) else s for s in starts]
        results = []
        for first in range(0, len(starts), self.batch):
            group = starts[first: first + self.batch]
            lists = action_lists[first: first + self.batch]
            states = self.stack(group)
            length = max(len(a) for a in lists)
            outs_masks = [[] for _ in group]
            outs_states = [[] for _ in group]
            for offset in range(0, max(length, 1), self.chunk):
                actions = np.full((self.batch, self.chunk), NO_ACTION, np.int32)
                for g, acts in enumerate(lists):
                    part = list(acts[offset: offset + self.chunk])
                    actions[g, : len(part)] = part
                states, per_step, masks = self.run(states, actions)
                per_step = jax.device_get(per_step)
                masks = np.asarray(masks)
                for g, acts in enumerate(lists):
                    n = max(0, min(self.chunk, len(acts) - offset))
                    for k in range(n):
                        outs_masks[g].append(masks[g, k])
                        outs_states[g].append(jax_canonical(per_step, g, k))
            results += list(zip(outs_masks, outs_states))
        return results


def jax_canonical(states: GameState, *index: int) -> dict[str, np.ndarray]:
    """The canonical form (tcgjax.game.state.canonical) of one state of a batched (host) pytree."""
    one = jax.tree_util.tree_map(lambda v: np.asarray(v)[index], states)
    out = {name: np.asarray(v).astype(np.int64) for name, v in state_fields(one).items()}
    out["discard"] = discard_counts(out["discard"])
    return out


def jax_records(trajectories: Sequence[Trajectory], runner: JaxBatchRunner) -> list[list[dict[str, np.ndarray]]]:
    """The JAX engine's records (canonical state + legal mask) for the same seeds, decks and actions:
    one record for the initial state and one after each action."""
    out: list[list[dict[str, np.ndarray]]] = []
    for first in range(0, len(trajectories), runner.batch):
        group = list(trajectories[first: first + runner.batch])
        padded = group + [group[-1]] * (runner.batch - len(group))
        seeds = np.array([t.seed for t in padded], np.uint32)
        arrays = [deck_arrays(t.decks) for t in padded]
        states = runner.new_games(seeds, np.stack([a[0] for a in arrays]), np.stack([a[1] for a in arrays]))
        init = jax.device_get(states)
        records = [[jax_canonical(init, g)] for g in range(len(group))]
        # one padding action at the end: the mask before it is the mask of the final state
        actions_lists = [list(t.actions) + [NO_ACTION] for t in group]
        length = max(len(a) for a in actions_lists)
        for offset in range(0, length, runner.chunk):
            actions = np.full((runner.batch, runner.chunk), NO_ACTION, np.int32)
            for g, acts in enumerate(actions_lists):
                part = acts[offset: offset + runner.chunk]
                actions[g, : len(part)] = part
            states, per_step, masks = runner.run(states, actions)
            per_step = jax.device_get(per_step)
            masks = np.asarray(masks)
            for g, acts in enumerate(actions_lists):
                for k in range(min(runner.chunk, len(acts) - offset)):
                    index = offset + k
                    records[g][index]["legal_mask"] = masks[g, k]
                    if index < len(acts) - 1:
                        records[g].append(jax_canonical(per_step, g, k))
        out += records
    return out


def reference_records(trajectory: Trajectory) -> list[dict[str, np.ndarray]]:
    return [dict(state, legal_mask=mask) for state, mask in zip(trajectory.states, trajectory.masks)]


def compare_with_jax(trajectories: Sequence[Trajectory], runner: JaxBatchRunner) -> list[tuple[int, TrajectoryComparison]]:
    """(game index, comparison) of every game whose JAX replay differs from the reference, compared
    with paritygym.verify.compare_trajectories (exact, every field, every step)."""
    failures = []
    for index, (ours, trajectory) in enumerate(zip(jax_records(trajectories, runner), trajectories)):
        result = compare_trajectories(ours, reference_records(trajectory), tolerance=0.0)
        if not result.matched:
            failures.append((index, result))
    return failures


def describe(trajectory: Trajectory, result: TrajectoryComparison) -> str:
    step = result.first_divergence.step if result.first_divergence else result.steps
    recent = [spec.action_name(a) for a in trajectory.actions[max(0, step - 5): step]]
    return f"seed {trajectory.seed}: {result.describe()} (after actions {recent})"


def random_games(count: int, seed: int) -> list[Trajectory]:
    """`count` reference games with random legal play: uniform or eager policies, shipped and sampled decks."""
    from tcgjax.decks import sample_deck, shipped_decks
    rng = np.random.default_rng(seed)
    shipped = list(shipped_decks().values())
    games = []
    for i in range(count):
        if i % 2 == 0:
            decks = (shipped[rng.integers(len(shipped))], shipped[rng.integers(len(shipped))])
        else:
            decks = (sample_deck(rng), shipped[rng.integers(len(shipped))] if i % 4 == 1 else sample_deck(rng))
        policy = eager_policy if i % 4 >= 2 else uniform_policy
        games.append(play_reference(decks, int(rng.integers(2**32)), rng, policy))
    return games


def verify(level: int = 3, episodes: int = 100, seed: int = 0) -> list:
    """`paritygym verify TCGPocketA1-v0`: L3, `episodes` random games on both engines."""
    from paritygym.verify import ParityReport
    if level != 3:
        return [ParityReport("TCGPocketA1-v0", level, f"level {level}", passed=False,
                             failure="only L3 runs from the CLI; L1/L2 are in tests/tcg (pytest tests/tcg)")]
    games = random_games(episodes, seed)
    failures = compare_with_jax(games, JaxBatchRunner())
    steps = sum(g.num_steps for g in games)
    decisive = sum(int(g.states[-1]["winner"] >= 0) for g in games)
    return [ParityReport(
        env_id="TCGPocketA1-v0", level=3, name="random legal play, shipped and sampled decks", passed=not failures,
        episodes=len(games), steps=steps, tolerance="exact (every state field and the legal mask, every action)",
        details={"games_with_a_winner": decisive, "games_differing": len(failures)},
        failure=describe(games[failures[0][0]], failures[0][1]) if failures else None)]
