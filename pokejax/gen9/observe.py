"""What one player of a Gen 9 battle may know, as float32[OBS_SIZE] in [-1, 1] (the conventions of
Gen 1's ``pokejax.game.observe``; layout in ``obs_layout()``).

Per team slot, both sides (own first), then each side's active Pokémon, then the decision:

- own Pokémon in full: species, level, HP fraction, status, current types, Tera type, stats, ability
  and item indices, and the four moves with their PP;
- the opponent's only what Showdown's protocol has shown that player: a Pokémon once it has been on
  the field (``seen``: species, level, HP as Showdown's percentage, status, current types), its Tera type
  once it has Terastallized, a move once it has been used (its PP dropped below the maximum: PP is
  spent exactly when Showdown announces the move; its remaining PP is not shown). Ability and item
  stay hidden until the stages that add them reveal them;
- each active's stat stages, whether it is confused (not for how long) and whether it has had a
  move action since switching in (Fake Out's condition), whether a substitute stands in front of it
  (not its HP) and its last move was a successful Protect (the next one may fail), the turns left of
  its Taunt, Encore, Throat Chop and Heal Block (each announced when it starts and ends, so a player
  can count them), whether it is locked into Outrage or Petal Dance (the hit that locks it is seen; its
  turns left are drawn unseen), whether it must recharge (Giga Impact; announced) and whether it is charging a
  two-turn move (Meteor Beam, Solar Beam; announced) and whether it holds No Retreat's trapping volatile
  (announced) and whether Salt Cure's volatile hurts it (announced); each side's entry hazards and screens' turns left; the weather and its
  turns left (announced when set, each turn and at its end); the request (move or switch), who must act, whether
  each side may still Terastallize, the turn.

``seen`` is not part of the engine's state (``pokejax.gen9.state``): the env keeps it beside the
battle (``pokejax.gen9.env``), updated after every step from the actives.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from pokejax.gen9.data import tables
from pokejax.gen9.masks import must_act
from pokejax.gen9.state import (
    HAZARD_LAYERS,
    HAZARDS,
    NUM_BOOSTS,
    REQUEST_MOVE,
    REQUEST_SWITCH,
    SCREEN_TURNS,
    SCREENS,
    STATUSES,
    TEAM_SIZE,
    WEATHER_TURNS,
    WEATHERS,
    BattleState,
    select,
)
from pokejax.layout import layout
from paritygym.lookup import take_rows

NUM_TYPES = tables.TYPE_NONE   # 18 types and Stellar
MON_FIELDS = (
    ("present", 1), ("active", 1), ("fainted", 1), ("species", 1), ("level", 1), ("hp_fraction", 1),
    ("status", len(STATUSES)), ("base_stats", 6), ("types", NUM_TYPES), ("tera_type", NUM_TYPES),
    ("terastallized", 1), ("stats", 6), ("ability", 1), ("item", 1),
)
MOVE_FIELDS = (("known", 1), ("move", 1), ("type", NUM_TYPES), ("category", 3), ("power", 1), ("accuracy", 1),
               ("pp_fraction", 1), ("priority", 1))
ACTIVE_FIELDS = (("boosts", NUM_BOOSTS), ("confused", 1), ("moved", 1), ("substitute", 1), ("protected_last", 1),
                 ("taunt", 1), ("encore", 1), ("throat_chop", 1), ("heal_block", 1), ("locked", 1), ("recharging", 1),
                 ("charging", 1), ("no_retreat", 1), ("salt_cure", 1), ("failed_last_turn", 1), ("shackled", 1),
                 ("glaive_rush", 1))
_VOLATILE_TURNS = (4.0, 4.0, 2.0, 2.0)   # the most turns of taunt, encore, throatchop, healblock (scales to [0, 1])
# each hazard's layers on the side over its most (HAZARD_LAYERS), each screen's turns left over SCREEN_TURNS
SIDE_FIELDS = (("hazards", len(HAZARDS)), ("screens", len(SCREENS)))
GLOBAL_FIELDS = (("move_request", 1), ("switch_request", 1), ("must_act", 1), ("opponent_must_act", 1),
                 ("can_tera", 1), ("opponent_can_tera", 1), ("weather", len(WEATHERS) - 1), ("weather_turns", 1),
                 ("turn", 1))
MON_SIZE = sum(n for _, n in MON_FIELDS)
MOVE_SIZE = sum(n for _, n in MOVE_FIELDS)
SLOT_SIZE = MON_SIZE + 4 * MOVE_SIZE
ACTIVE_SIZE = sum(n for _, n in ACTIVE_FIELDS) + sum(n for _, n in SIDE_FIELDS)
GLOBAL_SIZE = sum(n for _, n in GLOBAL_FIELDS)
OBS_SIZE = 2 * TEAM_SIZE * SLOT_SIZE + 2 * ACTIVE_SIZE + GLOBAL_SIZE

_STAT_SCALE = 1.0 / 1024   # Gen 9 random-battle stats stay below 1,024 (Blissey's HP: 704 at level 100+)
_TURN_SCALE = 1.0 / 1000


def obs_layout() -> list[tuple[str, int, int]]:
    """(name, start, length) of every block of the observation vector."""
    sections = []
    for who in ("own", "opponent"):
        for k in range(TEAM_SIZE):
            sections.append((f"{who}.team[{k}]", MON_FIELDS))
            sections += [(f"{who}.team[{k}].moves[{j}]", MOVE_FIELDS) for j in range(4)]
    for who in ("own", "opponent"):
        sections += [(f"{who}.active", ACTIVE_FIELDS), (f"{who}.side", SIDE_FIELDS)]
    sections.append(("global", GLOBAL_FIELDS))
    return layout(sections, OBS_SIZE)


@functools.lru_cache(maxsize=1)
def _move_rows() -> np.ndarray:
    """float32[M, MOVE_SIZE - 3]: a move's public features (move index, type one-hot, category one-hot,
    power, accuracy, priority), one row per move so that a slot's features are one row read."""
    t = tables.load()
    n = len(t.move_ids)
    rows = np.zeros((n, 1 + NUM_TYPES + 3 + 3), np.float32)
    rows[:, 0] = np.arange(n) / max(n - 1, 1)
    rows[np.arange(n), 1 + t.move_type] = 1.0
    rows[np.arange(n), 1 + NUM_TYPES + t.move_category] = 1.0
    rows[:, 1 + NUM_TYPES + 3] = np.minimum(t.move_power, 250) / 250.0
    rows[:, 1 + NUM_TYPES + 4] = np.where(t.move_accuracy == 0, 1.0, t.move_accuracy / 100.0)   # 0: never misses
    rows[:, 1 + NUM_TYPES + 5] = t.move_priority / 7.0
    rows[0] = 0.0   # an empty slot
    return rows


@functools.lru_cache(maxsize=1)
def _species_rows() -> np.ndarray:
    """float32[S, 7]: species index and base stats, scaled."""
    t = tables.load()
    n = len(t.species_ids)
    return np.concatenate([(np.arange(n) / max(n - 1, 1))[:, None], t.base_stats / 255.0], axis=1).astype(np.float32)


def _one_hot(index, n: int, when=True):
    return ((jnp.asarray(index)[..., None] == jnp.arange(n)) & jnp.asarray(when)[..., None]).astype(jnp.float32)


def shown_hp_percent(hp, max_hp):
    """int32: the HP Showdown shows the other player (Gen 7+ ``getHealth``): ceil(100 hp / maxhp),
    99 rather than 100 when not at full HP; 0 when fainted."""
    hp, max_hp = jnp.asarray(hp, jnp.int32), jnp.maximum(jnp.asarray(max_hp, jnp.int32), 1)
    percent = (100 * hp + max_hp - 1) // max_hp
    return jnp.where((percent == 100) & (hp < max_hp), 99, percent)


def _team(state: BattleState, side, seen, own: bool):
    """float32[6, SLOT_SIZE] of ``side``'s team as its own player (``own``) or the other sees it."""
    t = tables.load()
    # the side's row x[side] (one battle, no batch axis) through ``state.select``: selects of the two rows on an
    # accelerator, which runs a gather at a per-battle index as one slow lookup per battle
    take = lambda x: select(x, side)
    slots = jnp.arange(TEAM_SIZE)
    present = slots < take(state.team_size)
    visible = present if own else present & take(seen)
    active = (slots == take(state.active)) & present
    hp, max_hp = take(state.hp), take(state.max_hp)
    fainted = present & (hp == 0)
    hp_fraction = hp / jnp.maximum(max_hp, 1) if own else shown_hp_percent(hp, max_hp) / 100.0
    species_row = take_rows(_species_rows(), take(state.species))          # [6, 7]
    terastallized = take(state.terastallized)
    tera_type = take(state.tera_type)
    # Terastallized: the Tera type alone, but for Stellar, which keeps the Pokémon's own types
    retyped = terastallized & (tera_type != t.type_index["Stellar"])
    current_types = jnp.where(retyped[:, None], jnp.stack([tera_type, jnp.full_like(tera_type, t.type_none)], -1),
                              take(state.types))
    types_hot = (_one_hot(current_types[:, 0], NUM_TYPES) + _one_hot(current_types[:, 1], NUM_TYPES)).clip(0, 1)
    stats = jnp.concatenate([max_hp[:, None], take(state.stats)], -1) * _STAT_SCALE
    hidden = jnp.zeros((TEAM_SIZE, 1), jnp.float32)
    mon = jnp.concatenate([
        present[:, None], active[:, None], fainted[:, None], species_row[:, :1],
        (take(state.level) / 100.0)[:, None], hp_fraction[:, None],
        _one_hot(take(state.status), len(STATUSES)), species_row[:, 1:], types_hot,
        _one_hot(tera_type, NUM_TYPES, terastallized if not own else True), terastallized[:, None],
        stats if own else jnp.zeros_like(stats),
        (take(state.ability) / max(len(t.ability_ids) - 1, 1))[:, None] if own else hidden,
        (take(state.item) / max(len(t.item_ids) - 1, 1))[:, None] if own else hidden,
    ], axis=-1).astype(jnp.float32) * visible[:, None]

    moves, pp, max_pp = take(state.moves), take(state.pp), take(state.max_pp)     # [6, 4]
    known = (moves != 0) & (True if own else (pp < max_pp)) & visible[:, None]
    rows = take_rows(_move_rows(), moves)                                          # [6, 4, F]
    pp_fraction = pp / jnp.maximum(max_pp, 1) if own else jnp.zeros(pp.shape)
    move = jnp.concatenate([known[..., None], rows[..., :1 + NUM_TYPES + 3 + 2], pp_fraction[..., None],
                            rows[..., -1:]], axis=-1).astype(jnp.float32) * known[..., None]
    return jnp.concatenate([mon, move.reshape(TEAM_SIZE, 4 * MOVE_SIZE)], axis=-1)


def observe(state: BattleState, seen, player) -> jnp.ndarray:
    """float32[OBS_SIZE]: what ``player`` (0 or 1, may be traced) may know of one battle (no batch
    axis; ``jax.vmap`` it for a batch). ``seen``: bool[2, 6], the Pokémon each side has had on the
    field (``pokejax.gen9.env``)."""
    player = jnp.asarray(player, jnp.int32)
    other = 1 - player
    acting = must_act(state)
    def active(side):   # stages, confused (announced; its turns left are not), a move action since switching in,
        # a substitute up, a Protect in a row, the disabling volatiles' turns left, locked, recharging, charging, No Retreat,
        # Salt Cure, its move failed last turn (Stomping Tantrum's doubling), trapped by Spirit Shackle; then the side's
        # entry hazards
        turns = jnp.stack([select(v, side) for v in (state.taunt, state.encore, state.throat_chop, state.heal_block)])
        return jnp.concatenate([select(state.boosts, side) / 6.0,
                                jnp.stack([select(state.confusion, side) > 0, select(state.moved, side),
                                           select(state.sub_hp, side) > 0, select(state.stall, side) > 0]),
                                turns / jnp.asarray(_VOLATILE_TURNS, jnp.float32),
                                jnp.stack([select(state.locked, side) > 0, select(state.recharge, side),
                                           select(state.charge, side) > 0, select(state.no_retreat, side),
                                           select(state.salt_cure, side), select(state.move_failed_last, side),
                                           select(state.shackled, side), select(state.glaive, side)]),
                                select(state.hazards, side) / jnp.asarray(HAZARD_LAYERS, jnp.float32),
                                select(state.screens, side) / SCREEN_TURNS])
    request = jnp.asarray(state.request)
    parts = [
        _team(state, player, seen, own=True).ravel(), _team(state, other, seen, own=False).ravel(),
        active(player), active(other),
        jnp.stack([request == REQUEST_MOVE, request == REQUEST_SWITCH, select(acting, player), select(acting, other),
                   select(state.can_tera, player), select(state.can_tera, other)]).astype(jnp.float32),
        (jnp.asarray(state.weather)[None] == jnp.arange(1, len(WEATHERS))).astype(jnp.float32),
        (jnp.asarray(state.weather_turns) / WEATHER_TURNS)[None].astype(jnp.float32),
        jnp.minimum(state.turn * _TURN_SCALE, 1.0)[None].astype(jnp.float32),
    ]
    return jnp.concatenate(parts).astype(jnp.float32)


__all__ = ["OBS_SIZE", "obs_layout", "observe", "shown_hp_percent"]
