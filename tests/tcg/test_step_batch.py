"""`step_batch` (the heavy handlers run on sub-batches of the games that need them) equals the
vmapped `step` bit for bit.

Random games are played with `step_batch` at a tiny chunk (2 games of 16), so that steps where no
game needs a handler, where one chunk holds them all and where more games need it than a chunk holds
all occur. The same actions are replayed through the vmapped `step` of the session's `runner` (the
program the L1-L3 tests check against the reference engine), and every state after every action
and every legal mask must be identical. The chunk also splits the games whose `settle` has work.
(`pytest -m slow tests/tcg/test_l3_games.py` replays the L3 games through `step_batch` too.)"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax import spec
from tcgjax.decks import sample_deck, shipped_decks
from tcgjax.game import card_tables
from tcgjax.game.core import kth_true
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
        new = step_batch(tables, states, actions, chunk=CHUNK)
        return new, (new, masks, actions)

    @jax.jit
    def play(states, key):
        final, (per_step, masks, actions) = jax.lax.scan(one, states, jax.random.split(key, runner.chunk))
        swap = lambda x: jnp.swapaxes(x, 0, 1)  # noqa: E731 [chunk, B] -> [B, chunk] as the runner returns
        return final, jax.tree_util.tree_map(swap, per_step), swap(masks), swap(actions)

    return play


def _start(runner, seed: int):
    rng = np.random.default_rng(seed)
    shipped = list(shipped_decks().values())
    decks = [(shipped[rng.integers(len(shipped))], sample_deck(rng) if g % 2 else shipped[rng.integers(len(shipped))])
             for g in range(runner.batch)]
    arrays = [deck_arrays(d) for d in decks]
    seeds = rng.integers(2**32, size=runner.batch, dtype=np.uint64).astype(np.uint32)
    return runner.new_games(seeds, np.stack([a[0] for a in arrays]), np.stack([a[1] for a in arrays]))


def _handler_requests(before, actions, masks):
    """Per action, how many games of the batch ask for a Trainer (a legal play of a Trainer card)
    and for an attack declaration: [B, chunk] each. `before`: the states before each action."""
    tables = card_tables()
    decider = np.asarray(before.flow[..., 5])  # FLOW_FIELDS: decider
    legal = np.take_along_axis(masks, np.clip(actions, 0, spec.NUM_ACTIONS - 1)[..., None], -1)[..., 0] & (actions >= 0)
    legal &= actions < spec.NUM_ACTIONS
    hands = np.take_along_axis(np.asarray(before.zones)[:, :, :, 1], decider[..., None, None], 2)[:, :, 0]
    played = np.take_along_axis(hands, np.clip(actions - spec.PLAY_HAND, 0, spec.HAND_CAPACITY - 1)[..., None], -1)[..., 0]
    is_play = (actions >= spec.PLAY_HAND) & (actions < spec.ATTACH)
    trainer = legal & is_play & (np.asarray(tables.is_pokemon)[np.maximum(played, 0)] == 0)
    attack = legal & (actions >= spec.ATTACK) & (actions < spec.CHOOSE_SELF)
    return trainer, attack


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_step_batch_equals_vmapped_step(runner, play_batched, seed):
    states = _start(runner, seed)
    key = jax.random.key(seed)
    most_trainers = most_attacks = 0
    for call in range(ROUNDS):
        final, per_step, masks, actions = play_batched(states, jax.random.fold_in(key, call))
        final_v, per_step_v, masks_v = runner.run(states, actions)
        per_step, per_step_v = jax.device_get((per_step, per_step_v))
        for name in ("seed", "flow", "seat", "zones", "slots", "active"):
            ours, theirs = getattr(per_step, name), getattr(per_step_v, name)
            differ = np.argwhere(np.any((ours != theirs).reshape(ours.shape[:2] + (-1,)), axis=-1))
            assert not len(differ), f"{name} differs first at (game, action) {differ[0].tolist()}"
        assert np.array_equal(np.asarray(masks), np.asarray(masks_v))
        before = jax.tree_util.tree_map(lambda start, after: np.concatenate([np.asarray(start)[:, None], after[:, :-1]], 1),
                                        states, per_step)
        trainer, attack = _handler_requests(before, np.asarray(actions), np.asarray(masks))
        most_trainers = max(most_trainers, int(trainer.sum(axis=0).max()))
        most_attacks = max(most_attacks, int(attack.sum(axis=0).max()))
        states = final
    # the overflow path (more games than one chunk) ran for both kinds
    assert most_trainers > CHUNK and most_attacks > CHUNK, (most_trainers, most_attacks)
