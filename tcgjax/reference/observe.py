"""The reference engine's observation of one player: the vector tcgjax.game.observe lays out
(and the JAX engine builds), built here from the reference engine's state with the same feature
table and scales."""

from __future__ import annotations

import numpy as np

from tcgjax import spec
from tcgjax.game import observe as observation
from tcgjax.game.observe import card_features
from tcgjax.reference.engine import Game


def _one_hot(index: int, size: int, offset: int = 0) -> np.ndarray:
    """One-hot of index + offset (offset 1 maps -1, "none", to position 0)."""
    out = np.zeros(size, np.float32)
    out[index + offset] = 1.0
    return out


def _r(a, scale) -> np.float32:
    """a * scale in float32 arithmetic, as the JAX engine computes it."""
    return np.float32(a) * np.float32(scale)


def _active_now(game: Game, turn_field: int) -> bool:
    """The effect applies during this turn or the next one."""
    return turn_field != 0 and turn_field >= game.state.turn


def observe(game: Game, player: int) -> np.ndarray:
    s = game.state
    features = card_features(game.db)
    me, op = s.players[player], s.players[1 - player]
    hidden = s.phase == spec.SETUP  # INFO-2: the opponent's setup is not visible
    parts: list[np.ndarray] = []
    parts.append(np.array([_r(s.turn, np.float32(1) / np.float32(game.max_turns)), s.turn_player == player, s.first_player == player,
                           s.decider == player and not s.game_over], np.float32))
    parts.append(_one_hot(s.phase, len(spec.PHASE_NAMES)))
    parts.append(np.array([_r(me.points, observation.SCALE_POINTS), _r(op.points, observation.SCALE_POINTS), _r(len(me.hand), observation.SCALE_HAND),
                           _r(len(op.hand), observation.SCALE_HAND), _r(len(me.deck), observation.SCALE_DECK), _r(len(op.deck), observation.SCALE_DECK)], np.float32))
    for value in (me.energy_current, me.energy_next, op.energy_current, op.energy_next):
        parts.append(_one_hot(value, 9, offset=1))
    for pl in (me, op):
        mask = np.zeros(8, np.float32)
        mask[list(pl.energy_types)] = 1.0
        parts.append(mask)
    parts.append(np.array([me.supporter_played, me.retreated, _r(me.retreat_reduction, observation.SCALE_QUARTER),
                           _r(me.attack_bonus, observation.SCALE_GIOVANNI), _r(me.named_attack_bonus, observation.SCALE_BLAINE), game.supporters_blocked(player)], np.float32))
    parts.append(np.array([_r(s.aux_count, observation.SCALE_QUARTER)], np.float32))
    parts.append(_one_hot(s.aux_type, 9, offset=1))
    parts.append(_one_hot(s.aux_index, 1 + spec.HAND_CAPACITY, offset=1))
    for p, pl in ((player, me), (1 - player, op)):
        for mon in pl.slots:
            slot = np.zeros(features.shape[1] + 12, np.float32)
            if mon is not None and not (hidden and p != player):
                slot[: features.shape[1]] = features[mon.top]
                rest = [_r(mon.damage, observation.SCALE_HP), _r(game.hp(mon) - mon.damage, observation.SCALE_HP)] + [_r(e, observation.SCALE_QUARTER) for e in mon.energy]
                rest += [mon.turn_played == s.turn, mon.ability_used]
                slot[features.shape[1]:] = rest
            parts.append(slot)
    for p, pl in ((player, me), (1 - player, op)):
        fx = pl.active_effects
        values = [fx.poisoned, fx.burned, fx.special == spec.ASLEEP, fx.special == spec.PARALYZED, fx.special == spec.CONFUSED,
                  _active_now(game, fx.cant_attack_turn), _active_now(game, fx.cant_retreat_turn),
                  _active_now(game, fx.protected_turn),
                  _r(fx.reduce_damage_amount, observation.SCALE_AMOUNT) if _active_now(game, fx.reduce_damage_turn) else 0.0,
                  _r(fx.attack_minus_amount, observation.SCALE_AMOUNT) if _active_now(game, fx.attack_minus_turn) else 0.0]
        parts.append(np.zeros(10, np.float32) if hidden and p != player else np.array(values, np.float32))
    hand = np.full(spec.HAND_CAPACITY, -1)
    hand[: len(me.hand)] = me.hand
    parts.append(features[hand].reshape(-1))
    parts.append(features[s.aux_card])
    return np.concatenate(parts).astype(np.float32)
