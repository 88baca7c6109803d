"""The battle state: fixed-size arrays in a ``flax.struct`` pytree.

Layout. ``team`` holds both teams as ``[2 sides, 6 Pokémon, ...]``. The two active Pokémon live
in ``active`` (``[2 sides, ...]``), which carries their persistent fields (HP, status, base PP)
while they are in battle and everything volatile (stages, substitute, confusion, transformed
species/stats/moves...). A switch writes the persistent fields back to ``team`` and loads the
incoming Pokémon; ``synced_team`` gives the team with the actives' current values overlaid.
``side`` holds Showdown's per-side bookkeeping (last selected move etc.), ``battle`` the rest.

Integers are stored as int16 (``STORE``: the team and the packed per-side fields) and read as int32;
move, species and type indices are those of ``pokejax.data.tables``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from paritygym.backend import accelerator_form
from pokejax.rows import select

NUM_SIDES = 2
TEAM_SIZE = 6
NUM_MOVE_SLOTS = 4

# battle.request: what the next call to step expects (REQUEST_START: a new battle whose leads have
# not been sent out yet; the next step runs Showdown's ``start`` and ignores the actions)
REQUEST_MOVE, REQUEST_SWITCH, REQUEST_ENDED, REQUEST_START = 0, 1, 2, 3
# battle.winner once ended
WINNER_NONE, WINNER_P1, WINNER_P2, WINNER_TIE = -1, 0, 1, 2


# Storage dtype of the team and the packed per-side fields: every value fits in 16 bits (stats and HP
# below 1,000, move and species ids, counters), and a narrower state is less memory traffic for the
# batched step's many whole-state kernels (the pool env's bench program ran ~10-20% more steps per
# CPU s). Reads widen to int32 (``Team.wide``, ``_Packed`` attributes).
STORE = jnp.int16


def entry(x, index) -> jnp.ndarray:
    """``x[index]`` for a per-battle array whose first axis has a few entries (the two sides, the
    action slots) and a scalar ``index`` that may be traced (under ``vmap``: one index per battle).
    The CPU form indexes (a gather, the program as before); the accelerator form selects among the
    entries: a TPU runs a batch-indexed gather as one slow lookup per battle."""
    x = jnp.asarray(x)
    if not accelerator_form():
        return x[index]
    return select(x, index)


def with_entry(x, index, value) -> jnp.ndarray:
    """``x.at[index].set(value)`` (``entry``'s write: a select in the accelerator form)."""
    x = jnp.asarray(x)
    if not accelerator_form():
        return x.at[index].set(value)
    here = (jnp.arange(x.shape[0]) == index).reshape((-1,) + (1,) * (x.ndim - 1))
    return jnp.where(here, jnp.asarray(value, x.dtype), x)


@struct.dataclass
class Team:
    """Both teams, [2, 6, ...]. For an active Pokémon, hp/status/pp here are stale (see Active).
    The battle state stores it ``narrow()`` (int16); rules read ``wide()`` (int32)."""
    species: jnp.ndarray      # [2,6]
    level: jnp.ndarray        # [2,6]
    ivs: jnp.ndarray          # [2,6,6] Showdown IVs (even, 0-30; DV = IV/2), order hp atk def spa spd spe
    evs: jnp.ndarray          # [2,6,6]
    stats: jnp.ndarray        # [2,6,6] max HP then stored atk def spa spd spe
    moves: jnp.ndarray        # [2,6,4] move index (0 = empty slot)
    pp: jnp.ndarray           # [2,6,4]
    hp: jnp.ndarray           # [2,6]
    status: jnp.ndarray       # [2,6]
    sleep_turns: jnp.ndarray  # [2,6] Showdown's statusState.time for slp
    status_by_foe: jnp.ndarray  # [2,6] bool: the status came from the opponent (Sleep Clause)
    fainted: jnp.ndarray      # [2,6] bool
    size: jnp.ndarray         # [2] number of Pokémon on each team (1-6)
    revealed: jnp.ndarray     # [2,6] bool: has been in battle (the opponent has seen it)
    revealed_moves: jnp.ndarray  # [2,6,4] bool: the opponent has seen it use this move slot

    def narrow(self) -> "Team":
        """The storage form: integer leaves as ``STORE`` (the battle state keeps the team this way)."""
        return jax.tree_util.tree_map(lambda x: x if x.dtype == bool else x.astype(STORE), self)

    def wide(self) -> "Team":
        """The form the rules read: integer leaves as int32, so that no arithmetic runs in 16 bits."""
        return jax.tree_util.tree_map(lambda x: x if x.dtype == bool else x.astype(jnp.int32), self)


class _Packed:
    """Many small per-side fields stored as two ``STORE`` (int16) arrays ``data = (side 0 [N], side 1
    [N])``, read as int32.

    Fields are read as attributes (``active.hp`` is ``int32[2]``, ``active.moves`` ``int32[2, 4]``,
    boolean fields come back as bool); ``of_side(i)`` reads one side's fields (``i`` may be traced);
    ``with_fields`` writes several fields of one side at once. Packing keeps the compiled program
    small: a reset, a side swap or a multi-field update is a few array operations instead of one per
    field. One array per side rather than one ``[2, N]`` array: a write touches its side's array only,
    and no kernel interleaves the two sides."""
    FIELDS: tuple = ()
    BOOL: frozenset = frozenset()
    _layout: dict = {}

    @classmethod
    def _build(cls):
        layout, offset = {}, 0
        for name, length in cls.FIELDS:
            layout[name] = (offset, length)
            offset += length
        cls._layout = layout
        cls.WIDTH = offset

    @classmethod
    def _read(cls, row, name):
        offset, length = cls._layout[name]
        x = row[..., offset] if length == 1 else row[..., offset:offset + length]
        return x != 0 if name in cls.BOOL else x.astype(jnp.int32)

    def __getattr__(self, name):
        cls = type(self)
        if name not in cls._layout:
            raise AttributeError(name)
        both = [cls._read(row, name) for row in self.data]
        return jnp.stack(both, axis=-1 if cls._layout[name][1] == 1 else -2)

    def of_side(self, side) -> "_SideView":
        """One side's fields (``view.hp`` is a scalar); ``side`` may be traced."""
        if isinstance(side, (int, np.integer)):
            return _SideView(type(self), self.data[side])
        return _SideView(type(self), jnp.where(jnp.asarray(side) == 0, self.data[0], self.data[1]))

    def swapped(self, do):
        """The two sides exchanged where ``do``."""
        d0, d1 = self.data
        return self.replace(data=(jnp.where(do, d1, d0), jnp.where(do, d0, d1)))

    @classmethod
    def indices(cls, name):
        offset, length = cls._layout[name]
        return offset, length

    @staticmethod
    def _splice(row, pieces, start=0):
        """``row`` with [offset, offset+length) replaced by value, for (offset, length, value)
        in ``pieces`` (sorted, non-overlapping): slices and one concatenate, no scatter."""
        out, pos = [], start
        for offset, length, value in pieces:
            if offset > pos:
                out.append(row[pos - start:offset - start])
            out.append(value)
            pos = offset + length
        if pos - start < row.shape[0]:
            out.append(row[pos - start:])
        return jnp.concatenate(out)

    def _with_row(self, i: int, row):
        data = list(self.data)
        data[i] = row
        return self.replace(data=tuple(data))

    def _scatter(self, i: int, on, columns: np.ndarray, values):
        """``data[i][columns] = values`` where ``on``, as a scatter whose indices point past the row
        where ``on`` is false (dropped): the write needs no read of the old columns. A select
        against the old columns made XLA read older versions of the array after later in-place
        writes, and copy the whole array before each such write."""
        on = jnp.asarray(on, bool)
        if accelerator_form():
            return self._with_row(i, self._select_columns(self.data[i], on, columns, values))
        target = jnp.where(on, columns, type(self).WIDTH)
        return self._with_row(i, self.data[i].at[target].set(values, mode="drop"))

    @classmethod
    def _select_columns(cls, row, on, columns, values):
        """``_scatter``'s write in the accelerator form (``paritygym.backend``): selects, no scatter
        (a vmapped scatter becomes a loop over the battles on the TPU). Static columns: a splice of
        contiguous runs; a traced column: a one-hot select over the row."""
        values = jnp.asarray(values).astype(STORE)
        if not isinstance(columns, (np.ndarray, np.integer, int)):
            return jnp.where(on & (jnp.arange(cls.WIDTH) == columns), values, row)
        columns = np.atleast_1d(np.asarray(columns))
        values = jnp.broadcast_to(values, columns.shape)
        pieces, start = [], 0
        for end in [k + 1 for k in np.nonzero(np.diff(columns) != 1)[0]] + [columns.shape[0]]:
            offset, length = int(columns[start]), end - start
            pieces.append((offset, length, jnp.where(on, values[start:end], row[offset:offset + length])))
            start = end
        return cls._splice(row, sorted(pieces, key=lambda piece: piece[0]))

    def _scatter_block(self, i: int, on, start: int, values):
        """``data[i][start:start + len(values)] = values`` where ``on``: one scatter of a contiguous
        window (its start past the row where ``on`` is false, so dropped); one index per write instead
        of one per column."""
        if accelerator_form():
            return self._with_row(i, self._select_columns(self.data[i], jnp.asarray(on, bool),
                                                          np.arange(start, start + values.shape[0]), values))
        begin = jnp.where(jnp.asarray(on, bool), start, type(self).WIDTH)
        numbers = jax.lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                                  scatter_dims_to_operand_dims=(0,))
        row = jax.lax.scatter(self.data[i], begin.astype(jnp.int32).reshape(1, 1), values[None], numbers,
                              mode=jax.lax.GatherScatterMode.FILL_OR_DROP)
        return self._with_row(i, row)

    def with_fields(self, i: int, on, **fields):
        """Set ``fields`` of side ``i`` (static int) where ``on``: one scatter of the written columns
        (a window where they are contiguous)."""
        layout = type(self)._layout
        columns, values = [], []
        for name, value in sorted(fields.items(), key=lambda item: layout[item[0]][0]):
            offset, length = layout[name]
            columns.append(np.arange(offset, offset + length))
            values.append(jnp.broadcast_to(jnp.asarray(value).astype(STORE), (length,) if length > 1 else ()).reshape(length))
        columns = np.concatenate(columns)
        if columns.shape[0] == 1:  # one column: a scalar index
            return self._scatter(i, on, columns[0], values[0][0])
        values = jnp.concatenate(values) if len(values) > 1 else values[0]
        if np.all(np.diff(columns) == 1):
            return self._scatter_block(i, on, int(columns[0]), values)
        return self._scatter(i, on, columns, values)

    def with_flag(self, i: int, on, column):
        """Set the one-column field at ``column`` (a traced column index, -1 = none) of side ``i``
        to 1 where ``on``: a per-move table of columns replaces one write per field."""
        return self._scatter(i, on & (column >= 0), column, STORE(1))

    def with_column(self, name, values):
        """Set a scalar field for both sides at once (``values``: [2])."""
        offset, _ = type(self)._layout[name]
        values = jnp.asarray(values).astype(STORE)
        return self.replace(data=tuple(jnp.concatenate([row[:offset], values[k][None], row[offset + 1:]])
                                       for k, row in enumerate(self.data)))

    def with_reset(self, i, on, start, **fields):
        """Zero every field from column ``start`` on for side ``i`` (where ``on``), then set ``fields``."""
        width = type(self).WIDTH
        pieces = []
        for name, value in fields.items():
            offset, length = type(self)._layout[name]
            assert offset >= start, name
            pieces.append((offset, length, jnp.broadcast_to(jnp.asarray(value).astype(STORE), (length,) if length > 1 else ()).reshape(length)))
        pieces.sort(key=lambda p: p[0])
        block = self._splice(jnp.zeros(width - start, STORE), pieces, start)
        return self._scatter_block(i, on, start, block)

    @classmethod
    def zeros(cls):
        return cls(data=(jnp.zeros(cls.WIDTH, STORE), jnp.zeros(cls.WIDTH, STORE)))

    @classmethod
    def from_rows(cls, rows):
        """From a ``[2, N]`` array (side 0's row first), e.g. a state built from Showdown's."""
        rows = jnp.asarray(rows, STORE)
        return cls(data=(rows[0], rows[1]))

    def fields(self) -> dict:
        return {name: getattr(self, name) for name, _ in type(self).FIELDS}


class _SideView:
    """One side's packed fields, read as attributes (see ``_Packed.of_side``)."""

    def __init__(self, packed: type, row):
        self._packed, self._row = packed, row

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._packed._layout:
            raise AttributeError(name)
        return self._packed._read(self._row, name)


@struct.dataclass
class Active(_Packed):
    """The two active Pokémon, packed (one row of ``N`` columns per side). Fields (``active.<name>``):

    persistent while in battle (written back to ``Team`` on switch-out):
      slot (team index), hp, status, sleep_turns (statusState.time), status_by_foe, fainted,
      base_moves [4] and base_pp [4] (the set's move slots), base_revealed [4] (slots the opponent
      has seen used)
    volatile, reset by switching or fainting (``VOLATILE_START`` onwards):
      species (current, Transform), types [2], stored [5] / modified [5] stats (atk def spa spd spe;
      gen 1 reads modifiedStats), boosts [7] (+ accuracy, evasion), speed (Showdown's cached
      ``pokemon.speed``: the sort key of its events), transformed, moves [4] / pp [4] / virtual [4]
      (moveSlots; Transform and Mimic replace them), last_move, sub_hp (0 = no substitute),
      sub_fainted, confusion (turns left), flinch (duration), must_recharge,
      locked_move / locked_time / locked_accuracy (Thrash), rage / rage_accuracy, two_turn_move,
      invulnerable (Dig/Fly), trap_lock_move / _duration / _total / _damage / _target (the
      Wrap user's lock), trapped / trapped_maybe_locked / trapped_source (partiallytrapped),
      fake_trapped / fake_trapped_counterpart, bide_time / bide_damage, disable_move /
      disable_slot / disable_time, leech_seed, reflect, light_screen, mist, focus_energy, minimize,
      defense_curl, toxic_counter / has_toxic_counter (the residualdmg volatile), maybe_locked
    """
    data: tuple
    FIELDS = (
        ("slot", 1), ("hp", 1), ("status", 1), ("sleep_turns", 1), ("status_by_foe", 1), ("fainted", 1),
        ("base_moves", 4), ("base_pp", 4), ("base_revealed", 4),
        # ---- volatile from here
        ("species", 1), ("types", 2), ("stored", 5), ("modified", 5), ("boosts", 7), ("speed", 1),
        ("transformed", 1), ("moves", 4), ("pp", 4), ("virtual", 4), ("last_move", 1), ("sub_hp", 1),
        ("sub_fainted", 1), ("confusion", 1), ("flinch", 1), ("must_recharge", 1), ("locked_move", 1),
        ("locked_time", 1), ("locked_accuracy", 1), ("rage", 1), ("rage_accuracy", 1), ("two_turn_move", 1),
        ("invulnerable", 1), ("trap_lock_move", 1), ("trap_lock_duration", 1), ("trap_lock_total", 1),
        ("trap_lock_damage", 1), ("trap_lock_target", 1), ("trapped", 1), ("trapped_maybe_locked", 1),
        ("trapped_source", 1), ("fake_trapped", 1), ("fake_trapped_counterpart", 1), ("bide_time", 1),
        ("bide_damage", 1), ("disable_move", 1), ("disable_slot", 1), ("disable_time", 1), ("leech_seed", 1),
        ("reflect", 1), ("light_screen", 1), ("mist", 1), ("focus_energy", 1), ("minimize", 1),
        ("defense_curl", 1), ("toxic_counter", 1), ("has_toxic_counter", 1), ("maybe_locked", 1),
    )
    BOOL = frozenset({"status_by_foe", "fainted", "base_revealed", "transformed", "virtual", "sub_fainted", "must_recharge", "rage",
                      "invulnerable", "trapped_maybe_locked", "leech_seed", "reflect", "light_screen", "mist",
                      "focus_energy", "minimize", "defense_curl", "has_toxic_counter", "maybe_locked"})


Active._build()
VOLATILE_START = Active.indices("species")[0]


@struct.dataclass
class Side(_Packed):
    """Showdown's per-side bookkeeping, packed (one row per side): last_selected_move (wPlayerSelectedMove),
    last_selected_slot (wPlayerMoveListIndex), last_move / last_enemy_move (side.lastMove /
    side.lastEnemyMove, read by Counter), last_enemy_selected_move (the Desync Clause view),
    fainted_this_turn, pokemon_left, switch_flag (the active must be replaced), queued_move (the
    move of this side's still-pending action this turn, 0 = none)."""
    data: tuple
    FIELDS = (("last_selected_move", 1), ("last_selected_slot", 1), ("last_move", 1), ("last_enemy_move", 1),
              ("last_enemy_selected_move", 1), ("fainted_this_turn", 1), ("pokemon_left", 1),
              ("switch_flag", 1), ("queued_move", 1))
    BOOL = frozenset({"fainted_this_turn", "switch_flag"})


Side._build()


@struct.dataclass
class BattleState:
    team: Team
    active: Active
    side: Side
    rng: jnp.ndarray          # uint32[2] Showdown's battle PRNG (Gen 5 LCG) at the start of the step
    # uint32[POOL_SIZE] the generator's next outputs within a step (``engine.begin_step``); between steps
    # uint32[0]: scratch carried by every copy of the state would cost a quarter of its bytes
    draw_pool: jnp.ndarray
    turn: jnp.ndarray
    last_damage: jnp.ndarray  # battle.lastDamage
    request: jnp.ndarray      # REQUEST_*
    winner: jnp.ndarray       # WINNER_*
    draw_log: jnp.ndarray     # [K, 3] (low, high, result) of each draw this step when tracing, else [0, 3]
    draw_count: jnp.ndarray   # draws made so far this step
