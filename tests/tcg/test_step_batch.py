"""`step_batch` (the heavy handlers run on sub-batches of the games that need them) equals the
vmapped `step` bit for bit.

Random games are played with `step_batch` at a tiny chunk (2 games of 16), so that steps where no
game needs a handler, where one chunk holds them all and where more games need it than a chunk holds
all occur. The same actions are replayed through the vmapped `step` of the session's `runner` (the
program the L1-L3 tests check against the reference engine), and every state after every action
and every legal mask must be identical. The chunk also splits the games whose `settle` has work;
the test asserts, from `step_batch`'s own gates (`report=True`), that answers to pending
choices, Trainers, attacks and `settle` overflowed a chunk and that Abilities ran.

This compares `step_batch` with the vmapped `step`, which the L1-L3 tests check against the
reference. The default suite checks `step_batch` against the reference directly through the env
(tests/tcg/test_env.py: env vs the reference env at BATCH=8, where the opponent loop's inner
chunks are of 1 game); `pytest -m slow tests/tcg/test_l3_games.py` replays the L3 games through
`step_batch` at chunk 2."""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax import spec
from tcgjax.decks import sample_deck, shipped_decks
from tcgjax.game import card_tables
from tcgjax.game.core import kth_true
from tcgjax.game.state import GameState
from tcgjax.game.step import legal_actions, step_batch
from tcgjax.verify import deck_arrays

CHUNK = 2
ROUNDS = 3  # calls of runner.chunk actions per batch of games
EAGER = np.zeros(spec.NUM_ACTIONS, bool)
EAGER[spec.PLAY_HAND:spec.ABILITY] = True  # play a card, attach
EAGER[spec.ABILITY:spec.RETREAT] = True  # Abilities
EAGER[spec.ATTACK:spec.CHOOSE_SELF] = True  # attacks


@pytest.fixture(scope="module")
def play_batched(runner):
    """`play(states, key)` -> (final states, states after each action, masks, actions), `runner.chunk`
    actions per game through `step_batch(chunk=CHUNK)`: 70% of the time a legal play, attach, Ability
    or attack if there is one, else any legal action; 5% of actions are random integers (mostly
    illegal, some out of range), which must leave the state unchanged."""
    tables = card_tables()
    batch = runner.batch

    def one(states, key):
        masks = jax.vmap(lambda s: legal_actions(tables, s))(states)
        k_eager, k_pick, k_wild, k_any = jax.random.split(key, 4)
        eager = masks & jnp.asarray(EAGER)
        prefer = (jax.random.uniform(k_eager, (batch,)) < 0.7) & eager.any(axis=1)
        pool = jnp.where(prefer[:, None], eager, masks)
        choice = jax.random.randint(k_pick, (batch,), 0, jnp.maximum(pool.sum(axis=1), 1))
        actions = jax.vmap(kth_true)(pool, choice)
        wild = jax.random.uniform(k_wild, (batch,)) < 0.05
        actions = jnp.where(wild, jax.random.randint(k_any, (batch,), -1, spec.NUM_ACTIONS + 1), actions)
        new, requests = step_batch(tables, states, actions, chunk=CHUNK, report=True)
        counts = {part: gate.sum() for part, gate in requests.items()}
        # the handlers exclude each other (step.HandlerRequests): at most one gate per game
        counts["handlers_in_one_game"] = (requests["trainer"].astype(jnp.int32) + requests["ability"]
                                          + requests["attack"]).max()
        return new, (new, masks, actions, counts)

    @jax.jit
    def play(states, key):
        final, (per_step, masks, actions, requests) = jax.lax.scan(one, states, jax.random.split(key, runner.chunk))
        swap = lambda x: jnp.swapaxes(x, 0, 1)  # noqa: E731 [chunk, B] -> [B, chunk] as the runner returns
        return final, jax.tree_util.tree_map(swap, per_step), swap(masks), swap(actions), requests

    return play


def _start(runner, seed: int):
    rng = np.random.default_rng(seed)
    shipped = list(shipped_decks().values())
    decks = [(shipped[rng.integers(len(shipped))], sample_deck(rng) if g % 2 else shipped[rng.integers(len(shipped))])
             for g in range(runner.batch)]
    arrays = [deck_arrays(d) for d in decks]
    seeds = rng.integers(2**32, size=runner.batch, dtype=np.uint64).astype(np.uint32)
    return runner.new_games(seeds, np.stack([a[0] for a in arrays]), np.stack([a[1] for a in arrays]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_step_batch_equals_vmapped_step(runner, play_batched, seed):
    states = _start(runner, seed)
    key = jax.random.key(seed)
    most = collections.Counter()  # most games asking for a part in one step
    for call in range(ROUNDS):
        final, per_step, masks, actions, requests = play_batched(states, jax.random.fold_in(key, call))
        final_v, per_step_v, masks_v = runner.run(states, actions)
        per_step, per_step_v = jax.device_get((per_step, per_step_v))
        assert isinstance(per_step, GameState)
        # every leaf of the packed state, so that a new field cannot be skipped
        assert jax.tree_util.tree_structure(per_step) == jax.tree_util.tree_structure(per_step_v)
        for (path, ours), theirs in zip(jax.tree_util.tree_leaves_with_path(per_step),
                                        jax.tree_util.tree_leaves(per_step_v)):
            differ = np.argwhere(np.any((ours != theirs).reshape(ours.shape[:2] + (-1,)), axis=-1))
            assert not len(differ), f"{jax.tree_util.keystr(path)} differs first at (game, action) {differ[0].tolist()}"
        assert np.array_equal(np.asarray(masks), np.asarray(masks_v))
        for part, counts in jax.device_get(requests).items():
            most[part] = max(most[part], int(counts.max()))
        states = final
    # the overflow path (more games than one chunk) ran for the answers to pending choices, the
    # Trainers, attacks and `settle`; Abilities are rarer (a few % of actions) and must at least have run
    assert most["answer"] > CHUNK and most["trainer"] > CHUNK and most["attack"] > CHUNK and most["settle"] > CHUNK, most
    assert most["ability"] >= 1 and most["handlers_in_one_game"] == 1, most

