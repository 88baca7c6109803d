"""The greedy heuristic bot in JAX; mirrors tcgjax.reference.bots.heuristic_action (see there)."""

from __future__ import annotations

import jax.numpy as jnp

from tcgjax import spec
from tcgjax.game.state import GameState, rotate
from tcgjax.game.step import legal_actions
from tcgjax.game.tables import CardTables

I32 = jnp.int32
BIG = 1 << 20


def _first(mask, start: int, stop: int):
    """(found, index of the first True in mask[start:stop])."""
    part = mask[start:stop]
    return jnp.any(part), start + jnp.argmax(part).astype(I32)


def heuristic_action(tables: CardTables, state: GameState, mask=None):
    mask = legal_actions(tables, state) if mask is None else mask
    state = rotate(state, state.decider)
    p, o = 0, 1
    phase = state.phase
    hand = jnp.maximum(state.hand[p], 0)
    playable = mask[spec.PLAY_HAND: spec.ATTACH]
    is_pokemon = tables.is_pokemon[hand] == 1
    evolution = playable & is_pokemon & (tables.stage[hand] > 0)
    basic = playable & is_pokemon & (tables.stage[hand] == 0)
    trainer = playable & ~is_pokemon
    first_play = lambda m: (jnp.any(m), spec.PLAY_HAND + jnp.argmax(m).astype(I32))  # noqa: E731
    candidates = [first_play(evolution), first_play(basic), _first(mask, spec.ATTACH, spec.ABILITY), first_play(trainer),
                  _first(mask, spec.ABILITY, spec.RETREAT)]
    active = jnp.maximum(state.card[p, 0], 0)
    attack_ok = mask[spec.ATTACK: spec.CHOOSE_SELF]
    score = jnp.where(attack_ok, tables.atk_damage[active] * 2 + jnp.arange(2), -1)
    candidates.append((jnp.any(attack_ok), spec.ATTACK + jnp.argmax(score).astype(I32)))
    main = jnp.int32(spec.END)
    for found, action in reversed(candidates):
        main = jnp.where(found, action, main)
    setup_found, setup_action = _first(mask, spec.PLAY_HAND, spec.ATTACH)
    setup = jnp.where(setup_found, setup_action, spec.END)
    hp_left = tables.hp[jnp.maximum(state.card, 0)] - state.damage  # [2, 4]
    slots = jnp.arange(spec.NUM_SLOTS)
    own_ok = mask[spec.CHOOSE_SELF: spec.CHOOSE_OPP]
    promote = spec.CHOOSE_SELF + jnp.argmax(jnp.where(own_ok, hp_left[p] * 8 - slots, -BIG)).astype(I32)
    opp_ok = mask[spec.CHOOSE_OPP: spec.CHOOSE_ENERGY]
    opp_target = spec.CHOOSE_OPP + jnp.argmax(jnp.where(opp_ok, -(hp_left[o] * 8 + slots), -BIG)).astype(I32)
    own_target = _first(mask, spec.CHOOSE_SELF, spec.CHOOSE_OPP)[1]
    pay = _first(mask, spec.CHOOSE_ENERGY, spec.CHOOSE_COPY)[1]
    copy_ok = mask[spec.CHOOSE_COPY: spec.NUM_ACTIONS]
    k = jnp.arange(2 * spec.NUM_SLOTS)
    copy_damage = tables.atk_damage[jnp.maximum(state.card[o, k // 2], 0), k % 2]
    copy = spec.CHOOSE_COPY + jnp.argmax(jnp.where(copy_ok, copy_damage * 16 - k, -BIG)).astype(I32)
    choice = jnp.where(jnp.any(opp_ok), opp_target, own_target)
    action = jnp.select(
        [phase == spec.SETUP, phase == spec.MAIN, (phase == spec.PROMOTE) | (phase == spec.SWITCH_OUT),
         phase == spec.RETREAT_PAY, phase == spec.COPY_ATTACK],
        [setup, main, promote, pay, copy], choice)
    return jnp.where(jnp.any(mask), action, spec.END).astype(I32)
