"""The JAX game state: fixed-size arrays with -1 sentinels for empty positions.

Field names, shapes and meanings are those of `tcgjax.reference.state.canonical`, so that
`canonical(state)` of the two engines can be compared key by key. Player arrays are indexed by seat
([2, ...]); slot 0 is the Active spot.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from paritygym.backend import accelerator_form as accelerated
from tcgjax import spec

I32 = jnp.int32


# Storage: the named fields of `canonical()` live as columns of a few packed int32 arrays, so that a
# rule that changes several fields of a Pokémon (or of a player, or of the Active's effects) updates
# and gates one array, not one array per field: the batched step runs far fewer kernels. Booleans
# are stored as 0/1 and read back as bool.
FLOW_FIELDS = ("rng_counter", "turn", "turn_player", "first_player", "phase", "decider", "aux_card", "aux_index",
               "aux_count", "aux_type", "in_attack", "counter_damage", "turn_ending", "checkup_done", "game_over",
               "winner", "truncated")
SEAT_COLUMNS = (("deck_size", 1), ("hand_size", 1), ("discard_size", 1), ("energy_types", 3), ("points", 1),
                ("energy_current", 1), ("energy_next", 1), ("retreat_reduction", 1), ("attack_bonus", 1),
                ("named_attack_bonus", 1), ("supporter_blocked_turn", 1), ("supporter_played", 1), ("retreated", 1))
ZONE_FIELDS = ("deck", "hand", "discard")  # [2, 3, 20]: deck (index 0 is the top), hand, discard in order of arrival
SLOT_COLUMNS = (("stack", spec.STACK_DEPTH), ("card", 1), ("damage", 1), ("energy", spec.NUM_ENERGY), ("turn_played", 1),
                ("ability_used", 1))
ACTIVE_EFFECT_FIELDS = ("poisoned", "burned", "special", "cant_attack_turn", "cant_retreat_turn", "protected_turn",
                        "reduce_damage_turn", "reduce_damage_amount", "attack_minus_turn", "attack_minus_amount")
SLOT_FIELDS = tuple(name for name, _ in SLOT_COLUMNS)
SLOT_WIDTH = sum(width for _, width in SLOT_COLUMNS)
SEAT_WIDTH = sum(width for _, width in SEAT_COLUMNS)
BOOL_FIELDS = frozenset(("in_attack", "turn_ending", "checkup_done", "game_over", "truncated", "supporter_played",
                         "retreated", "ability_used", "poisoned", "burned"))

# the names of canonical(), in its order
FIELD_NAMES = (("seed",) + FLOW_FIELDS + ("deck", "deck_size", "hand", "hand_size", "discard", "discard_size",
               "energy_types", "points", "energy_current", "energy_next", "retreat_reduction", "attack_bonus",
               "named_attack_bonus", "supporter_blocked_turn", "supporter_played", "retreated")
               + SLOT_FIELDS + ACTIVE_EFFECT_FIELDS)


def _columns(spec_: tuple) -> dict[str, tuple]:
    out, start = {}, 0
    for name, width in spec_:
        out[name] = (start,) if width == 1 else (slice(start, start + width),)
        start += width
    return out


# name -> (packed array, index after the leading (batch and) seat/slot axes)
_LAYOUT: dict[str, tuple[str, tuple]] = {}
_LAYOUT.update({name: ("flow", (i,)) for i, name in enumerate(FLOW_FIELDS)})
_LAYOUT.update({name: ("seat", index) for name, index in _columns(SEAT_COLUMNS).items()})
_LAYOUT.update({name: ("zones", (i, slice(None))) for i, name in enumerate(ZONE_FIELDS)})
_LAYOUT.update({name: ("slots", index) for name, index in _columns(SLOT_COLUMNS).items()})
_LAYOUT.update({name: ("active", (i,)) for i, name in enumerate(ACTIVE_EFFECT_FIELDS)})
SLOT_INDEX = {name: _LAYOUT[name][1][0] for name in SLOT_FIELDS}
ACTIVE_INDEX = {name: i for i, name in enumerate(ACTIVE_EFFECT_FIELDS)}
EMPTY_SLOT = np.array([-1] * spec.STACK_DEPTH + [-1, 0] + [0] * spec.NUM_ENERGY + [0, 0], np.int32)  # clear_slot()


@struct.dataclass
class GameState:
    """One game (or a batch: leading axes). Read any canonical field by name (`state.card`,
    `state.phase`, ...); `replace(card=..., phase=...)` writes named fields into the packed arrays
    (packed names may be replaced directly too)."""
    seed: jnp.ndarray  # uint32
    flow: jnp.ndarray  # int32 [17]: FLOW_FIELDS
    seat: jnp.ndarray  # int32 [2, 15]: SEAT_COLUMNS
    zones: jnp.ndarray  # int32 [2, 3, 20]: ZONE_FIELDS, -1 where empty
    slots: jnp.ndarray  # int32 [2, 4, 15]: SLOT_COLUMNS; slot 0 is the Active spot
    active: jnp.ndarray  # int32 [2, 10]: ACTIVE_EFFECT_FIELDS (the Active's conditions and attack effects)


def _getter(name: str):
    array, index = _LAYOUT[name]
    index = (Ellipsis,) + index
    if name in BOOL_FIELDS:
        return property(lambda self: getattr(self, array)[index] != 0, doc=name)
    return property(lambda self: getattr(self, array)[index], doc=name)


for _name in _LAYOUT:
    setattr(GameState, _name, _getter(_name))


def _replace(self: GameState, **updates) -> GameState:
    packed = {}
    for name, value in updates.items():
        if name in GameState.__dataclass_fields__:
            packed[name] = value
            continue
        if name not in _LAYOUT:
            raise TypeError(f"GameState has no field {name!r}")
        array, index = _LAYOUT[name]
        current = packed.get(array, getattr(self, array))
        packed[array] = write_static(current, index, value)
    return dataclasses.replace(self, **packed)


def write_static(x, index: tuple, value):
    """``x.at[(..., *index)].set(value)`` for a static index (ints, contiguous slices) into the trailing
    axes of ``x`` (a packed array's field, a column of slot rows). In the accelerator form a select against a constant mask (the value padded into place): under
    ``vmap`` the update is a scatter, which the TPU may run row by row; the CPU form keeps the update."""
    value = jnp.asarray(value).astype(jnp.int32)
    if not accelerated():
        return x.at[(Ellipsis,) + index].set(value)
    value = jnp.broadcast_to(value, jax.eval_shape(lambda a: a[(Ellipsis,) + index], x).shape)
    lead = x.ndim - len(index)
    mask = np.zeros(x.shape[lead:], bool)
    mask[index] = True
    for axis, i in enumerate(index, start=lead):
        if isinstance(i, slice):
            start, stop, _ = i.indices(x.shape[axis])
            value = jnp.pad(value, [(0, 0)] * axis + [(start, x.shape[axis] - stop)] + [(0, 0)] * (value.ndim - axis - 1))
        else:
            value = jnp.expand_dims(value, axis)
    return jnp.where(mask, value, x)


GameState.replace = _replace


def fields(state: GameState) -> dict[str, jnp.ndarray]:
    """Every canonical field by name (discard still as a list)."""
    return {name: getattr(state, name) for name in FIELD_NAMES}


def empty_state(num_cards: int) -> GameState:
    """All zones empty; `tcgjax.game.step.new_game` fills it."""
    flow = np.zeros(len(FLOW_FIELDS), np.int32)
    for name, value in (("phase", spec.SETUP), ("aux_card", -1), ("aux_index", -1), ("aux_type", -1), ("winner", -1)):
        flow[FLOW_FIELDS.index(name)] = value
    seat = np.zeros((2, SEAT_WIDTH), np.int32)
    for name in ("energy_types", "energy_current", "energy_next"):
        seat[(slice(None),) + _LAYOUT[name][1]] = -1
    return GameState(seed=jnp.uint32(0), flow=jnp.asarray(flow), seat=jnp.asarray(seat),
                     zones=jnp.full((2, len(ZONE_FIELDS), spec.DECK_SIZE), -1, jnp.int32),
                     slots=jnp.asarray(np.tile(EMPTY_SLOT, (2, spec.NUM_SLOTS, 1))),
                     active=jnp.zeros((2, len(ACTIVE_EFFECT_FIELDS)), jnp.int32))


def canonical(state: GameState, num_cards: int | None = None) -> dict[str, np.ndarray]:
    """Same keys and values as tcgjax.reference.state.canonical (one unbatched state): the discard
    piles become counts per card."""
    state = jax.device_get(state)
    out = {name: np.asarray(value).astype(np.int64) for name, value in fields(state).items()}
    out["discard"] = discard_counts(out["discard"], num_cards)
    return out


def discard_counts(piles: np.ndarray, num_cards: int | None = None) -> np.ndarray:
    """[..., 2, 20] discard lists -> [..., 2, num_cards] counts."""
    if num_cards is None:
        from tcgjax.cards import load_cards
        num_cards = len(load_cards())
    piles = np.asarray(piles)
    counts = np.zeros(piles.shape[:-1] + (num_cards,), np.int64)
    index = np.nonzero(piles >= 0)
    np.add.at(counts, index[:-1] + (piles[index],), 1)
    return counts


def from_canonical(values: dict) -> GameState:
    """The JAX state holding the canonical arrays `values` (e.g. a constructed reference state)."""
    values = dict(values)
    counts = np.asarray(values["discard"])
    piles = np.full(counts.shape[:-1] + (spec.DECK_SIZE,), -1, np.int64)
    for seat in range(2):
        cards = np.repeat(np.arange(counts.shape[-1]), counts[seat])
        piles[seat, : len(cards)] = cards
    values["discard"] = piles
    packed = {name: np.array(value) for name, value in jax.device_get(empty_state(0)).__dict__.items() if name != "seed"}
    for name, (array, index) in _LAYOUT.items():
        packed[array][(Ellipsis,) + index] = np.asarray(values[name]).astype(np.int64)
    return GameState(seed=jnp.asarray(np.asarray(values["seed"]).astype(np.uint32)),
                     **{name: jnp.asarray(value.astype(np.int32)) for name, value in packed.items()})


_PACKED = ("flow", "seat", "zones", "slots", "active")


def materialize(value):
    """The same boolean or integer (a gate, a kind, a card, a slot, or a whole packed array),
    computed once and stored, instead of being recomputed inside every kernel that reads it. XLA's
    CPU fusion copies cheap computations (compares, ands, selects) into each kernel that consumes
    them and re-evaluates them for every element the kernel writes; an integer division counts as
    expensive, and expensive producers are not fused into consumers that reuse their elements
    (broadcasts, flips), so the value is written once. The divisor is 1 at run time but not a
    compile-time constant (the simplifier would remove a division by 1): the int32 minimum, the only
    value it changes, is never a card, kind, slot or field value. Only bools and signed integers
    of at most 32 bits pass through int32 unchanged (a float would be truncated, a uint32 of 2^31
    halved), so other dtypes are refused."""
    if isinstance(value, (bool, int)):
        return value
    value = jnp.asarray(value)
    if not (value.dtype == jnp.bool_ or (jnp.issubdtype(value.dtype, jnp.signedinteger) and value.dtype.itemsize <= 4)):
        raise TypeError(f"materialize takes bools and signed integers of at most 32 bits, got {value.dtype}")
    as_int = value.astype(jnp.int32)
    one = 1 + (as_int == np.iinfo(np.int32).min).astype(jnp.int32)
    return (as_int // one).astype(value.dtype)


_FLOW_SEATS = np.isin(np.arange(len(FLOW_FIELDS)), [FLOW_FIELDS.index(n) for n in ("turn_player", "first_player", "decider")])
_FLOW_WINNER = np.arange(len(FLOW_FIELDS)) == FLOW_FIELDS.index("winner")


def rotate(state: GameState, seat, write_first: bool = False) -> GameState:
    """The same game seen with `seat` as seat 0 (its own inverse). The JAX engine works in the frame
    of the player who acts, so that indexing by player is static. `write_first`: see below."""
    flip = seat == 1
    if write_first:
        # The arrays are written once before the flip: XLA would otherwise fuse the computations that
        # produce them into the flip's kernel and evaluate them twice per element (once for each seat
        # order).
        state = state.replace(**{name: materialize(getattr(state, name)) for name in _PACKED})
    flow = state.flow
    flipped_flow = jnp.where(_FLOW_SEATS | (_FLOW_WINNER & (flow >= 0)), 1 - flow, flow)
    return state.replace(
        flow=jnp.where(flip, flipped_flow, flow), seat=jnp.where(flip, state.seat[::-1], state.seat),
        zones=jnp.where(flip, state.zones[::-1], state.zones), slots=jnp.where(flip, state.slots[::-1], state.slots),
        active=jnp.where(flip, state.active[::-1], state.active))
