"""``pokejax.game.batched``: the batched common move turn gives exactly ``engine.move_step``'s state,
and the batched switch turn exactly ``engine.switch_step``'s.

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
from pokejax.game.state import REQUEST_ENDED, REQUEST_MOVE, REQUEST_SWITCH

BATTLES = 64
STEPS = 120


def _random_legal(rng, masks):
    """int32[B, 2]: a uniformly random legal action per player (0 where a player does not act)."""
    out = np.zeros(masks.shape[:2], np.int32)
    for b, s in zip(*np.nonzero(masks.any(axis=2))):
        out[b, s] = rng.choice(np.flatnonzero(masks[b, s]))
    return out


def _any_move_teams(seed: int):
    """(teams, battle seeds) of BATTLES battles between teams of any species (level 50-100) with four
    distinct moves each."""
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
    return teams, seeds


def _any_move_battles(seed: int):
    """BATTLES new battles between teams of any species (level 50-100) with four distinct moves each."""
    teams, seeds = _any_move_teams(seed)
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
                new_switch=jax.jit(batched.switch_step_batch), with_locks=jax.jit(jax.vmap(_with_locks)),
                eligible=jax.jit(batched.eligible), committed=jax.jit(_committed_moves))


def _committed_moves(game, actions):
    """int32[B, 2]: the move each side's choice commits (Struggle when no move is usable)."""
    def one(st, acts):
        return jnp.stack([engine.commit_move_choice(st, i, acts[i], acts[i] < engine.ACTION_SWITCH_BASE)[1]
                          for i in (0, 1)])
    return jax.vmap(one)(game, actions)


_LOCK_FIELDS = ("trap_lock_move", "trap_lock_duration", "trap_lock_total", "trap_lock_target", "trapped",
                "trapped_maybe_locked", "trapped_source", "fake_trapped", "fake_trapped_counterpart", "disable_move",
                "bide_time")


def _random_locks(rng) -> dict:
    """Random values [B, 2] of the lock volatiles the switch step's end of turn reads (the Wrap
    family's on both sides, Disable, Bide), on half of the actives; a Metronome in move slot 0 of
    some, for the runSwitch of a Metronome-called Wrap lock; entry damage (no faint this turn, a
    poisoned or burned team) for some."""
    shape = (BATTLES, 2)
    on = rng.random(shape) < 0.5
    wrap, metronome = engine._MOVE_BY_ID["wrap"], engine.MV_METRONOME
    values = dict(trap_lock_move=np.where(rng.random(shape) < 0.6, wrap, 0),
                  trap_lock_duration=rng.integers(0, 4, shape), trap_lock_total=rng.integers(2, 6, shape),
                  trap_lock_target=rng.integers(0, 6, shape),
                  trapped=rng.integers(0, 3, shape), trapped_maybe_locked=rng.random(shape) < 0.5,
                  trapped_source=rng.integers(0, 6, shape), fake_trapped=rng.integers(0, 3, shape),
                  fake_trapped_counterpart=rng.integers(0, 6, shape),
                  disable_move=np.where(rng.random(shape) < 0.3, wrap, 0), bide_time=rng.integers(0, 3, shape))
    values = {k: np.where(on, v, 0).astype(np.int32) for k, v in values.items()}
    values["metronome"] = np.where(on & (rng.random(shape) < 0.5), metronome, 0).astype(np.int32)
    values["queued"] = np.where(rng.random(shape) < 0.5, wrap, 0).astype(np.int32)   # a pending action
    values["entry"] = rng.random(shape) < 0.3
    values["team_status"] = rng.choice([0, tables.PSN, tables.BRN, tables.TOX], (BATTLES, 2, 6)).astype(np.int32)
    return values


def _with_locks(game, values):
    """One battle with ``_random_locks``' values written in."""
    active, side = game.active, game.side
    for i in (0, 1):
        active = active.with_fields(i, True, **{name: values[name][i] for name in _LOCK_FIELDS})
        moves = active.moves[i]
        active = active.with_fields(i, values["metronome"][i] != 0, moves=moves.at[0].set(values["metronome"][i]))
        side = side.with_fields(i, values["metronome"][i] != 0, last_selected_slot=0, queued_move=values["queued"][i])
        side = side.with_fields(i, values["entry"][i], fainted_this_turn=False)
    status = jnp.where(values["entry"][:, None], values["team_status"], game.team.status)
    return game.replace(active=active, side=side, team=game.team.replace(status=status.astype(game.team.status.dtype)))


def _assert_same(expected, got, what: str):
    """Every leaf of two batches of states equal; else the first leaf that differs, and where."""
    for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(expected), jax.tree_util.tree_leaves(got)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{what}: {jax.tree_util.keystr(path)} shape {x.shape} vs {y.shape}"
        rows = np.nonzero((x != y).reshape(x.shape[0], -1).any(axis=1))[0]
        assert rows.size == 0, (f"{what}: {jax.tree_util.keystr(path)} differs in battles {rows.tolist()}; "
                                f"battle {rows[:1].tolist()}: engine {x[rows[0]]} batched {y[rows[0]]}")


def _play(programs, game, seed):
    """Random legal play from ``game``: every leaf of ``move_step_batch``'s state equals the engine's
    after every step, and so does every leaf of ``switch_step_batch``'s (on every state: those in a
    switch request, and the others, which it must leave alone). Returns counts of what the batched
    paths ran."""
    rng, lock_rng = np.random.default_rng(seed), np.random.default_rng(seed + 1000)
    effects = np.asarray(engine.MOVE_EFFECT)
    counts = collections.Counter()
    for t in range(STEPS):
        actions = jnp.asarray(_random_legal(rng, np.asarray(programs["masks"](game))))
        expected = programs["old"](game, actions)
        _assert_same(expected, programs["new"](game, actions), f"step {t}")
        switched = programs["switch"](game, actions)
        _assert_same(switched, programs["new_switch"](game, actions), f"step {t}, switch step")
        request, flags = np.asarray(game.request), np.asarray(game.side.switch_flag)
        in_switch = request == REQUEST_SWITCH
        counts["switch, one side"] += int((in_switch & (flags.sum(axis=1) == 1)).sum())
        counts["switch, both sides"] += int((in_switch & flags.all(axis=1)).sum())
        counts["ended"] += int((request == REQUEST_ENDED).sum())
        # the same states with random lock volatiles (random play seldom leaves one at a switch
        # request), a Metronome-called Wrap lock, entry damage
        locked = programs["with_locks"](game, _random_locks(lock_rng))
        switched_locked = programs["switch"](locked, actions)
        _assert_same(switched_locked, programs["new_switch"](locked, actions), f"step {t}, switch step with locks")
        requeued = (np.asarray(switched_locked.side.queued_move) == engine.MV_METRONOME) & (
            np.asarray(locked.side.queued_move) != engine.MV_METRONOME)
        counts["switch, Metronome lock"] += int((in_switch[:, None] & requeued).sum())
        before = np.take_along_axis(np.asarray(locked.team.hp), np.asarray(switched_locked.active.slot)[..., None],
                                    axis=2)[..., 0]
        hurt = np.asarray(switched_locked.active.hp) < before
        counts["switch, entry damage"] += int((in_switch[:, None] & flags & hurt).sum())
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
                                                                m, s), expected, switched)
    return counts


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_move_step_equals_engine_move_step(programs):
    env, params = paritygym.make("PokemonGen1RandomPool-v0")
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(3), BATTLES), params)
    counts = _play(programs, states.game, seed=0)
    assert counts["common"] == counts["move requests"], counts   # see test_every_random_battle_move_runs_batched
    assert counts["switches"] >= 50 and counts["faints"] >= 20, counts
    assert counts["switch, one side"] >= 20 and counts["switch, both sides"] >= 1 and counts["ended"] >= 20, counts
    assert counts["switch, Metronome lock"] >= 3 and counts["switch, entry damage"] >= 3, counts
    used = {k: counts[k] for k in (Effect.HYPER_BEAM, Effect.COUNTER, Effect.RECOVER, Effect.REST, Effect.SUPER_FANG,
                                   Effect.CRASH, Effect.SUBSTITUTE, Effect.CHARGE, Effect.TRANSFORM, Effect.MIMIC,
                                   "selfdestruct", "multihit", "recharging", "substitute up", "transformed")}
    assert min(used.values()) >= 3, used
    print({k: v for k, v in counts.items() if isinstance(k, str)})


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_move_step_equals_engine_move_step_any_moves(programs):
    counts = _play(programs, _any_move_battles(seed=11), seed=1)
    assert counts["common"] >= 0.6 * counts["move requests"], counts
    assert counts["switch, one side"] >= 20, counts
    assert counts["switch, Metronome lock"] >= 3 and counts["switch, entry damage"] >= 3, counts
    used = {k: counts[k] for k in (Effect.PSYWAVE, Effect.OHKO, Effect.DREAM_EATER, Effect.CONVERSION, Effect.HAZE,
                                   Effect.SUPER_FANG, Effect.CRASH, Effect.NOTHING, Effect.SCREEN, Effect.MIST,
                                   Effect.FOCUS_ENERGY, Effect.SELF_VOLATILE_NOOP, Effect.SUBSTITUTE, Effect.CHARGE,
                                   Effect.CHARGE_INVULNERABLE, Effect.TRANSFORM, Effect.MIMIC, Effect.MIRROR_MOVE,
                                   "multihit", "substitute up", "mid-charge", "transformed", "struggle", "flinched")}
    assert min(used.values()) >= 3, used
    print({k: v for k, v in counts.items() if isinstance(k, str)})


@pytest.mark.xdist_group("pokemon_batched")
def test_batched_switch_step_starts_battles(programs):
    """The battle's start (``REQUEST_START``: both leads switch in, their runSwitches ordered by
    speed) as ``engine.switch_step`` runs it; every other battle's p2 lead a copy of p1's, so that
    the two speeds tie and the order is drawn."""
    teams, seeds = _any_move_teams(seed=21)
    copy = np.arange(BATTLES) % 2 == 0

    def p1_lead_twice(x):
        x = np.array(x)
        x[copy, 1, 0] = x[copy, 0, 0]
        return x
    teams = teams.replace(**{name: p1_lead_twice(getattr(teams, name))
                             for name in ("species", "level", "moves", "ivs", "evs")})
    game = jax.jit(jax.vmap(setup.initial_state))(teams, seeds)
    actions = jnp.zeros((BATTLES, 2), jnp.int32)
    expected = programs["switch"](game, actions)
    _assert_same(expected, programs["new_switch"](game, actions), "start")
    assert (np.asarray(expected.request) == REQUEST_MOVE).all()
    assert (np.asarray(expected.draw_count)[copy] >= 1).all()   # the tied leads drew


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
