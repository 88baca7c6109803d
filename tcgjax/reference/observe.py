"""The reference engine's observation of one player (layout in tcgjax.observation)."""

from __future__ import annotations

import numpy as np

from tcgjax import spec
from tcgjax.observation import card_features, one_hot
from tcgjax.reference.engine import Game


def _active_now(game: Game, turn_field: int) -> bool:
    """The effect applies during this turn or the next one."""
    return turn_field != 0 and turn_field >= game.state.turn


def observe(game: Game, player: int) -> np.ndarray:
    s = game.state
    features = card_features(game.db)
    me, op = s.players[player], s.players[1 - player]
    hidden = s.phase == spec.SETUP  # INFO-2: the opponent's setup is not visible
    parts: list[np.ndarray] = []
    parts.append(np.array([s.turn / game.max_turns, s.turn_player == player, s.first_player == player,
                           s.decider == player and not s.game_over], np.float32))
    parts.append(one_hot(s.phase, len(spec.PHASE_NAMES)))
    parts.append(np.array([me.points / 3, op.points / 3, len(me.hand) / 10, len(op.hand) / 10, len(me.deck) / 20,
                           len(op.deck) / 20], np.float32))
    for value in (me.energy_current, me.energy_next, op.energy_current, op.energy_next):
        parts.append(one_hot(value, 9, offset=1))
    for pl in (me, op):
        mask = np.zeros(8, np.float32)
        mask[list(pl.energy_types)] = 1.0
        parts.append(mask)
    parts.append(np.array([me.supporter_played, me.retreated, me.retreat_reduction / 4, me.attack_bonus / 10,
                           me.named_attack_bonus / 30, game.supporters_blocked(player)], np.float32))
    parts.append(np.array([s.aux_count / 4], np.float32))
    parts.append(one_hot(s.aux_type, 9, offset=1))
    parts.append(one_hot(s.aux_index, 1 + spec.HAND_CAPACITY, offset=1))
    for p, pl in ((player, me), (1 - player, op)):
        for mon in pl.slots:
            slot = np.zeros(features.shape[1] + 12, np.float32)
            if mon is not None and not (hidden and p != player):
                slot[: features.shape[1]] = features[mon.top]
                rest = [mon.damage / 100, (game.hp(mon) - mon.damage) / 100] + [e / 4 for e in mon.energy]
                rest += [mon.turn_played == s.turn, mon.ability_used]
                slot[features.shape[1]:] = rest
            parts.append(slot)
    for p, pl in ((player, me), (1 - player, op)):
        fx = pl.active_effects
        values = [fx.poisoned, fx.burned, fx.special == spec.ASLEEP, fx.special == spec.PARALYZED, fx.special == spec.CONFUSED,
                  _active_now(game, fx.cant_attack_turn), _active_now(game, fx.cant_retreat_turn),
                  _active_now(game, fx.protected_turn),
                  fx.reduce_damage_amount / 20 if _active_now(game, fx.reduce_damage_turn) else 0.0,
                  fx.attack_minus_amount / 20 if _active_now(game, fx.attack_minus_turn) else 0.0]
        parts.append(np.zeros(10, np.float32) if hidden and p != player else np.array(values, np.float32))
    hand = np.full(spec.HAND_CAPACITY, -1)
    hand[: len(me.hand)] = me.hand
    parts.append(features[hand].reshape(-1))
    parts.append(features[s.aux_card])
    return np.concatenate(parts).astype(np.float32)
