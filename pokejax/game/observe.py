"""The observation of one player: what that player may know of the battle, as float32[OBS_SIZE]
in [-1, 1]. Layout in ``obs_layout()`` and docs/envs/pokemon.md."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from paritygym.lookup import take_rows
from pokejax.data import tables
from pokejax.game import engine
from pokejax.game.masks import must_act
from pokejax.game.state import REQUEST_MOVE, REQUEST_SWITCH, BattleState, entry
from pokejax.layout import layout

_TABLES = tables.load()


# ---------------------------------------------------------------------------------------------
# observation layout
# ---------------------------------------------------------------------------------------------
MON_FIELDS = (
    ("present", 1), ("active", 1), ("fainted", 1), ("species", 1), ("level", 1), ("hp_fraction", 1),
    ("status", 7), ("base_stats", 6), ("types", 16), ("stats", 6),
)
MOVE_FIELDS = (("known", 1), ("move", 1), ("type", 16), ("category", 3), ("power", 1), ("accuracy", 1),
               ("pp_fraction", 1), ("priority", 1))
ACTIVE_FIELDS = (
    ("boosts", 7), ("stats", 5), ("confused", 1), ("substitute", 1), ("reflect", 1), ("light_screen", 1),
    ("mist", 1), ("focus_energy", 1), ("leech_seed", 1), ("must_recharge", 1), ("locked", 1), ("trapped", 1),
    ("transformed", 1), ("disabled_slot", 4), ("toxic_counter", 1),
)
GLOBAL_FIELDS = (("move_request", 1), ("switch_request", 1), ("must_act", 1), ("opponent_must_act", 1),
                 ("turn", 1))
MON_SIZE = sum(n for _, n in MON_FIELDS)
MOVE_SIZE = sum(n for _, n in MOVE_FIELDS)
SLOT_SIZE = MON_SIZE + 4 * MOVE_SIZE
ACTIVE_SIZE = sum(n for _, n in ACTIVE_FIELDS) + 4 * MOVE_SIZE
GLOBAL_SIZE = sum(n for _, n in GLOBAL_FIELDS)
OBS_SIZE = 2 * 6 * SLOT_SIZE + 2 * ACTIVE_SIZE + GLOBAL_SIZE


def obs_layout() -> list[tuple[str, int, int]]:
    """(name, start, length) of every block of the observation vector."""
    sections = []
    for who in ("own", "opponent"):
        for k in range(6):
            sections.append((f"{who}.team[{k}]", MON_FIELDS))
            sections += [(f"{who}.team[{k}].moves[{j}]", MOVE_FIELDS) for j in range(4)]
    for who in ("own", "opponent"):
        sections.append((f"{who}.active", ACTIVE_FIELDS))
        sections += [(f"{who}.active.moves[{j}]", MOVE_FIELDS) for j in range(4)]
    sections.append(("global", GLOBAL_FIELDS))
    return layout(sections, OBS_SIZE)


F32 = jnp.float32


def _move_rows() -> np.ndarray:
    """float32[NUM_MOVES, 23] per move: type one-hot (16), category one-hot (3), power, accuracy
    (the observation's features), then max PP (at least 1) and priority. One row read per move
    slot (``take_rows``) instead of six table reads."""
    t, inv255 = _TABLES, np.float32(1.0 / 255.0)   # x * (1/255): what the compiled x / 255 computes
    n = len(t.move_type)
    rows = np.zeros((n, 23), np.float32)
    rows[np.arange(n), t.move_type] = 1.0
    rows[np.arange(n), 16 + t.move_category] = 1.0
    rows[:, 19] = t.move_power.astype(np.float32) * inv255
    rows[:, 20] = np.where(t.move_accuracy < 0, np.float32(1.0), t.move_accuracy.astype(np.float32) * inv255)
    rows[:, 21] = np.maximum(t.move_maxpp, 1).astype(np.float32)
    rows[:, 22] = t.move_priority.astype(np.float32)
    return rows


def _species_rows() -> np.ndarray:
    """float32[152, 22] per species: base stats / 255 (6), then the types as a two-hot (16)."""
    t, inv255 = _TABLES, np.float32(1.0 / 255.0)
    n = len(t.species_base)
    rows = np.zeros((n, 22), np.float32)
    rows[:, :6] = t.species_base.astype(np.float32) * inv255
    rows[np.arange(n), 6 + t.species_types[:, 0]] = 1.0
    rows[np.arange(n), 6 + t.species_types[:, 1]] = 1.0
    return rows


_MOVE_ROWS = _move_rows()
_SPECIES_ROWS = _species_rows()


def _unit(x) -> jax.Array:
    """float32 ``x`` clipped to [-1, 1]: PP underflow (63), long Toxic counters, custom levels and the
    turn past 1,000 saturate. Each computed feature is clipped where it is made; the table features
    (one-hots, base stats, power, accuracy, priority) lie in [-1, 1] already
    (``test_observation_table_features_lie_in_unit_range``). A clip of the whole vector would be one
    more pass over it: a kernel of its own in the env step (~3% of its kernel time)."""
    return jnp.clip(jnp.asarray(x, F32), -1.0, 1.0)


def _move_features(moves, pp, known, show_pp):
    """[..., 4] moves -> [..., 4, MOVE_SIZE]."""
    known = known & (moves != 0)
    rows = take_rows(_MOVE_ROWS, moves)
    feats = [
        known[..., None].astype(F32), _unit(moves / 165.0)[..., None], rows[..., :21],
        _unit(jnp.where(show_pp, pp.astype(F32) / rows[..., 21], 0.0))[..., None], rows[..., 22:],
    ]
    return jnp.where(known[..., None], jnp.concatenate(feats, axis=-1), 0.0)


def _team_features(st: BattleState, side, visible_all):
    """[6, SLOT_SIZE] for ``side`` (traced index); ``visible_all``: own side or full observation."""
    team = engine.synced_team(st)
    pick = lambda x: entry(x, side)
    species, level, hp, status = pick(team.species), pick(team.level), pick(team.hp), pick(team.status)
    stats, fainted = pick(team.stats), pick(team.fainted)
    exists = jnp.arange(6) < pick(team.size)
    seen = exists & (visible_all | pick(team.revealed))
    is_active = jnp.arange(6) == entry(st.active.slot, side)
    max_hp = jnp.maximum(stats[:, 0], 1)
    exact = hp / max_hp
    percent = jnp.ceil(100.0 * hp / max_hp)   # HP Percentage Mod: what the opponent sees
    percent = jnp.where((percent == 100) & (hp < max_hp), 99, percent) / 100.0
    species_rows = take_rows(_SPECIES_ROWS, species)
    mon = jnp.concatenate([
        seen[:, None].astype(F32), (is_active & seen)[:, None].astype(F32), (fainted & seen)[:, None].astype(F32),
        _unit(species / 151.0)[:, None], _unit(level / 100.0)[:, None],
        _unit(jnp.where(visible_all, exact, percent))[:, None],
        jax.nn.one_hot(jnp.where(fainted, 0, status), 7, dtype=F32),
        species_rows,
        _unit(jnp.where(visible_all, stats / 999.0, 0.0)),
    ], axis=-1).astype(F32)
    mon = jnp.where(seen[:, None], mon, 0.0)
    moves = _move_features(pick(team.moves), pick(team.pp), visible_all | pick(team.revealed_moves), visible_all)
    return jnp.concatenate([mon, moves.reshape(6, 4 * MOVE_SIZE)], axis=-1)


def _active_features(st: BattleState, side, visible_all):
    a = st.active.of_side(side)
    flags = [a.confusion > 0, a.sub_hp > 0, a.reflect, a.light_screen, a.mist, a.focus_energy, a.leech_seed,
             a.must_recharge,
             (a.locked_move != 0) | a.rage | (a.two_turn_move != 0) | (a.bide_time > 0) | (a.trap_lock_move != 0),
             a.trapped > 0, a.transformed]
    disabled = jnp.where(a.disable_move != 0, jax.nn.one_hot(a.disable_slot, 4, dtype=F32), 0.0)
    head = jnp.concatenate([
        _unit(a.boosts / 6.0), _unit(jnp.where(visible_all, a.modified / 999.0, 0.0)),
        jnp.stack(flags).astype(F32), disabled, _unit(a.toxic_counter / 16.0)[None],
    ]).astype(F32)
    # the active's current move slots (Transform, Mimic) are shown to its own player only
    moves = _move_features(a.moves, a.pp, jnp.broadcast_to(visible_all, (4,)), visible_all)
    return jnp.concatenate([head, moves.reshape(-1)])


def observe(st: BattleState, player, full: bool | jax.Array = False) -> jax.Array:
    """float32[OBS_SIZE]: what ``player`` (0 or 1, may be traced) may know of the battle."""
    return _observe(st, player, full, accelerator_form())


# traced once for its calls of the same shapes in an env step (less tracing, same program); the step
# form is a static argument so that a trace of one form is never reused for the other
@functools.partial(jax.jit, static_argnums=3)
def _observe(st: BattleState, player, full, accelerator: bool) -> jax.Array:
    del accelerator   # read by take_rows at trace time; here it only keys the trace
    player = jnp.asarray(player, jnp.int32)
    foe = 1 - player
    full = jnp.asarray(full, bool)
    own_team = _team_features(st, player, jnp.asarray(True))
    foe_team = _team_features(st, foe, full)
    acting = must_act(st)
    glob = jnp.stack([st.request == REQUEST_MOVE, st.request == REQUEST_SWITCH, entry(acting, player), entry(acting, foe),
                      jnp.asarray(False)]).astype(F32).at[4].set(_unit(st.turn / 1000.0))
    return jnp.concatenate([own_team.reshape(-1), foe_team.reshape(-1),
                            _active_features(st, player, jnp.asarray(True)), _active_features(st, foe, full), glob])
