"""Building battles: teams as arrays, Showdown's packed team format, the initial state.

A team is a ``TeamArrays`` of numpy/JAX arrays (species, level, moves, IVs, EVs for up to six
Pokémon). ``from_packed`` reads Showdown's packed format (what ``Teams.pack`` writes and the
bridge returns), applying the same defaults and clamps Showdown's ``Pokemon`` constructor does.
"""

from __future__ import annotations

import re

import jax.numpy as jnp
import numpy as np
from flax import struct

from paritygym.lookup import take_rows
from pokejax import prng
from pokejax.data import tables
from pokejax.game import mechanics
from pokejax.game.engine import start_battle
from pokejax.game.state import (NUM_MOVE_SLOTS, REQUEST_START, TEAM_SIZE, WINNER_NONE, Active, BattleState,
                                Side, Team)

_TABLES = tables.load()


@struct.dataclass
class TeamArrays:
    """One team, numpy or JAX arrays with a leading team-slot axis of 6 (unused slots zero)."""
    species: np.ndarray   # [6]
    level: np.ndarray     # [6]
    moves: np.ndarray     # [6,4]
    ivs: np.ndarray       # [6,6]
    evs: np.ndarray       # [6,6]
    size: np.ndarray      # [] number of Pokémon


def _to_id(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def from_packed(packed: str) -> TeamArrays:
    """Parse a Showdown packed team (gen 1)."""
    mons = [m for m in packed.split("]") if m]
    if not 1 <= len(mons) <= TEAM_SIZE:
        raise ValueError(f"a team needs 1-6 Pokémon, got {len(mons)}")
    species = np.zeros(TEAM_SIZE, np.int32)
    level = np.zeros(TEAM_SIZE, np.int32)
    moves = np.zeros((TEAM_SIZE, NUM_MOVE_SLOTS), np.int32)
    ivs = np.zeros((TEAM_SIZE, 6), np.int32)
    evs = np.zeros((TEAM_SIZE, 6), np.int32)
    for k, mon in enumerate(mons):
        fields = mon.split("|")
        if len(fields) < 11:
            raise ValueError(f"malformed packed Pokémon {mon!r}")
        name = _to_id(fields[1] or fields[0])
        if name not in _TABLES.species_by_id:
            raise ValueError(f"unknown gen-1 species {fields[1] or fields[0]!r}")
        species[k] = _TABLES.species_by_id[name]
        move_names = [_to_id(m) for m in fields[4].split(",") if m]
        if not 1 <= len(move_names) <= 4:
            raise ValueError(f"{name} needs 1-4 moves, got {move_names}")
        for j, mv in enumerate(move_names):
            if mv not in _TABLES.move_by_id or _TABLES.move_by_id[mv] > tables.STRUGGLE:
                raise ValueError(f"unknown gen-1 move {mv!r}")
            moves[k, j] = _TABLES.move_by_id[mv]
        ev_fields = fields[6].split(",") if fields[6] else [""] * 6
        iv_fields = fields[8].split(",") if fields[8] else [""] * 6
        evs[k] = [min(max(int(v), 0), 255) if v else 0 for v in ev_fields]
        ivs[k] = [(min(max(int(v), 0), 31) if v else 31) & 30 for v in iv_fields]
        level[k] = min(max(int(fields[10]), 1), 9999) if fields[10] else 100
    return TeamArrays(species, level, moves, ivs, evs, np.int32(len(mons)))


def to_packed(team: TeamArrays) -> str:
    """The inverse of ``from_packed`` (for driving Showdown with our teams)."""
    out = []
    for k in range(int(team.size)):
        sp = _TABLES.species_ids[int(team.species[k])]
        mv = ",".join(_TABLES.move_ids[int(m)] for m in team.moves[k] if m)
        ev = ",".join(str(int(v)) for v in team.evs[k])
        iv = ",".join(str(int(v)) for v in team.ivs[k])
        out.append(f"{sp}|||NoAbility|{mv}||{ev}||{iv}||{int(team.level[k])}|")
    return "]".join(out)


def stack_teams(p1: TeamArrays, p2: TeamArrays) -> TeamArrays:
    return TeamArrays(*(jnp.stack([jnp.asarray(getattr(p1, f)), jnp.asarray(getattr(p2, f))])
                        for f in ("species", "level", "moves", "ivs", "evs", "size")))


def initial_state(teams: TeamArrays, rng_state, trace_capacity: int = 0) -> BattleState:
    """The state before Showdown's ``start`` action (both leads about to switch in): request
    ``REQUEST_START``, so that ``engine.step`` (whatever the actions) or ``engine.start_battle`` starts it.

    ``teams`` holds both teams stacked ([2, 6, ...]); ``rng_state`` is the battle PRNG
    (``prng.seed_from_showdown``)."""
    species = jnp.asarray(teams.species, jnp.int32)
    level = jnp.asarray(teams.level, jnp.int32)
    moves = jnp.asarray(teams.moves, jnp.int32)
    ivs = jnp.asarray(teams.ivs, jnp.int32)
    evs = jnp.asarray(teams.evs, jnp.int32)
    size = jnp.asarray(teams.size, jnp.int32)
    exists = jnp.arange(TEAM_SIZE)[None, :] < size[:, None]
    # table rows through take_rows: a one-hot product in the accelerator form, not a per-battle gather
    stats = mechanics.calc_stats(take_rows(_TABLES.species_base, species), ivs, evs, level)
    stats = jnp.where(exists[..., None], stats, 0)
    pp = jnp.where(moves != 0, take_rows(_TABLES.move_maxpp, moves), 0)
    team = Team(species=species, level=level, ivs=ivs, evs=evs, stats=stats, moves=moves, pp=pp,
                hp=stats[..., 0], status=jnp.zeros((2, 6), jnp.int32), sleep_turns=jnp.zeros((2, 6), jnp.int32),
                status_by_foe=jnp.zeros((2, 6), bool), fainted=~exists, size=size,
                revealed=jnp.zeros((2, 6), bool), revealed_moves=jnp.zeros((2, 6, 4), bool))
    active = Active.zeros()
    side = Side.zeros()
    for i in (0, 1):
        lead = species[i, 0]
        own = stats[i, 0, 1:]
        active = active.with_fields(
            i, True, slot=0, hp=stats[i, 0, 0], base_moves=moves[i, 0], base_pp=pp[i, 0], species=lead,
            types=take_rows(_TABLES.species_types, lead), stored=own, modified=own, speed=own[tables.SPE], moves=moves[i, 0],
            pp=pp[i, 0])
        side = side.with_fields(i, True, last_selected_move=tables.NOMOVE, last_enemy_selected_move=tables.NOMOVE,
                                pokemon_left=size[i])
    return BattleState(team=team.narrow(), active=active, side=side, rng=jnp.asarray(rng_state, jnp.uint32),
                       draw_pool=jnp.zeros(0, jnp.uint32),
                       turn=jnp.zeros((), jnp.int32), last_damage=jnp.zeros((), jnp.int32),
                       request=jnp.asarray(REQUEST_START, jnp.int32), winner=jnp.asarray(WINNER_NONE, jnp.int32),
                       draw_log=jnp.zeros((trace_capacity, 3), jnp.int32), draw_count=jnp.zeros((), jnp.int32))


def new_battle(teams: TeamArrays, rng_state, trace_capacity: int = 0) -> BattleState:
    """A battle at turn 1, waiting for both players' first choice."""
    return start_battle(initial_state(teams, rng_state, trace_capacity))


def new_battle_from_packed(p1: str, p2: str, seed, trace_capacity: int = 0) -> BattleState:
    return new_battle(stack_teams(from_packed(p1), from_packed(p2)), prng.seed_from_showdown(seed), trace_capacity)
