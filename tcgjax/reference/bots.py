"""Opponents in the reference engine: uniform random legal play and the greedy heuristic bot.

The heuristic is deterministic (the same state gives the same action), so that its JAX version
(tcgjax.game.bots) can be checked against this one state by state:

- Setup: place the first Basic in hand (lowest hand slot), again while possible, then end.
- Main phase, first that is legal: evolve (lowest hand slot), bench a Basic, attach the turn's
  Energy (Active first), play a Trainer, use an Ability (lowest slot), attack with the attack of the
  highest printed damage (the later attack on a tie), else end the turn.
- Promote / switch in: the Benched Pokémon with the most HP left (lowest slot on a tie).
- Target an opponent's Pokémon: the one with the least HP left. Target one's own: the lowest slot.
- Retreat payment: the lowest Energy type. Ditto: the copiable attack of the highest printed damage.
"""

from __future__ import annotations

import numpy as np

from tcgjax import spec
from tcgjax.reference.engine import Game


def random_action(game: Game, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(game.legal_actions())))


def _first(mask: np.ndarray, start: int, stop: int) -> int | None:
    hits = np.flatnonzero(mask[start:stop])
    return int(start + hits[0]) if hits.size else None


def heuristic_action(game: Game) -> int:
    s = game.state
    mask = game.legal_actions()
    if not mask.any():
        return spec.END
    p = s.decider
    player, opp = game.player(p), game.player(1 - p)
    hand_cards = [game.card(c) for c in player.hand]

    def hand_choice(predicate) -> int | None:
        for h, card in enumerate(hand_cards):
            if mask[spec.PLAY_HAND + h] and predicate(card):
                return spec.PLAY_HAND + h
        return None

    if s.phase == spec.SETUP:
        choice = _first(mask, spec.PLAY_HAND, spec.ATTACH)
        return spec.END if choice is None else choice
    if s.phase == spec.MAIN:
        for choice in (hand_choice(lambda c: c.is_pokemon and c.stage > 0),
                       hand_choice(lambda c: c.is_pokemon and c.stage == 0),
                       _first(mask, spec.ATTACH, spec.ABILITY),
                       hand_choice(lambda c: not c.is_pokemon),
                       _first(mask, spec.ABILITY, spec.RETREAT)):
            if choice is not None:
                return choice
        attacks = [a for a in range(2) if mask[spec.ATTACK + a]]
        if attacks:
            card = game.top_card(player.active)
            return spec.ATTACK + max(attacks, key=lambda a: (card.attacks[a].damage, a))
        return spec.END
    if s.phase in (spec.PROMOTE, spec.SWITCH_OUT):
        options = [b for b in spec.BENCH_SLOTS if mask[spec.CHOOSE_SELF + b]]
        best = max(options, key=lambda b: (game.hp(player.slots[b]) - player.slots[b].damage, -b))
        return spec.CHOOSE_SELF + best
    if s.phase == spec.RETREAT_PAY:
        return _first(mask, spec.CHOOSE_ENERGY, spec.CHOOSE_COPY)
    if s.phase == spec.COPY_ATTACK:
        options = [k for k in range(2 * spec.NUM_SLOTS) if mask[spec.CHOOSE_COPY + k]]
        damage = lambda k: game.top_card(opp.slots[k // 2]).attacks[k % 2].damage  # noqa: E731
        return spec.CHOOSE_COPY + max(options, key=lambda k: (damage(k), -k))
    opp_options = [t for t in range(spec.NUM_SLOTS) if mask[spec.CHOOSE_OPP + t]]
    if opp_options:
        return spec.CHOOSE_OPP + min(opp_options, key=lambda t: (game.hp(opp.slots[t]) - opp.slots[t].damage, t))
    return _first(mask, spec.CHOOSE_SELF, spec.CHOOSE_OPP)
