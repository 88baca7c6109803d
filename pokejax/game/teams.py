"""Random-battle teams in JAX: Showdown's ``RandomGen1Teams.randomTeam`` draw for draw.

Given the same team-generator seed (Showdown's *player* seed) this makes exactly the team
``Teams.generate('gen1randombattle', {seed})`` makes: the same species, levels, stat experience,
DVs and move order (tested against Showdown). Used by the RL env at reset; parity tests inject
Showdown's own packed teams instead (``setup.from_packed``).

The algorithm, from Showdown's generator (our own code): one unused type draw; then species are
drawn without replacement (swap-remove) from the 146 species of the set data and rejected when the
team already has two of one of its types, two Pokémon weak to one of Electric, Psychic, Water,
Ice, Ground, Fire that it is also weak to, or a level-100 Pokémon (rejects are the fallback pool);
each accepted species gets ``random_set``: the combo moves with probability 1/2, one exclusive
move, the essential moves, then moves drawn without replacement until four, then a shuffle.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from paritygym.indexing import add, lookup, read, write
from paritygym.lookup import take_rows
from pokejax import prng
from pokejax.data import tables
from pokejax.game.setup import TeamArrays

_TABLES = tables.load()
_SETS = _TABLES.raw["randomSets"]
_WEAKNESS_TYPES = ["Electric", "Psychic", "Water", "Ice", "Ground", "Fire"]
_DITTO = _TABLES.species_by_id["ditto"]
_SUBSTITUTE = _TABLES.move_by_id["substitute"]
_MIMIC = _TABLES.move_by_id["mimic"]
_TRANSFORM = _TABLES.move_by_id["transform"]


def _pad(rows, width):
    out = np.zeros((len(rows), width), np.int32)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _build_tables():
    species = [_TABLES.species_by_id[k] for k in _SETS]              # data.json order
    mv = lambda names: [_TABLES.move_by_id[m] for m in names]
    moves = [mv(_SETS[k]["moves"]) for k in _SETS]
    exclusive = [mv(_SETS[k].get("exclusiveMoves", [])) for k in _SETS]
    essential = [mv(_SETS[k].get("essentialMoves", [])) for k in _SETS]
    combo = [mv(_SETS[k].get("comboMoves", [])) for k in _SETS]
    levels = [_SETS[k].get("level", 80) for k in _SETS]
    chart = _TABLES.type_chart
    weak = np.zeros((len(species), 6), bool)
    for n, sp in enumerate(species):
        types = [t for t in _TABLES.species_types[sp] if t != tables.TYPE_NONE]
        for w, name in enumerate(_WEAKNESS_TYPES):
            a = _TABLES.type_names.index(name)
            eff = [chart[a, t] for t in types]
            immune = any(e == 3 for e in eff)
            total = sum(1 if e == 1 else (-1 if e == 2 else 0) for e in eff)
            weak[n, w] = (not immune) and total > 0
    # moves that use the Attack stat: Physical, not fixed damage, no damage callback
    physical = np.zeros(tables.NUM_MOVES, bool)
    for i in range(1, tables.STRUGGLE + 1):
        callback = _TABLES.move_effect[i] in (tables.Effect.COUNTER, tables.Effect.SUPER_FANG, tables.Effect.PSYWAVE)
        physical[i] = (_TABLES.move_category[i] == tables.CATEGORY_PHYSICAL and _TABLES.move_fixed_damage[i] == 0
                       and not callback)
    combo_ok = [len(c) <= 4 and len(c) > 0 for c in combo]
    return dict(
        species=np.asarray(species, np.int32), levels=np.asarray(levels, np.int32),
        moves=_pad(moves, 12), n_moves=np.asarray([len(m) for m in moves], np.int32),
        exclusive=_pad(exclusive, 12), n_exclusive=np.asarray([len(m) for m in exclusive], np.int32),
        essential=_pad(essential, 4), n_essential=np.asarray([len(m) for m in essential], np.int32),
        combo=_pad(combo, 4), n_combo=np.asarray([len(m) if ok else 0 for m, ok in zip(combo, combo_ok)], np.int32),
        weak=weak, physical=physical,
    )


_NP = _build_tables()
POOL_SIZE = int(_NP["species"].shape[0])   # 146

# Everything the generator reads about a pool species, one row per pool index, read with one
# ``take_rows`` per pick (a one-hot product in the accelerator form: a TPU runs a table read at
# per-battle indices as one slow lookup per battle, and a pick read ~15 of them).
_ROW_FIELDS = (("species", 1), ("level", 1), ("types", 2), ("base_hp", 1), ("weak", 6), ("n_combo", 1),
               ("combo", 4), ("n_exclusive", 1), ("exclusive", 12), ("n_essential", 1), ("essential", 4),
               ("n_moves", 1), ("moves", 12))
_ROWS = np.concatenate([
    _NP["species"][:, None], _NP["levels"][:, None], _TABLES.species_types[_NP["species"]],
    _TABLES.species_base[_NP["species"], :1], _NP["weak"].astype(np.int32), _NP["n_combo"][:, None], _NP["combo"],
    _NP["n_exclusive"][:, None], _NP["exclusive"], _NP["n_essential"][:, None], _NP["essential"],
    _NP["n_moves"][:, None], _NP["moves"]], axis=1).astype(np.int32)


def _species_row(pool_index) -> dict:
    """The pool species' generator data (``_ROW_FIELDS``) at ``pool_index``."""
    row = take_rows(_ROWS, pool_index)
    out, at = {}, 0
    for name, width in _ROW_FIELDS:
        out[name] = row[..., at] if width == 1 else row[..., at:at + width]
        at += width
    out["weak"] = out["weak"] != 0
    return out


def _add_move(moves, count, move, on):
    """Add ``move`` to the (ordered, duplicate-free) move list if ``on`` and not already there."""
    new = on & (count < 4) & ~jnp.any(moves == move) & (move != 0)
    moves = jnp.where(new & (jnp.arange(4) == count), move, moves)
    return moves, count + new.astype(jnp.int32)


def random_set(state, pool_index, row: dict | None = None):
    """Showdown's ``randomSet`` for the species at data-index ``pool_index`` (``row``: its
    ``_species_row``, if read already). Returns (state, species, level, moves[4], ivs[6], evs[6])."""
    row = _species_row(pool_index) if row is None else row
    moves = jnp.zeros(4, jnp.int32)
    count = jnp.zeros((), jnp.int32)
    n_combo = row["n_combo"]
    state, combo_roll = prng.random_chance(state, 1, 2, n_combo > 0)
    take_combo = (n_combo > 0) & combo_roll
    for k in range(4):
        moves, count = _add_move(moves, count, row["combo"][k], take_combo & (k < n_combo))
    n_excl = row["n_exclusive"]
    has_excl = (count < 4) & (n_excl > 0)
    state, e = prng.random_int(state, jnp.maximum(n_excl, 1), has_excl)
    moves, count = _add_move(moves, count, read(row["exclusive"], e), has_excl)
    n_ess = row["n_essential"]
    for k in range(4):
        moves, count = _add_move(moves, count, row["essential"][k], (count < 4) & (k < n_ess))

    # draw without replacement (swap-remove) from the move pool until four moves or none left
    def cond(c):
        _, _, count, _, n_left = c
        return (count < 4) & (n_left > 0)

    def body(c):
        state, moves, count, pool, n_left = c
        state, idx = prng.random_int(state, n_left)
        move = read(pool, idx)
        pool = write(pool, idx, read(pool, n_left - 1))
        moves, count = _add_move(moves, count, move, True)
        return state, moves, count, pool, n_left - 1

    state, moves, count, _, _ = jax.lax.while_loop(cond, body, (state, moves, count, row["moves"], row["n_moves"]))

    species = row["species"]
    level = row["level"]
    # Substitute sets lower HP stat experience until max HP is not a multiple of 4
    base_hp = row["base_hp"]
    has_sub = jnp.any(moves == _SUBSTITUTE)

    # (Showdown lowers it by 4 while the HP is a multiple of 4 and the stat experience > 3: the first
    # of 255, 251, ..., 3 where that fails, found at once rather than in a 64-step loop)
    candidates = 255 - 4 * jnp.arange(64, dtype=jnp.int32)
    hp = (2 * base_hp + 30 + candidates // 4 + 100) * level // 100 + 10
    lowered = has_sub & (candidates > 3) & (hp % 4 == 0)
    real = jnp.arange(4) < count
    no_attack = jnp.all(~real | ~take_rows(_NP["physical"], moves))
    keeps_attack = jnp.any(real & ((moves == _MIMIC) | (moves == _TRANSFORM)))
    drop = no_attack & ~keeps_attack
    # HP and Attack stat experience and IVs as computed; the rest 255 and 30 (built, not written: a
    # write at a fixed index under vmap is a scatter)
    stat = jnp.arange(6)
    evs = jnp.where(stat == 0, read(candidates, jnp.argmin(lowered)), jnp.where((stat == 1) & drop, 0, 255))
    ivs = jnp.where((stat == 1) & drop, 2, 30)
    # Fisher-Yates shuffle of the moves in insertion order: the result is the slot order
    for i in range(3):
        on = i < count - 1
        state, j = prng.random_range(state, i, jnp.maximum(count, i + 1), on)
        j = jnp.where(on, j, i)
        a, b = moves[i], read(moves, j)
        moves = write(write(moves, i, b), j, a)
    return state, species, level, moves, ivs, evs


_NO_SLOT = POOL_SIZE   # an out-of-range index: the scatters below drop a write there (the masked-off rows)


def _generator_start(states, battle_has_ditto):
    """The generator before its first pick, for ``len(states)`` teams drawn one after the other
    (``states``: each team's generator seed; p2's on the same generator object as p1's)."""
    n_teams = states.shape[0]
    # each team's generator after its type draw (unused outside monotype); each team has its own seed
    after_type_draw = jax.vmap(lambda st: prng.random_int(st, 15)[0])(states)
    return dict(state=after_type_draw[0], next_states=after_type_draw, team=jnp.zeros((), jnp.int32),
                done=jnp.zeros((), bool),
                species=jnp.zeros((n_teams, 6), jnp.int32), level=jnp.zeros((n_teams, 6), jnp.int32),
                moves=jnp.zeros((n_teams, 6, 4), jnp.int32), ivs=jnp.zeros((n_teams, 6, 6), jnp.int32),
                evs=jnp.zeros((n_teams, 6, 6), jnp.int32), size=jnp.zeros(n_teams, jnp.int32),
                pool=jnp.arange(POOL_SIZE, dtype=jnp.int32), n_left=jnp.asarray(POOL_SIZE, jnp.int32),
                rejected=jnp.zeros(POOL_SIZE, jnp.int32), n_rejected=jnp.zeros((), jnp.int32),
                type_count=jnp.zeros(15, jnp.int32), weak_count=jnp.zeros(6, jnp.int32),
                max_level=jnp.zeros((), jnp.int32), has_ditto=jnp.asarray(battle_has_ditto))


def _generator_pick(c):
    """One draw of the generator for the current team: from the species pool while it lasts (with
    the checks), then from the rejects (no checks); a single ``random_set`` serves both. When the
    team is complete the next team starts (fresh pool and counts; the Ditto flag carries over);
    after the last team nothing changes any more (``done``). Under ``vmap`` this loop runs as many
    passes as the batch's slowest battle. Its reads and writes at per-battle indices go through
    ``paritygym.indexing`` (a masked-off write is one out of range, dropped): the plain gathers and
    scatters on the CPU, one-hot selects in the accelerator form, where a TPU would run each as a
    loop over the battles."""
    on = ~c["done"]
    team, n_left, n_rejected = c["team"], c["n_left"], c["n_rejected"]
    from_pool = n_left > 0
    state, idx = prng.random_int(c["state"], jnp.maximum(jnp.where(from_pool, n_left, n_rejected), 1), on)
    pool, rejected = c["pool"], c["rejected"]
    p = jnp.where(from_pool, read(pool, idx), read(rejected, idx))
    # swap-remove the drawn species from the list it came from
    pool = write(pool, jnp.where(on & from_pool, idx, _NO_SLOT), read(pool, n_left - 1))
    rejected = write(rejected, jnp.where(on & ~from_pool, idx, _NO_SLOT), read(rejected, n_rejected - 1))
    n_rejected = n_rejected - (on & ~from_pool).astype(jnp.int32)
    row = _species_row(p)
    species, types, weak = row["species"], row["types"], row["weak"]
    real_type = types != tables.TYPE_NONE
    type_count, weak_count = c["type_count"], c["weak_count"]
    ditto_skip = (species == _DITTO) & c["has_ditto"]
    type_skip = jnp.any(real_type & (lookup(type_count, jnp.clip(types, 0, 14)) >= 2))
    weak_skip = jnp.any(weak & (weak_count >= 2))
    level_skip = (row["level"] == 100) & (c["max_level"] >= 1)
    reject = on & from_pool & ~ditto_skip & (type_skip | weak_skip | level_skip)
    accept = on & (~from_pool | (~ditto_skip & ~reject))
    rejected = write(rejected, jnp.where(reject, n_rejected, _NO_SLOT), p)
    n_rejected = n_rejected + reject.astype(jnp.int32)
    # randomSet's draws happen only for an accepted species
    new_state, species_, level, moves, ivs, evs = random_set(state, p, row)
    state = jnp.where(accept, new_state, state)
    slot = jnp.where(accept, read(c["size"], team), _NO_SLOT)
    out = {name: write(c[name], (team, slot), value)
           for name, value in (("species", species_), ("level", level), ("moves", moves), ("ivs", ivs), ("evs", evs))}
    size = add(c["size"], team, accept.astype(jnp.int32))
    counted = accept & from_pool
    for j in range(2):
        type_count = add(type_count, jnp.clip(types[j], 0, 14), (counted & real_type[j]).astype(jnp.int32))
    weak_count = weak_count + (counted & weak).astype(jnp.int32)
    max_level = c["max_level"] + (counted & (row["level"] == 100)).astype(jnp.int32)
    has_ditto = c["has_ditto"] | (counted & (species == _DITTO))
    n_left = n_left - (on & from_pool).astype(jnp.int32)
    # the team is complete (six, or no species left): start the next one, or stop
    complete = on & ~((read(size, team) < 6) & ((n_left > 0) | (n_rejected > 0)))
    last = c["species"].shape[0] - 1
    next_team = complete & (team < last)
    fresh = lambda value, old: jnp.where(next_team, value, old)
    return dict(out, state=fresh(read(c["next_states"], jnp.minimum(team + 1, last)), state),
                next_states=c["next_states"], team=team + next_team.astype(jnp.int32),
                done=c["done"] | (complete & (team == last)), size=size,
                pool=fresh(jnp.arange(POOL_SIZE, dtype=jnp.int32), pool), n_left=fresh(POOL_SIZE, n_left),
                # the rejects need no reset: only their first n_rejected entries are ever read
                rejected=rejected, n_rejected=fresh(0, n_rejected), type_count=fresh(0, type_count),
                weak_count=fresh(0, weak_count), max_level=fresh(0, max_level), has_ditto=has_ditto)


def _generate(states, battle_has_ditto):
    c = jax.lax.while_loop(lambda c: ~c["done"], _generator_pick, _generator_start(states, battle_has_ditto))
    teams_ = TeamArrays(species=c["species"], level=c["level"], moves=c["moves"], ivs=c["ivs"], evs=c["evs"],
                        size=c["size"])
    return c["state"], teams_, c["has_ditto"]


def random_team(state, battle_has_ditto=False):
    """Showdown's gen-1 ``randomTeam`` on a team-generator PRNG state. Returns
    (state, TeamArrays, battle_has_ditto): pass the flag on to the second player's team, as
    Showdown's shared generator object does (only one Ditto per battle)."""
    state, team, has_ditto = _generate(jnp.asarray(state)[None], battle_has_ditto)
    return state, jax.tree_util.tree_map(lambda x: x[0], team), has_ditto


def random_teams(key):
    """Two random-battle teams from a JAX key: p1's generator state, then p2's on the same
    generator object (the Ditto flag carries over), as Showdown does. Stacked TeamArrays
    ([2, 6, ...]). One loop generates both, so ``random_set`` is compiled once."""
    k1, k2 = jax.random.split(key)
    return _generate(jnp.stack([prng.seed_from_key(k1), prng.seed_from_key(k2)]), False)[1]


# ---------------------------------------------------------------------------------------------
# Pre-generated team pools (training and benchmarks)
#
# Generating two teams is ~40% of an env step at large batches: the generator is sequential and,
# under vmap, every env runs to the slowest team of the batch. A pool generates N teams once
# with the generator above (each one exactly the team Showdown generates for its seed) and a new
# battle then only draws two rows of it.
# ---------------------------------------------------------------------------------------------

@struct.dataclass
class TeamPool:
    """``size`` random-battle teams, each exactly Showdown's ``Teams.generate('gen1randombattle',
    {seed})`` for its generator seed ``seeds[n]`` (uint32[2] state: Showdown's player seed
    ``[hi >> 16, hi & 0xFFFF, lo >> 16, lo & 0xFFFF]``)."""
    teams: TeamArrays      # [size, 6, ...] (size: [size])
    seeds: jax.Array       # uint32[size, 2]
    has_ditto: jax.Array   # bool[size]
    ditto_free: jax.Array  # int32[size]: indices of Ditto-free teams, repeated to fill ``size``

    @property
    def size(self) -> int:
        return int(self.seeds.shape[0])


_POOL_CHUNK = 256


@functools.lru_cache(maxsize=None)
def _generate_from_states():
    return jax.jit(jax.vmap(lambda state: random_team(state, False)[1]))


def make_team_pool(size: int, seed: int = 0) -> TeamPool:
    """A pool of ``size`` teams from Showdown's generator, their player seeds drawn from ``seed``
    (same ``size`` and ``seed``, same pool). Host-side; compiles the generator once per process."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"a team pool needs a positive int size, got {size!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the team pool seed must be a non-negative int, got {seed!r}")
    words = np.random.default_rng([int(seed), int(size)]).integers(0, 1 << 16, (int(size), 4), dtype=np.uint32)
    states = np.stack([(words[:, 0] << 16) | words[:, 1], (words[:, 2] << 16) | words[:, 3]], axis=1)
    # fixed-size chunks: one compiled program whatever the pool size
    padded = np.resize(states, (-(-int(size) // _POOL_CHUNK) * _POOL_CHUNK, 2))
    chunks = [_generate_from_states()(jnp.asarray(padded[i:i + _POOL_CHUNK])) for i in range(0, len(padded), _POOL_CHUNK)]
    team_arrays = jax.tree_util.tree_map(lambda *xs: np.concatenate([np.asarray(x) for x in xs])[:int(size)], *chunks)
    has_ditto = (team_arrays.species == _DITTO).any(axis=1)
    free = np.flatnonzero(~has_ditto)
    if free.size == 0:   # a tiny all-Ditto pool: nothing to swap in
        free = np.arange(int(size))
    ditto_free = np.resize(free, int(size)).astype(np.int32)
    return TeamPool(teams=jax.tree_util.tree_map(jnp.asarray, team_arrays), seeds=jnp.asarray(states, jnp.uint32),
                    has_ditto=jnp.asarray(has_ditto), ditto_free=jnp.asarray(ditto_free))


def draw_battle_teams(key, pool: TeamPool) -> TeamArrays:
    """Two teams for a new battle, drawn uniformly (with replacement) from ``pool``; stacked
    TeamArrays ([2, 6, ...]). Showdown's generator lets only one of a battle's two teams have
    Ditto: when both drawn teams do, the second is replaced by a Ditto-free one."""
    first, second = jax.random.randint(key, (2,), 0, pool.seeds.shape[0])
    second = jnp.where(pool.has_ditto[first] & pool.has_ditto[second], pool.ditto_free[second], second)
    rows = jnp.stack([first, second])
    return jax.tree_util.tree_map(lambda x: x[rows], pool.teams)
