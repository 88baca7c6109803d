"""The JAX engine's observation of one player; mirrors tcgjax.reference.observe (layout in
tcgjax.observation)."""

from __future__ import annotations

import jax.numpy as jnp

from tcgjax import spec
from tcgjax.game.state import GameState, rotate
from tcgjax.game.step import supporters_blocked
from tcgjax.game.tables import CardTables
from tcgjax import observation
from tcgjax.observation import card_features

F32 = jnp.float32


def _scaled(value, scale):
    return value.astype(F32) * scale


def _one_hot(index, size, offset=0):
    return (jnp.arange(size) == index + offset).astype(F32)


def observe(tables: CardTables, state: GameState, player, max_turns) -> jnp.ndarray:
    features = jnp.asarray(card_features())
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
        jnp.stack([_scaled(s.points[me], observation.SCALE_POINTS), _scaled(s.points[op], observation.SCALE_POINTS),
                   _scaled(s.hand_size[me], observation.SCALE_HAND), _scaled(s.hand_size[op], observation.SCALE_HAND),
                   _scaled(s.deck_size[me], observation.SCALE_DECK), _scaled(s.deck_size[op], observation.SCALE_DECK)]),
    ]
    for value in (s.energy_current[me], s.energy_next[me], s.energy_current[op], s.energy_next[op]):
        parts.append(_one_hot(value, 9, 1))
    for p in (me, op):
        types = s.energy_types[p]
        parts.append(jnp.any((jnp.arange(8)[:, None] == types[None, :]) & (types[None, :] >= 0), axis=1).astype(F32))
    parts.append(jnp.stack([s.supporter_played[me].astype(F32), s.retreated[me].astype(F32),
                            _scaled(s.retreat_reduction[me], observation.SCALE_QUARTER), _scaled(s.attack_bonus[me], observation.SCALE_GIOVANNI),
                            _scaled(s.named_attack_bonus[me], observation.SCALE_BLAINE), supporters_blocked(tables, s, me).astype(F32)]))
    parts.append(_scaled(s.aux_count, observation.SCALE_QUARTER)[None])
    parts.append(_one_hot(s.aux_type, 9, 1))
    parts.append(_one_hot(s.aux_index, 1 + spec.HAND_CAPACITY, 1))
    hp = tables.hp[jnp.maximum(s.card, 0)]
    for p in (me, op):
        visible = ~(hidden & (p != me))
        for slot in range(spec.NUM_SLOTS):
            card = s.card[p, slot]
            present = (card >= 0) & visible
            rest = jnp.concatenate([
                jnp.stack([_scaled(s.damage[p, slot], observation.SCALE_HP), _scaled(hp[p, slot] - s.damage[p, slot], observation.SCALE_HP)]),
                _scaled(s.energy[p, slot], observation.SCALE_QUARTER),
                jnp.stack([s.turn_played[p, slot] == turn, s.ability_used[p, slot]]).astype(F32)])
            parts.append(jnp.where(present, jnp.concatenate([features[card], rest]), 0.0))
    for p in (me, op):
        visible = ~(hidden & (p != me))
        values = jnp.stack([
            s.poisoned[p], s.burned[p], s.special[p] == spec.ASLEEP, s.special[p] == spec.PARALYZED, s.special[p] == spec.CONFUSED,
            active_now(s.cant_attack_turn[p]), active_now(s.cant_retreat_turn[p]), active_now(s.protected_turn[p]),
            jnp.where(active_now(s.reduce_damage_turn[p]), _scaled(s.reduce_damage_amount[p], observation.SCALE_AMOUNT), 0.0),
            jnp.where(active_now(s.attack_minus_turn[p]), _scaled(s.attack_minus_amount[p], observation.SCALE_AMOUNT), 0.0)]).astype(F32)
        parts.append(jnp.where(visible, values, 0.0))
    in_hand = jnp.arange(spec.HAND_CAPACITY) < s.hand_size[me]
    parts.append(features[jnp.where(in_hand, s.hand[me], -1)].reshape(-1))
    parts.append(features[s.aux_card])
    return jnp.concatenate(parts).astype(F32)
