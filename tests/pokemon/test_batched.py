"""``pokejax.game.batched``: the batched common move turn gives exactly ``engine.move_step``'s state.

The engine itself is checked against Showdown by the L3 suites (random-battle teams, and the
challenge-cup / hackmons teams of test_l3_generated.py); this differential test checks the batched
rewrite against the engine on every leaf of the state (generator state and draw count included),
over battles of random legal play, and that the batched code really ran most of them (a test that
passed because every battle fell back to the engine would prove nothing), with the mechanics it
covers chosen in the battles it ran. Two team sources: the random-battle pool (the env's teams) and
"any moves" teams (random species, levels and four distinct moves out of all 164), which reach the
moves random battles never use (Psywave, OHKO moves, Dream Eater, Conversion, Haze, ...).
"""

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from pokejax import prng
from pokejax.data import tables
from pokejax.data.tables import Effect
from pokejax.game import batched, engine, setup
from pokejax.game.masks import legal_masks
from pokejax.game.state import REQUEST_MOVE

BATTLES = 64
STEPS = 120


def _random_legal(rng, masks):
    """int32[B, 2]: a uniformly random legal action per player (0 where a player does not act)."""
    out = np.zeros(masks.shape[:2], np.int32)
    for b, s in zip(*np.nonzero(masks.any(axis=2))):
        out[b, s] = rng.choice(np.flatnonzero(masks[b, s]))
    return out


def _any_move_battles(seed: int):
    """BATTLES new battles between teams of any species (level 50-100) with four distinct moves each."""
    rng = np.random.default_rng(seed)
    gen1 = tables.load()
    shape = (BATTLES, 2, 6)
    moves = np.stack([rng.choice(np.arange(1, tables.STRUGGLE), 4, replace=False) for _ in range(int(np.prod(shape)))])
    teams = setup.TeamArrays(
        species=rng.integers(1, len(gen1.species_ids), shape).astype(np.int32),
        level=rng.integers(50, 101, shape).astype(np.int32),
        moves=moves.reshape(shape + (4,)).astype(np.int32),
        ivs=(2 * rng.integers(0, 16, shape + (6,))).astype(np.int32),
        evs=rng.integers(0, 256, shape + (6,)).astype(np.int32),
        size=rng.integers(3, 7, (BATTLES, 2)).astype(np.int32))
    seeds = jnp.stack([prng.seed_from_showdown([int(x) for x in rng.integers(0, 65536, 4)]) for _ in range(BATTLES)])
    game = jax.jit(jax.vmap(setup.new_battle))(teams, seeds)
    # every other battle starts with at most 2 PP per move, so that Struggle comes within the test;
    # every fourth with p1's lead flinched (a flinch outlives its turn when a faint skips the residual)
    low = jnp.arange(BATTLES) % 2 == 0
    flinched = jnp.arange(BATTLES) % 4 == 1

    def low_pp(g, on, flinch):
        active = g.active
        for i in (0, 1):
            active = active.with_fields(i, on, pp=jnp.minimum(active.pp[i], 2),
                                        base_pp=jnp.minimum(active.base_pp[i], 2))
        active = active.with_fields(0, flinch, flinch=1)
        return g.replace(active=active, team=g.team.replace(pp=jnp.where(on, jnp.minimum(g.team.pp, 2), g.team.pp)))
    return jax.jit(jax.vmap(low_pp))(game, low, flinched)


@pytest.fixture(scope="module")
def programs():
    """The compiled programs, shared by both team sources (same shapes)."""
    return dict(masks=jax.jit(jax.vmap(legal_masks)), old=jax.jit(jax.vmap(engine.move_step)),
                switch=jax.jit(jax.vmap(engine.switch_step)), new=jax.jit(batched.move_step_batch),
                eligible=jax.jit(batched.eligible), committed=jax.jit(_committed_moves))


def _committed_moves(game, actions):
    """int32[B, 2]: the move each side's choice commits (Struggle when no move is usable)."""
    def one(st, acts):
        return jnp.stack([engine.commit_move_choice(st, i, acts[i], acts[i] < engine.ACTION_SWITCH_BASE)[1]
                          for i in (0, 1)])
    return jax.vmap(one)(game, actions)


def _play(programs, game, seed):
    """Random legal play from ``game``: every leaf of ``move_step_batch``'s state equals the engine's
    after every step. Returns counts of what the batched path ran."""
    rng = np.random.default_rng(seed)
    effects = np.asarray(engine.MOVE_EFFECT)
    counts = collections.Counter()
    for t in range(STEPS):
        actions = jnp.asarray(_random_legal(rng, np.asarray(programs["masks"](game))))
        expected = programs["old"](game, actions)
        got = programs["new"](game, actions)
        for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(expected), jax.tree_util.tree_leaves(got)):
            x, y = np.asarray(x), np.asarray(y)
            rows = np.nonzero((x != y).reshape(BATTLES, -1).any(axis=1))[0]
            assert rows.size == 0, (f"step {t}: {jax.tree_util.keystr(path)} differs in battles {rows.tolist()}; "
                                    f"battle {rows[:1].tolist()}: engine {x[rows[0]]} batched {y[rows[0]]}")
        in_move = np.asarray(game.request) == REQUEST_MOVE
        fast = np.asarray(programs["eligible"](game, actions)) & in_move
        counts["move requests"] += int(in_move.sum())
        counts["common"] += int(fast.sum())
        counts["switches"] += int((fast & (np.asarray(actions) >= engine.ACTION_SWITCH_BASE).any(axis=1)).sum())
        fainted = np.asarray(expected.side.pokemon_left).sum(axis=1) < np.asarray(game.side.pokemon_left).sum(axis=1)
        counts["faints"] += int((fast & fainted).sum())
        acts = np.asarray(actions)
        chosen = np.take_along_axis(np.asarray(game.active.moves), np.clip(acts, 0, 3)[..., None], axis=2)[..., 0]
        moving = fast[:, None] & (acts < engine.ACTION_SWITCH_BASE)
        for effect in Effect:
            counts[effect] += int((moving & (effects[chosen] == effect)).sum())
        counts["selfdestruct"] += int((moving & np.asarray(engine.MOVE_SELFDESTRUCT)[chosen]).sum())
        counts["multihit"] += int((moving & (np.asarray(engine.MOVE_MULTIHIT)[chosen] > 0)).sum())
        counts["recharging"] += int((fast[:, None] & np.asarray(game.active.must_recharge)).sum())
        committed = np.asarray(programs["committed"](game, actions))
        counts["struggle"] += int((moving & (committed == tables.STRUGGLE)).sum())
        counts["flinched"] += int((fast[:, None] & (np.asarray(game.active.flinch) > 0)).sum())
        counts["transformed"] += int((fast[:, None] & np.asarray(game.active.transformed)).sum())
        counts["mid-charge"] += int((fast[:, None] & (np.asarray(game.active.two_turn_move) != 0)).sum())
        counts["substitute up"] += int((fast[:, None] & (np.asarray(game.active.sub_hp) > 0)).sum())
        # the next state: the move turn's, or the switch-only step's for a replacement / a new battle
        game = jax.tree_util.tree_map(lambda m, s: jnp.where(jnp.asarray(in_move).reshape((-1,) + (1,) * (m.ndim - 1)),
                                                                m, s), expected, programs["switch"](game, actions))
    return counts


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_move_step_equals_engine_move_step(programs):
    env, params = paritygym.make("PokemonGen1RandomPool-v0")
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(3), BATTLES), params)
    counts = _play(programs, states.game, seed=0)
    assert counts["common"] == counts["move requests"], counts   # see test_every_random_battle_move_runs_batched
    assert counts["switches"] >= 50 and counts["faints"] >= 20, counts
    used = {k: counts[k] for k in (Effect.HYPER_BEAM, Effect.COUNTER, Effect.RECOVER, Effect.REST, Effect.SUPER_FANG,
                                   Effect.CRASH, Effect.SUBSTITUTE, Effect.CHARGE, Effect.TRANSFORM, Effect.MIMIC,
                                   "selfdestruct", "multihit", "recharging", "substitute up", "transformed")}
    assert min(used.values()) >= 3, used
    print(counts)


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_move_step_equals_engine_move_step_any_moves(programs):
    counts = _play(programs, _any_move_battles(seed=11), seed=1)
    assert counts["common"] >= 0.6 * counts["move requests"], counts
    used = {k: counts[k] for k in (Effect.PSYWAVE, Effect.OHKO, Effect.DREAM_EATER, Effect.CONVERSION, Effect.HAZE,
                                   Effect.SUPER_FANG, Effect.CRASH, Effect.NOTHING, Effect.SCREEN, Effect.MIST,
                                   Effect.FOCUS_ENERGY, Effect.SELF_VOLATILE_NOOP, Effect.SUBSTITUTE, Effect.CHARGE,
                                   Effect.CHARGE_INVULNERABLE, Effect.TRANSFORM, Effect.MIMIC, Effect.MIRROR_MOVE,
                                   "multihit", "substitute up", "mid-charge", "transformed", "struggle", "flinched")}
    assert min(used.values()) >= 3, used
    print(counts)


def test_eligible_excludes_the_rare_mechanics():
    """A move the batched turn does not model sends the battle to the engine."""
    env, params = paritygym.make("PokemonGen1RandomPool-v0")
    _, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(5), 2), params)
    game = jax.vmap(engine.start_battle)(states.game)
    moves = np.asarray(game.active.moves)   # [B, 2, 4]
    common = np.asarray(batched.COMMON_MOVE)
    for name in ("metronome", "wrap", "bide", "thrash", "rage", "leechseed", "disable", "petaldance", "bind"):
        assert not common[engine._MOVE_BY_ID[name]], name
    for name in ("tackle", "doubleedge", "megadrain", "seismictoss", "thunderwave", "swordsdance", "reflect",
                 "hyperbeam", "counter", "explosion", "recover", "rest", "fissure", "doublekick", "superfang",
                 "psywave", "dreameater", "highjumpkick", "conversion", "haze", "substitute", "skyattack", "dig",
                 "transform", "mimic", "mirrormove", "struggle"):
        assert common[engine._MOVE_BY_ID[name]], name
    # both players use move slot 0: eligible exactly when both moves are common ones (a fresh battle
    # has no volatile that would exclude it)
    eligible = np.asarray(batched.eligible(game, jnp.zeros((2, 2), jnp.int32)))
    for b in range(2):
        assert eligible[b] == (common[moves[b, 0, 0]] and common[moves[b, 1, 0]]), b


def test_every_random_battle_move_runs_batched():
    """Every move of Showdown's gen-1 random-battle sets is one the batched turn runs, and none of
    them starts a volatile it does not model: so a random battle never needs the engine fallback
    (Transform, Mimic and Mirror Move only copy or call moves of these sets)."""
    gen1 = tables.load()
    moves = set()
    for entry in gen1.raw["randomSets"].values():
        for field in ("moves", "exclusiveMoves", "essentialMoves", "comboMoves"):
            moves.update(entry.get(field, ()))
    assert len(moves) > 50
    common = np.asarray(batched.COMMON_MOVE)
    effects = np.asarray(engine.MOVE_EFFECT)
    for name in sorted(moves):
        index = gen1.move_by_id[name]
        assert common[index], name
        assert effects[index] not in (Effect.TRAP, Effect.BIDE, Effect.THRASH, Effect.RAGE, Effect.DISABLE,
                                      Effect.LEECH_SEED, Effect.METRONOME), name
    for index in (tables.STRUGGLE, tables.NOMOVE, tables.CANNOTMOVE):   # what a commit or Haze may queue besides
        assert np.asarray(batched.QUEUED_OK)[index]
