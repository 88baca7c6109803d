"""``pokejax.game.batched``: the batched common move turn gives exactly ``engine.move_step``'s state.

The engine itself is checked against Showdown by the L3 suites; this differential test checks the
batched rewrite against the engine on every leaf of the state (generator state and draw count
included), over battles of random legal play, and that the batched code really ran most of them
(a test that passed because every battle fell back to the engine would prove nothing), with the
mechanics it covers chosen in the battles it ran: Hyper Beam (and the recharge turn after it), Counter,
Explosion / Self-Destruct, Recover and Rest.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from pokejax import env as penv
from pokejax.game import batched, engine
from pokejax.game.state import REQUEST_MOVE

BATTLES = 64
STEPS = 120


def _random_legal(rng, masks):
    """int32[B, 2]: a uniformly random legal action per player (0 where a player does not act)."""
    out = np.zeros(masks.shape[:2], np.int32)
    for b, s in zip(*np.nonzero(masks.any(axis=2))):
        out[b, s] = rng.choice(np.flatnonzero(masks[b, s]))
    return out


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_move_step_equals_engine_move_step():
    env, params = paritygym.make("PokemonGen1RandomPool-v0")
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(3), BATTLES), params)
    game = states.game
    masks_of = jax.jit(jax.vmap(penv.legal_masks))
    old = jax.jit(jax.vmap(engine.move_step))
    switch = jax.jit(jax.vmap(engine.switch_step))
    new = jax.jit(batched.move_step_batch)
    eligible = jax.jit(batched.eligible)
    rng = np.random.default_rng(0)
    move_requests = common = common_switches = common_faints = 0
    effects = np.asarray(engine.MOVE_EFFECT)
    E = engine.E
    used = {E.HYPER_BEAM: 0, E.COUNTER: 0, E.RECOVER: 0, E.REST: 0, "selfdestruct": 0, "recharging": 0}
    for t in range(STEPS):
        actions = jnp.asarray(_random_legal(rng, np.asarray(masks_of(game))))
        expected = old(game, actions)
        got = new(game, actions)
        for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(expected), jax.tree_util.tree_leaves(got)):
            x, y = np.asarray(x), np.asarray(y)
            rows = np.nonzero((x != y).reshape(BATTLES, -1).any(axis=1))[0]
            assert rows.size == 0, (f"step {t}: {jax.tree_util.keystr(path)} differs in battles {rows.tolist()}; "
                                    f"battle {rows[:1].tolist()}: engine {x[rows[0]]} batched {y[rows[0]]}")
        in_move = np.asarray(game.request) == REQUEST_MOVE
        fast = np.asarray(eligible(game, actions)) & in_move
        move_requests += int(in_move.sum())
        common += int(fast.sum())
        common_switches += int((fast & (np.asarray(actions) >= engine.ACTION_SWITCH_BASE).any(axis=1)).sum())
        fainted = np.asarray(expected.side.pokemon_left).sum(axis=1) < np.asarray(game.side.pokemon_left).sum(axis=1)
        common_faints += int((fast & fainted).sum())
        acts = np.asarray(actions)
        chosen = np.take_along_axis(np.asarray(game.active.moves), np.clip(acts, 0, 3)[..., None], axis=2)[..., 0]
        moving = fast[:, None] & (acts < engine.ACTION_SWITCH_BASE)
        for effect in (E.HYPER_BEAM, E.COUNTER, E.RECOVER, E.REST):
            used[effect] += int((moving & (effects[chosen] == effect)).sum())
        used["selfdestruct"] += int((moving & np.asarray(engine.MOVE_SELFDESTRUCT)[chosen]).sum())
        used["recharging"] += int((fast[:, None] & np.asarray(game.active.must_recharge)).sum())
        # the next state: the move turn's, or the switch-only step's for a replacement / a new battle
        game = jax.tree_util.tree_map(lambda m, s: jnp.where(jnp.asarray(in_move).reshape((-1,) + (1,) * (m.ndim - 1)),
                                                                m, s), expected, switch(game, actions))
    assert common >= 0.85 * move_requests, (common, move_requests)
    assert common_switches >= 50 and common_faints >= 20, (common_switches, common_faints)
    assert min(used.values()) >= 3, used


def test_eligible_excludes_the_rare_mechanics():
    """A move the batched turn does not model sends the battle to the engine."""
    env, params = paritygym.make("PokemonGen1RandomPool-v0")
    _, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(5), 2), params)
    game = jax.vmap(engine.start_battle)(states.game)
    moves = np.asarray(game.active.moves)   # [B, 2, 4]
    common = np.asarray(batched.COMMON_MOVE)
    for name in ("metronome", "substitute", "wrap", "transform", "fissure", "doublekick", "superfang", "skyattack"):
        assert not common[engine._ID[name]], name
    for name in ("tackle", "doubleedge", "megadrain", "seismictoss", "thunderwave", "swordsdance", "reflect",
                 "hyperbeam", "counter", "explosion", "recover", "rest"):
        assert common[engine._ID[name]], name
    # both players use move slot 0: eligible exactly when both moves are common ones (a fresh battle
    # has no volatile that would exclude it)
    eligible = np.asarray(batched.eligible(game, jnp.zeros((2, 2), jnp.int32)))
    for b in range(2):
        assert eligible[b] == (common[moves[b, 0, 0]] and common[moves[b, 1, 0]]), b
