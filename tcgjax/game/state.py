"""The JAX game state: fixed-size arrays with -1 sentinels for empty positions.

Field names, shapes and meanings are those of `tcgjax.reference.state.canonical`, so that
`canonical(state)` of the two engines can be compared key by key. Player arrays are indexed by seat
([2, ...]); slot 0 is the Active spot.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax import spec

I32 = jnp.int32


@struct.dataclass
class GameState:
    # stream and flow
    seed: jnp.ndarray  # uint32
    rng_counter: jnp.ndarray
    turn: jnp.ndarray
    turn_player: jnp.ndarray
    first_player: jnp.ndarray
    phase: jnp.ndarray
    decider: jnp.ndarray
    aux_card: jnp.ndarray
    aux_index: jnp.ndarray
    aux_count: jnp.ndarray
    aux_type: jnp.ndarray
    in_attack: jnp.ndarray  # bool
    counter_damage: jnp.ndarray
    turn_ending: jnp.ndarray  # bool
    checkup_done: jnp.ndarray  # bool
    game_over: jnp.ndarray  # bool
    winner: jnp.ndarray
    truncated: jnp.ndarray  # bool
    # zones [2, ...]
    deck: jnp.ndarray  # [2, 20], index 0 is the top
    deck_size: jnp.ndarray
    hand: jnp.ndarray  # [2, 20]
    hand_size: jnp.ndarray
    discard: jnp.ndarray  # [2, 20] in order of arrival (canonical(): counts per card)
    discard_size: jnp.ndarray
    energy_types: jnp.ndarray  # [2, 3]
    points: jnp.ndarray
    energy_current: jnp.ndarray
    energy_next: jnp.ndarray
    retreat_reduction: jnp.ndarray
    attack_bonus: jnp.ndarray
    named_attack_bonus: jnp.ndarray
    supporter_blocked_turn: jnp.ndarray
    supporter_played: jnp.ndarray  # bool
    retreated: jnp.ndarray  # bool
    # Pokémon in play [2, 4, ...]
    stack: jnp.ndarray  # [2, 4, 3]
    card: jnp.ndarray  # [2, 4] top card or -1
    damage: jnp.ndarray
    energy: jnp.ndarray  # [2, 4, 8]
    turn_played: jnp.ndarray
    ability_used: jnp.ndarray  # bool
    # the Active's conditions and attack effects [2]
    poisoned: jnp.ndarray  # bool
    burned: jnp.ndarray  # bool
    special: jnp.ndarray
    cant_attack_turn: jnp.ndarray
    cant_retreat_turn: jnp.ndarray
    protected_turn: jnp.ndarray
    reduce_damage_turn: jnp.ndarray
    reduce_damage_amount: jnp.ndarray
    attack_minus_turn: jnp.ndarray
    attack_minus_amount: jnp.ndarray


ACTIVE_EFFECT_FIELDS = ("poisoned", "burned", "special", "cant_attack_turn", "cant_retreat_turn", "protected_turn",
                        "reduce_damage_turn", "reduce_damage_amount", "attack_minus_turn", "attack_minus_amount")
SLOT_FIELDS = ("stack", "card", "damage", "energy", "turn_played", "ability_used")


def empty_state(num_cards: int) -> GameState:
    """All zones empty; `tcgjax.game.setup.new_game` fills it."""
    z = lambda *shape: jnp.zeros(shape, I32)  # noqa: E731
    f = lambda *shape: jnp.full(shape, -1, I32)  # noqa: E731
    b = lambda *shape: jnp.zeros(shape, bool)  # noqa: E731
    return GameState(
        seed=jnp.uint32(0), rng_counter=z(), turn=z(), turn_player=z(), first_player=z(), phase=jnp.int32(spec.SETUP),
        decider=z(), aux_card=f(), aux_index=f(), aux_count=z(), aux_type=f(), in_attack=b(), counter_damage=z(),
        turn_ending=b(), checkup_done=b(), game_over=b(), winner=f(), truncated=b(),
        deck=f(2, spec.DECK_SIZE), deck_size=z(2), hand=f(2, spec.HAND_CAPACITY), hand_size=z(2),
        discard=f(2, spec.DECK_SIZE), discard_size=z(2), energy_types=f(2, 3), points=z(2), energy_current=f(2), energy_next=f(2),
        retreat_reduction=z(2), attack_bonus=z(2), named_attack_bonus=z(2), supporter_blocked_turn=z(2),
        supporter_played=b(2), retreated=b(2),
        stack=f(2, spec.NUM_SLOTS, spec.STACK_DEPTH), card=f(2, spec.NUM_SLOTS), damage=z(2, spec.NUM_SLOTS),
        energy=z(2, spec.NUM_SLOTS, spec.NUM_ENERGY), turn_played=z(2, spec.NUM_SLOTS), ability_used=b(2, spec.NUM_SLOTS),
        poisoned=b(2), burned=b(2), special=z(2), cant_attack_turn=z(2), cant_retreat_turn=z(2), protected_turn=z(2),
        reduce_damage_turn=z(2), reduce_damage_amount=z(2), attack_minus_turn=z(2), attack_minus_amount=z(2),
    )


def canonical(state: GameState, num_cards: int | None = None) -> dict[str, np.ndarray]:
    """Same keys and values as tcgjax.reference.state.canonical (one unbatched state): the discard
    piles become counts per card."""
    out = {}
    for name, value in state.__dict__.items():
        out[name] = np.asarray(jax.device_get(value)).astype(np.int64)
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


_BOOL_FIELDS = ("in_attack", "turn_ending", "checkup_done", "game_over", "truncated", "supporter_played", "retreated",
                "ability_used", "poisoned", "burned")


def from_canonical(values: dict) -> GameState:
    """The JAX state holding the canonical arrays `values` (e.g. a constructed reference state)."""
    fields = {}
    values = dict(values)
    counts = np.asarray(values["discard"])
    piles = np.full(counts.shape[:-1] + (spec.DECK_SIZE,), -1, np.int64)
    for seat in range(2):
        cards = np.repeat(np.arange(counts.shape[-1]), counts[seat])
        piles[seat, : len(cards)] = cards
    values["discard"] = piles
    for name in GameState.__dataclass_fields__:
        value = np.asarray(values[name])
        if name == "seed":
            fields[name] = jnp.asarray(value.astype(np.uint32))
        elif name in _BOOL_FIELDS:
            fields[name] = jnp.asarray(value.astype(bool))
        else:
            fields[name] = jnp.asarray(value.astype(np.int32))
    return GameState(**fields)


GLOBAL_FIELDS = ("seed", "rng_counter", "turn", "turn_player", "first_player", "phase", "decider", "aux_card", "aux_index",
                 "aux_count", "aux_type", "in_attack", "counter_damage", "turn_ending", "checkup_done", "game_over",
                 "winner", "truncated")
SEAT_FIELDS = ("turn_player", "first_player", "decider")


def rotate(state: GameState, seat) -> GameState:
    """The same game seen with `seat` as seat 0 (its own inverse). The JAX engine works in the frame
    of the player who acts, so that indexing by player is static."""
    flip = seat == 1
    updates = {}
    for name, value in state.__dict__.items():
        if name in SEAT_FIELDS:
            updates[name] = jnp.where(flip, 1 - value, value)
        elif name == "winner":
            updates[name] = jnp.where(flip & (value >= 0), 1 - value, value)
        elif name not in GLOBAL_FIELDS:
            updates[name] = jnp.where(flip, value[::-1], value)
    return state.replace(**updates)
