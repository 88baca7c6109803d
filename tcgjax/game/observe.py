"""The observation: what one player may know (INFO-1..3), as one flat float32 vector. Its layout,
its scales, the per-card feature table `card_features`, and `observe`, the JAX engine's builder
(the env's observation: tcgjax.env). The reference engine builds the same vector from its own
state (tcgjax.reference.observe, with this module's table and scales); the env tests compare the
two. Layout, from the observer's point of view ("me"):

    global (GLOBAL_SIZE)
        turn / max_turns, my turn, I went first, I must act now, phase one-hot (12),
        points / 3 (me, opp), hand size / 10 (me, opp), deck size / 20 (me, opp),
        Energy Zone current and next, one-hot over none + 8 types (me current, me next, opp current, opp next),
        Energy types of the decks (me 8, opp 8),
        me: Supporter played, retreated, retreat reduction / 4, Giovanni bonus / 10, Blaine bonus / 30,
            Supporters blocked now,
        pending choice: count / 4, Energy type one-hot (none + 8), index one-hot (none + 20)
    Pokémon in play, 8 slots (my Active, my Bench 1-3, opp Active, opp Bench 1-3), each
        card features of the top card (CARD_FEATURES), damage / 100, HP left / 100, Energy per type / 4,
        put into play or evolved this turn, Ability used this turn
    Active effects (me, then opp), each
        Poisoned, Burned, Asleep, Paralyzed, Confused, and for can't attack, can't retreat, protected,
        damage reduction, Growl: whether it applies now or on the next turn (amounts / 20)
    my hand, 20 slots of card features (empty slots are zeros)
    the pending choice's card (evolution, Trainer, attack being resolved), card features

During setup the opponent's Pokémon in play are hidden (INFO-2). Decks are never shown (only sizes),
nor the opponent's hand (only its size), nor what information-only effects revealed (INFO-3, v0).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from paritygym.lookup import take_rows
from tcgjax import spec
from tcgjax.cards import ABILITY_KINDS, COLORLESS, TRAINER_KINDS, TYPE_INDEX, TYPES, CardDatabase, load_cards
from tcgjax.game.state import GameState, rotate
from tcgjax.game.step import supporters_blocked
from tcgjax.game.tables import CardTables

NAME_BITS = 9  # name ids < 512 (the pool has 232 names)

# Card feature columns
_F = {}
_cursor = 0


def _col(name: str, width: int = 1) -> None:
    global _cursor
    _F[name] = (_cursor, _cursor + width)
    _cursor += width


for _name, _width in [("present", 1), ("category", 4), ("stage", 3), ("type", len(TYPES)), ("hp", 1), ("ex", 1),
                      ("weakness", 8), ("retreat", 1), ("attack_exists", 2), ("attack_damage", 2), ("attack_cost", 2 * 9),
                      ("ability", len(ABILITY_KINDS)), ("trainer", len(TRAINER_KINDS)), ("name_bits", NAME_BITS)]:
    _col(_name, _width)
CARD_FEATURES = _cursor
FEATURE_COLUMNS = dict(_F)

# Scales: both engines multiply counts by these float32 constants (never divide: XLA turns a
# division by a constant into a multiplication by its reciprocal, which can differ in the last bit).
SCALE_POINTS = np.float32(1 / 3)
SCALE_HAND = np.float32(1 / 10)
SCALE_DECK = np.float32(1 / 20)
SCALE_QUARTER = np.float32(1 / 4)  # retreat reduction, pending count, Energy per type
SCALE_GIOVANNI = np.float32(1 / 10)
SCALE_BLAINE = np.float32(1 / 30)
SCALE_HP = np.float32(1 / 100)  # damage and HP left
SCALE_AMOUNT = np.float32(1 / 20)  # damage reduction, Growl

NUM_PHASES = len(spec.PHASE_NAMES)
GLOBAL_SIZE = 4 + NUM_PHASES + 6 + 4 * 9 + 16 + 6 + 1 + 9 + (1 + spec.HAND_CAPACITY)
SLOT_SIZE = CARD_FEATURES + 2 + 8 + 2
EFFECT_SIZE = 5 + 5
OBS_SIZE = GLOBAL_SIZE + 2 * spec.NUM_SLOTS * SLOT_SIZE + 2 * EFFECT_SIZE + spec.HAND_CAPACITY * CARD_FEATURES + CARD_FEATURES


@functools.lru_cache(maxsize=4)
def card_features(database: CardDatabase | None = None) -> np.ndarray:
    """[num_cards + 1, CARD_FEATURES] float32; the last row (index -1) is an empty position."""
    database = database or load_cards()
    names = database.name_index
    table = np.zeros((len(database) + 1, CARD_FEATURES), np.float32)

    def put(row, column, values, offset=0):
        lo, hi = _F[column]
        row[lo + offset: lo + offset + np.size(values)] = values

    for card in database.cards:
        row = table[card.index]
        put(row, "present", 1.0)
        category = 0 if card.is_pokemon else (3 if card.is_fossil else (1 if card.trainer_kind == "item" else 2))
        put(row, "category", 1.0, category)
        code = names[card.name]
        put(row, "name_bits", [(code >> b) & 1 for b in range(NAME_BITS)])
        if card.is_pokemon or card.is_fossil:
            put(row, "stage", 1.0, card.stage)
            put(row, "type", 1.0, COLORLESS if card.is_fossil else TYPE_INDEX[card.type])
            put(row, "hp", (card.effect["hp"] if card.is_fossil else card.hp) / 100.0)
            put(row, "retreat", 1.0 if card.is_fossil else card.retreat / 4.0)
        if card.is_pokemon:
            put(row, "ex", float(card.ex))
            if card.weakness:
                put(row, "weakness", 1.0, TYPE_INDEX[card.weakness])
            for a, attack in enumerate(card.attacks):
                put(row, "attack_exists", 1.0, a)
                put(row, "attack_damage", attack.damage / 100.0, a)
                for symbol in attack.cost:
                    t = 8 if symbol == "colorless" else TYPE_INDEX[symbol]
                    row[_F["attack_cost"][0] + 9 * a + t] += 0.25
            if card.ability:
                put(row, "ability", 1.0, list(ABILITY_KINDS).index(card.ability["kind"]))
        else:
            put(row, "trainer", 1.0, list(TRAINER_KINDS).index(card.effect["kind"]))
    return table


# ----------------------------------------------------------------------------------------------
# The JAX engine's observation of one player
# ----------------------------------------------------------------------------------------------

F32 = jnp.float32


def _scaled(value, scale):
    return value.astype(F32) * scale


def _one_hot(index, size, offset=0):
    return (jnp.arange(size) == index + offset).astype(F32)


def observe(tables: CardTables, state: GameState, player, max_turns) -> jnp.ndarray:
    features = card_features()   # numpy: a constant table for take_rows
    me, op = 0, 1  # in the observer's frame
    s = rotate(state, player)
    hidden = s.phase == spec.SETUP
    turn = s.turn

    def active_now(field):
        return (field != 0) & (field >= turn)

    parts = [
        jnp.stack([_scaled(turn, F32(1) / jnp.asarray(max_turns, F32)), s.turn_player == me, s.first_player == me,
                   (s.decider == me) & ~s.game_over]).astype(F32),
        _one_hot(s.phase, len(spec.PHASE_NAMES)),
        jnp.stack([_scaled(s.points[me], SCALE_POINTS), _scaled(s.points[op], SCALE_POINTS),
                   _scaled(s.hand_size[me], SCALE_HAND), _scaled(s.hand_size[op], SCALE_HAND),
                   _scaled(s.deck_size[me], SCALE_DECK), _scaled(s.deck_size[op], SCALE_DECK)]),
    ]
    for value in (s.energy_current[me], s.energy_next[me], s.energy_current[op], s.energy_next[op]):
        parts.append(_one_hot(value, 9, 1))
    for p in (me, op):
        types = s.energy_types[p]
        parts.append(jnp.any((jnp.arange(8)[:, None] == types[None, :]) & (types[None, :] >= 0), axis=1).astype(F32))
    parts.append(jnp.stack([s.supporter_played[me].astype(F32), s.retreated[me].astype(F32),
                            _scaled(s.retreat_reduction[me], SCALE_QUARTER), _scaled(s.attack_bonus[me], SCALE_GIOVANNI),
                            _scaled(s.named_attack_bonus[me], SCALE_BLAINE), supporters_blocked(tables, s, me).astype(F32)]))
    parts.append(_scaled(s.aux_count, SCALE_QUARTER)[None])
    parts.append(_one_hot(s.aux_type, 9, 1))
    parts.append(_one_hot(s.aux_index, 1 + spec.HAND_CAPACITY, 1))
    hp = tables.hp[jnp.maximum(s.card, 0)]
    # every card row the observation shows, read at once: the field's slots, the hand, the pending card
    # (-1, an empty position, reads the last row)
    in_hand = jnp.arange(spec.HAND_CAPACITY) < s.hand_size[me]
    slot_cards = [s.card[p, slot] for p in (me, op) for slot in range(spec.NUM_SLOTS)]
    hand_cards = jnp.where(in_hand, s.hand[me], -1)
    rows = take_rows(features, jnp.concatenate([jnp.stack(slot_cards), hand_cards, jnp.reshape(s.aux_card, (1,))]))
    for p in (me, op):
        visible = ~(hidden & (p != me))
        for slot in range(spec.NUM_SLOTS):
            card = s.card[p, slot]
            present = (card >= 0) & visible
            rest = jnp.concatenate([
                jnp.stack([_scaled(s.damage[p, slot], SCALE_HP), _scaled(hp[p, slot] - s.damage[p, slot], SCALE_HP)]),
                _scaled(s.energy[p, slot], SCALE_QUARTER),
                jnp.stack([s.turn_played[p, slot] == turn, s.ability_used[p, slot]]).astype(F32)])
            parts.append(jnp.where(present, jnp.concatenate([rows[p * spec.NUM_SLOTS + slot], rest]), 0.0))
    for p in (me, op):
        visible = ~(hidden & (p != me))
        values = jnp.stack([
            s.poisoned[p], s.burned[p], s.special[p] == spec.ASLEEP, s.special[p] == spec.PARALYZED, s.special[p] == spec.CONFUSED,
            active_now(s.cant_attack_turn[p]), active_now(s.cant_retreat_turn[p]), active_now(s.protected_turn[p]),
            jnp.where(active_now(s.reduce_damage_turn[p]), _scaled(s.reduce_damage_amount[p], SCALE_AMOUNT), 0.0),
            jnp.where(active_now(s.attack_minus_turn[p]), _scaled(s.attack_minus_amount[p], SCALE_AMOUNT), 0.0)]).astype(F32)
        parts.append(jnp.where(visible, values, 0.0))
    hand_start = 2 * spec.NUM_SLOTS
    parts.append(rows[hand_start:hand_start + spec.HAND_CAPACITY].reshape(-1))
    parts.append(rows[-1])
    return jnp.concatenate(parts).astype(F32)
