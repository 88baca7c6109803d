"""Game creation, the legal-action mask and the step function of the JAX engine.

`new_game`, `legal_actions` and `step` mirror `Game.new`, `Game.legal_actions` and `Game.step` of
the reference. All three are pure functions of arrays: jit them, vmap them over a batch of games,
scan them over actions. An illegal action leaves the state unchanged (the env reports it); the
reference raises instead.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from paritygym import indexing
from paritygym.batching import update_where_needed, where_needed
from tcgjax import spec
from tcgjax.game import core, effects
from tcgjax.game.core import TRUE, merge
from tcgjax.game.state import GameState, empty_state, rotate
from tcgjax.game.tables import ABILITY_KIND, CardTables

I32 = jnp.int32
SLOTS = jnp.arange(spec.NUM_SLOTS)
MAX_OPENING_SHUFFLES = 10_000  # unreachable with a legal deck (DECK-3); guarantees termination


# ---------------------------------------------------------------------------- setup (SETUP-1..5)

def _deal_opening_hand(tables: CardTables, state: GameState, p, rule: int) -> GameState:
    deck = state.deck[p]
    if rule == spec.OPENING_RESHUFFLE:
        def cond(carry):
            _, _, done, tries = carry
            return ~done & (tries < MAX_OPENING_SHUFFLES)

        def body(carry):
            deck, counter, _, tries = carry
            deck = core.shuffled(state.seed, counter, deck, spec.DECK_SIZE)
            done = jnp.any(tables.is_basic[jnp.maximum(deck[: spec.OPENING_HAND], 0)] == 1)
            return deck, counter + spec.DECK_SIZE - 1, done, tries + 1

        deck, counter, _, _ = jax.lax.while_loop(cond, body, (deck, state.rng_counter, jnp.bool_(False), jnp.int32(0)))
        hand = deck[: spec.OPENING_HAND]
        rest = deck[spec.OPENING_HAND:]
    else:
        basics = tables.is_basic[jnp.maximum(deck, 0)] == 1
        position = core.kth_true(basics, core.pick_at(state, 0, jnp.sum(basics)))
        chosen = deck[position]
        deck = core.remove_at(deck, position)
        deck = core.shuffled(state.seed, state.rng_counter + 1, deck, spec.DECK_SIZE - 1)
        counter = state.rng_counter + 1 + spec.DECK_SIZE - 2
        hand = jnp.concatenate([chosen[None], deck[: spec.OPENING_HAND - 1]])
        rest = deck[spec.OPENING_HAND - 1: spec.DECK_SIZE - 1]
    pad_hand = jnp.full(spec.HAND_CAPACITY - spec.OPENING_HAND, -1, I32)
    pad_deck = jnp.full(spec.OPENING_HAND, -1, I32)
    return state.replace(
        deck=indexing.write(state.deck, (p,), jnp.concatenate([rest, pad_deck])), deck_size=indexing.write(state.deck_size, (p,), spec.DECK_SIZE - spec.OPENING_HAND),
        hand=indexing.write(state.hand, (p,), jnp.concatenate([hand, pad_hand])), hand_size=indexing.write(state.hand_size, (p,), spec.OPENING_HAND),
        rng_counter=counter)


def new_game(tables: CardTables, seed, deck_cards, energy_types, opening_hand_rule: int = spec.OPENING_RESHUFFLE) -> GameState:
    """SETUP-1..5. deck_cards [2, 20] card indices, energy_types [2, 3] type indices (-1 padded)."""
    state = empty_state(tables.num_cards).replace(
        seed=jnp.asarray(seed, jnp.uint32), deck=jnp.asarray(deck_cards, I32), deck_size=jnp.full(2, spec.DECK_SIZE, I32),
        energy_types=jnp.asarray(energy_types, I32))
    first = jnp.where((core.value_at(state, 0) & 1) == 1, 0, 1).astype(I32)
    state = core.advance(state, 1).replace(first_player=first, turn_player=first)
    for seat in (0, 1):
        state = _deal_opening_hand(tables, state, seat, opening_hand_rule)
    for order in (0, 1):
        p = jnp.where(order == 0, first, 1 - first)
        state = state.replace(energy_next=indexing.write(state.energy_next, (p,), core.roll_energy(state, p, 0)))
        state = core.advance(state, 1)
    return state.replace(phase=jnp.int32(spec.SETUP), decider=first)


# ---------------------------------------------------------------------------- legality

def supporters_blocked(tables: CardTables, state: GameState, p):
    """TRAINER-3."""
    opp_active = state.card[1 - p, 0]
    spellbind = (opp_active >= 0) & (tables.ab_kind[jnp.maximum(opp_active, 0)] == ABILITY_KIND["block_opponent_supporters"])
    return spellbind | core.is_turn(state, state.supporter_blocked_turn[p])


def evolution_targets(tables: CardTables, state: GameState, p, card):
    """EVOLVE-1, EVOLVE-2: [4] bool."""
    names = tables.name[jnp.maximum(state.card[p], 0)]
    return ((state.turn > 2) & (state.card[p] >= 0) & (names == tables.evolves_from[card]) & (tables.evolves_from[card] >= 0)
            & (state.turn_played[p] < state.turn))


def can_play_from_hand(tables: CardTables, state: GameState, p, card):
    basic_ok = jnp.any(core.empty_bench_mask(state, p))
    evolve_ok = jnp.any(evolution_targets(tables, state, p, card))
    supporter = tables.trainer_kind[card] == 2
    trainer_ok = (~(supporter & (state.supporter_played[p] | supporters_blocked(tables, state, p)))
                  & effects.trainer_playable(tables, state, p, card))
    is_pokemon = tables.is_pokemon[card] == 1
    return (card >= 0) & jnp.where(is_pokemon, jnp.where(tables.stage[card] == 0, basic_ok, evolve_ok), trainer_ok)


def retreat_cost(tables: CardTables, state: GameState, p):
    return jnp.maximum(0, tables.retreat[jnp.maximum(state.card[p, 0], 0)] - state.retreat_reduction[p])


def can_retreat(tables: CardTables, state: GameState, p):
    """RETREAT-1, RETREAT-4."""
    active = state.card[p, 0]
    c = jnp.maximum(active, 0)
    special = state.special[p]
    return ((active >= 0) & ~state.retreated[p] & jnp.any(core.bench_mask(state, p)) & (tables.is_fossil[c] == 0)
            & (special != spec.ASLEEP) & (special != spec.PARALYZED) & ~core.is_turn(state, state.cant_retreat_turn[p])
            & (jnp.sum(state.energy[p, 0]) >= retreat_cost(tables, state, p)))


def can_attack(tables: CardTables, state: GameState, p, a):
    """ATK-1, ATK-2."""
    active = state.card[p, 0]
    c = jnp.maximum(active, 0)
    special = state.special[p]
    return ((active >= 0) & (tables.is_pokemon[c] == 1) & (tables.atk_exists[c, a] == 1) & (special != spec.ASLEEP)
            & (special != spec.PARALYZED) & ~core.is_turn(state, state.cant_attack_turn[p])
            & effects.can_pay(tables, state.energy[p, 0], c, a))


def legal_actions(tables: CardTables, state: GameState):
    """[NUM_ACTIONS] bool for the decider (CHOICE-1)."""
    return _legal_for_seat0(tables, rotate(state, state.decider))


def _legal_for_seat0(tables: CardTables, state: GameState):
    """Legal actions of seat 0, the decider in this frame."""
    p = 0
    phase = state.phase
    hand = state.hand[p]
    in_hand = jnp.arange(spec.HAND_CAPACITY) < state.hand_size[p]
    cards = jnp.maximum(hand, 0)
    bench = core.bench_mask(state, p)
    occupied = state.card[p] >= 0

    setup_play = in_hand & (tables.is_basic[cards] == 1) & ((state.card[p, 0] < 0) | jnp.any(core.empty_bench_mask(state, p)))
    main_play = in_hand & jax.vmap(lambda c: can_play_from_hand(tables, state, p, c))(cards)
    play = jnp.where(phase == spec.SETUP, setup_play, (phase == spec.MAIN) & main_play)
    end = jnp.where(phase == spec.SETUP, state.card[p, 0] >= 0, phase == spec.MAIN)
    main = phase == spec.MAIN
    attach = main & (state.energy_current[p] >= 0) & occupied
    ability = main & jax.vmap(lambda s: effects.ability_usable(tables, state, p, s))(SLOTS)
    retreat = main & can_retreat(tables, state, p) & bench[1:]
    attack = main & jnp.stack([can_attack(tables, state, p, a) for a in range(2)])

    aux_card = jnp.maximum(state.aux_card, 0)
    aux_index = jnp.maximum(state.aux_index, 0)
    _, atk_own, atk_opp = effects.attack_targets(tables, state, p, aux_card, jnp.minimum(aux_index, 1))
    place = (SLOTS > 0) & effects._slot_type_mask(tables, state, p, tables.atk_target_type[aux_card, jnp.minimum(aux_index, 1)])
    own = jnp.select(
        [(phase == spec.PROMOTE) | (phase == spec.SWITCH_OUT), phase == spec.EVOLVE_TARGET, phase == spec.TRAINER_TARGET,
         phase == spec.ATTACK_TARGET, phase == spec.PLACE_ENERGY],
        [bench, evolution_targets(tables, state, p, aux_card), effects.trainer_targets(tables, state, p, aux_card), atk_own,
         place],
        jnp.zeros(spec.NUM_SLOTS, bool))
    opp = jnp.select([phase == spec.ABILITY_TARGET, phase == spec.ATTACK_TARGET],
                     [effects.ability_targets(tables, state, p, jnp.minimum(aux_index, spec.NUM_SLOTS - 1)), atk_opp],
                     jnp.zeros(spec.NUM_SLOTS, bool))
    energy = (phase == spec.RETREAT_PAY) & (state.energy[p, 0] > 0)
    copy = (phase == spec.COPY_ATTACK) & effects.copy_options(tables, state, p).reshape(-1)
    mask = jnp.concatenate([end[None], play, attach, ability, retreat, attack, own, opp, energy, copy])
    return mask & ~state.game_over


# ---------------------------------------------------------------------------- step

def _continue_retreat_payment(tables: CardTables, state: GameState, p) -> GameState:
    """RETREAT-2: pay automatically while nothing is left to choose, then switch (RETREAT-5)."""
    energy = state.energy[p, 0]
    present = energy > 0
    one_type = jnp.sum(present) == 1
    exact = jnp.sum(energy) == state.aux_count
    pay = state.aux_count > 0
    new_energy = jnp.where(pay & one_type, energy - jnp.where(present, state.aux_count, 0),
                           jnp.where(pay & exact, 0, energy))
    done = ~pay | one_type | exact
    state = state.replace(energy=indexing.write(state.energy, (p, 0), new_energy), aux_count=jnp.where(done, 0, state.aux_count))
    state = core.swap_active_with_bench(state, p, jnp.maximum(state.aux_index, 1), done)
    return state.replace(phase=jnp.where(done, spec.MAIN, state.phase), aux_index=jnp.where(done, -1, state.aux_index))


def _evolve(tables: CardTables, state: GameState, p, slot, card, gate) -> GameState:
    """EVOLVE-3."""
    depth = jnp.sum(indexing.read(state.stack, (p, slot)) >= 0)
    new = state.replace(
        stack=indexing.write(state.stack, (p, slot, jnp.minimum(depth, spec.STACK_DEPTH - 1)), card),
        card=indexing.write(state.card, (p, slot), card), turn_played=indexing.write(state.turn_played, (p, slot), state.turn),
        ability_used=indexing.write(state.ability_used, (p, slot), False))
    new = core.clear_active_effects(new, p, slot == 0)
    return merge(gate, new, state)


def step(tables: CardTables, state: GameState, action, max_turns=spec.DEFAULT_MAX_TURNS, mask=None) -> GameState:
    """Apply the decider's action; an illegal action returns the state unchanged. `mask` may pass
    the decider's legal mask when the caller has it already."""
    phase_before, legal, light, requests = _before_handlers(tables, state, action, mask)
    return _after_handlers(tables, state, phase_before, legal, _run_handlers(tables, light, requests), max_turns)


class HandlerRequests(NamedTuple):
    """What the heavy handlers of one game action need besides the state: each gate is True for
    the one handler (if any) the action runs. The handlers exclude each other, so at most one gate
    of a game is True: each gate needs its own action range (Trainer: a MAIN play from the hand;
    Ability: the ABILITY range; attack: the ATTACK range, or an answer in COPY_ATTACK or
    ATTACK_TARGET). A new handler must keep that true, since `step_batch` runs every handler on
    the same light state."""
    trainer: jnp.ndarray  # bool: play a Trainer card
    trainer_card: jnp.ndarray
    ability: jnp.ndarray  # bool: use the Ability of a Pokémon (not a fossil)
    ability_slot: jnp.ndarray
    attack: jnp.ndarray  # bool: resolve an attack
    attack_card: jnp.ndarray
    attack_index: jnp.ndarray
    attack_target: jnp.ndarray


def _play_trainer(tables: CardTables, state: GameState, r: HandlerRequests) -> GameState:
    return effects.play_trainer(tables, state, 0, r.trainer_card, r.trainer)


def _use_ability(tables: CardTables, state: GameState, r: HandlerRequests) -> GameState:
    return effects.use_ability(tables, state, 0, r.ability_slot, r.ability)


def _resolve_attack(tables: CardTables, state: GameState, r: HandlerRequests) -> GameState:
    return effects.resolve_attack(tables, state, 0, r.attack_card, r.attack_index, r.attack_target, r.attack)


# (handler, its gate, default chunk as a fraction of the batch): run in this order on the state the
# light part of the action left. The chunks cover what random legal play asks for at batch 1,024
# (per game action: Trainers 18% of the games, at most 22%; attacks 4.7%, at most 5.7%; Abilities
# 1.7%, at most 3.2%), so that one chunk nearly always holds them
# (`python -m benchmarks.tcg --requests --batch 1024` measures these rates).
HANDLERS = ((_play_trainer, "trainer", 1 / 4), (_use_ability, "ability", 1 / 16), (_resolve_attack, "attack", 1 / 8))


# default chunk of the games whose `settle` has work (random legal play at batch 1,024: 29% of the
# games, at most 33%, `python -m benchmarks.tcg --requests`; see core.settle_has_work)
SETTLE_SHARE = 3 / 8
# default chunk of the games that answer a pending choice (`answers_choice`; random legal play at
# batch 1,024: 13% of the games, at most 17%, `python -m benchmarks.tcg --requests`)
ANSWER_SHARE = 3 / 16


def _run_handlers(tables: CardTables, light: GameState, requests: HandlerRequests) -> GameState:
    """The heavy handlers on one game: each is the identity where its gate is False."""
    for handler, _, _ in HANDLERS:
        light = handler(tables, light, requests)
    return light


def _before_handlers(tables: CardTables, state: GameState, action, mask):
    """The phase before the action, whether the action is legal, the state after the light part of
    the action (in the decider's frame) and the handler requests (one game)."""
    frame, action, legal = _in_decider_frame(tables, state, action, mask)
    light, requests = _apply_light(tables, frame, action, legal)
    return frame.phase, legal, light, requests


def _in_decider_frame(tables: CardTables, state: GameState, action, mask):
    """(the state in the decider's frame, the action as int32, whether it is legal) of one game."""
    action = jnp.asarray(action, I32)
    frame = rotate(state, state.decider)
    mask = _legal_for_seat0(tables, frame) if mask is None else mask
    legal = indexing.read(mask, jnp.clip(action, 0, spec.NUM_ACTIONS - 1)) & (action >= 0) & (action < spec.NUM_ACTIONS)
    return frame, action, legal


def _after_handlers(tables: CardTables, state: GameState, phase_before, legal, handled: GameState, max_turns) -> GameState:
    """The end of the action (who decides next), then what happens by itself (`settle`), back at the
    table's seats; the state unchanged where the action is illegal (one game)."""
    turn_frame, gate, turn_player = _to_turn_player(state, phase_before, handled)
    return _back_to_table(state, legal, core.settle(tables, turn_frame, max_turns, gate), turn_player)


def _to_turn_player(state: GameState, phase_before, handled: GameState, write_first: bool = True):
    """The acted state in the turn player's frame, where `settle` must run, and the turn player's
    seat as the decider sees it (one game). `write_first`: see `rotate`; `step_batch` does without,
    since its handlers' rows come out of their own loops already written."""
    acted = _finish_action(phase_before, handled)
    # everything that happens by itself, in the frame of the turn player. Back to the table's seats
    # and then into the turn player's frame is one rotation (two flips cancel): by the turn
    # player's seat as the decider sees it. One full-state rotation fewer per step.
    turn_player_seen = acted.turn_player
    turn_player = jnp.where(state.decider == 1, 1 - turn_player_seen, turn_player_seen)
    gate = (acted.phase == spec.MAIN) & ~acted.game_over
    return rotate(acted, turn_player_seen, write_first=write_first), gate, turn_player


def _back_to_table(state: GameState, legal, settled: GameState, turn_player) -> GameState:
    return merge(legal, rotate(settled, turn_player), state)


def step_batch(tables: CardTables, states: GameState, actions, max_turns=spec.DEFAULT_MAX_TURNS, masks=None,
               chunk: int | None = None, report: bool = False
               ) -> GameState | tuple[GameState, dict[str, jnp.ndarray]]:
    """`jax.vmap(step)` over a batch of games (leading axis B), same results bit for bit, cheaper:
    each heavy handler (a Trainer, an Ability, an attack) runs only on the games whose action needs
    it, and `settle` in full only on the games where it has work (`core.settle_has_work`; the
    others get `core.settle_quiet`), gathered into sub-batches (`paritygym.batching.where_needed`)
    of `chunk` games (default: a fraction of B per part, see HANDLERS and SETTLE_SHARE). More games
    than a chunk holds run in more chunks; a part no game needs does not run. `masks`
    [B, NUM_ACTIONS]: the deciders' legal masks, if the caller has them. `report`: also return
    which parts each game asked for, {"answer", "trainer", "ability", "attack", "settle"}: bool[B] each (the
    gates the sub-batches are gathered by; for tests and `bench --requests`)."""
    batch = jnp.shape(actions)[0]
    size = lambda share: max(1, int(batch * share)) if chunk is None else int(chunk)  # noqa: E731
    # the accelerator form runs each part on the whole batch; an explicit chunk asks for sub-batches
    whole = "whole" if chunk is None else "gather"
    if masks is None:
        frames, actions, legal = jax.vmap(lambda s, a: _in_decider_frame(tables, s, a, None))(states, actions)
    else:
        frames, actions, legal = jax.vmap(lambda s, a, m: _in_decider_frame(tables, s, a, m))(states, actions, masks)
    phases = frames.phase
    # the light part of the action (`_apply_light`): SETUP / MAIN actions on every game, the
    # answers to pending choices only on the games that give one
    turned, requests = jax.vmap(lambda s, a, ok: _apply_turn_action(tables, s, a, ok))(frames, actions, legal)
    answering = answers_choice(phases, legal)
    # (the stages below read their rows from the state they update, so that XLA updates it in place)
    light, requests = update_where_needed(answering, size(ANSWER_SHARE),
                                          lambda carry, ph, a, ok: _apply_answer(tables, carry[0], ph, a, ok),
                                          (turned, requests), (phases, actions, legal), whole)
    # the handlers exclude each other (HandlerRequests), so a game's row is still the light state
    # when its handler reads it
    handled = light
    for handler, gate, share in HANDLERS:
        handled = update_where_needed(getattr(requests, gate), size(share), lambda s, r, h=handler: h(tables, s, r),
                                      handled, (requests,), whole)
    turn_frames, gates, turn_players = jax.vmap(lambda s, ph, h: _to_turn_player(s, ph, h, write_first=False))(
        states, phases, handled)
    # `settle` in full only where it has work (an attack or a turn ends, Knock Outs, promotions); an
    # illegal action (the env's padding rows play -1) keeps the state as it was, so it needs none
    busy = gates & legal & jax.vmap(lambda s: core.settle_has_work(tables, s))(turn_frames)
    settled = where_needed(busy, size(SETTLE_SHARE),
                           lambda s: core.settle(tables, s, max_turns), (turn_frames,),
                           otherwise=jax.vmap(core.settle_quiet)(turn_frames, gates), on_accelerator=whole)
    new_states = jax.vmap(_back_to_table)(states, legal, settled, turn_players)
    if report:
        return new_states, {"answer": answering, "trainer": requests.trainer, "ability": requests.ability, "attack": requests.attack,
                            "settle": busy}
    return new_states


def _finish_action(phase_before, state: GameState) -> GameState:
    """After an answer to a pending choice the turn player acts again."""
    answered = (phase_before != spec.SETUP) & (phase_before != spec.MAIN)
    return state.replace(decider=jnp.where(answered & (state.phase == spec.MAIN), state.turn_player, state.decider))


def _action_kinds(action, legal):
    """The action's range tests (each False where the action is illegal)."""
    in_range = lambda lo, hi: legal & (action >= lo) & (action < hi)  # noqa: E731
    return {"end": legal & (action == spec.END), "play": in_range(spec.PLAY_HAND, spec.ATTACH),
            "attach": in_range(spec.ATTACH, spec.ABILITY), "ability": in_range(spec.ABILITY, spec.RETREAT),
            "retreat": in_range(spec.RETREAT, spec.ATTACK), "attack": in_range(spec.ATTACK, spec.CHOOSE_SELF),
            "self": in_range(spec.CHOOSE_SELF, spec.CHOOSE_OPP), "opp": in_range(spec.CHOOSE_OPP, spec.CHOOSE_ENERGY),
            "energy": in_range(spec.CHOOSE_ENERGY, spec.CHOOSE_COPY), "copy": in_range(spec.CHOOSE_COPY, spec.NUM_ACTIONS)}


def answers_choice(phase, legal):
    """Whether the decider's action answers a pending choice: a legal action in a phase other than
    SETUP and MAIN (promotion, switch, retreat payment, evolution, Trainer / Ability / attack
    target, Energy placement, copied attack). Only such actions change a state in
    `_apply_answer`; the others change one only in `_apply_turn_action`."""
    return legal & (phase != spec.SETUP) & (phase != spec.MAIN)


def _apply_light(tables: CardTables, state: GameState, action, legal) -> tuple[GameState, HandlerRequests]:
    """The decider's action in the decider's frame (seat 0), without its heavy handlers: returns
    the state they start from and their requests (`_run_handlers` runs them, then
    `_finish_action`). A handler's action changes nothing else here, so the state returned is the
    one the handler reads whichever handler runs. The action is either a SETUP / MAIN action
    (`_apply_turn_action`) or an answer to a pending choice (`_apply_answer`): each is the identity
    for the other's games, so `step_batch` runs the (rare) answers on a sub-batch."""
    phase = state.phase
    state, requests = _apply_turn_action(tables, state, action, legal)
    answered, answer_requests = _apply_answer(tables, state, phase, action, legal)
    answering = answers_choice(phase, legal)
    return answered, jax.tree.map(lambda a, t: jnp.where(answering, a, t), answer_requests, requests)


def _apply_turn_action(tables: CardTables, state: GameState, action, legal) -> tuple[GameState, HandlerRequests]:
    """A SETUP or MAIN action of the decider (seat 0); the state unchanged in other phases."""
    p, o = 0, 1
    phase = state.phase
    act = _action_kinds(action, legal)
    is_end, is_play, is_attach, is_ability, is_retreat = act["end"], act["play"], act["attach"], act["ability"], act["retreat"]
    setup, main = phase == spec.SETUP, phase == spec.MAIN
    h = jnp.clip(action - spec.PLAY_HAND, 0, spec.HAND_CAPACITY - 1)

    # --- SETUP-4
    state = merge(setup & is_end & (p == state.first_player), state.replace(decider=o), state)
    # the second player is done: turn 1 starts (settle() starts the next turn of an ending turn)
    state = merge(setup & is_end & (p != state.first_player),
                  state.replace(phase=jnp.int32(spec.MAIN), turn_ending=jnp.bool_(True), checkup_done=jnp.bool_(True)), state)
    removed, card = core.remove_from_hand(state, p, h)
    setup_slot = jnp.where(state.card[p, 0] < 0, 0, core.first_empty_bench(state, p))
    state = merge(setup & is_play, core.put_into_play(removed, p, setup_slot, card), state)

    # --- MAIN actions
    state = core.end_turn(state, main & is_end)
    play = main & is_play
    is_pokemon = tables.is_pokemon[jnp.maximum(card, 0)] == 1
    basic = is_pokemon & (tables.stage[jnp.maximum(card, 0)] == 0)
    state = merge(play, removed, state)
    state = core.put_into_play(state, p, core.first_empty_bench(state, p), card, play & basic)
    state = merge(play & is_pokemon & ~basic, state.replace(phase=jnp.int32(spec.EVOLVE_TARGET), decider=p, aux_card=card), state)
    trainer, trainer_card = play & ~is_pokemon, jnp.maximum(card, 0)
    attach_slot = jnp.clip(action - spec.ATTACH, 0, spec.NUM_SLOTS - 1)
    current = jnp.maximum(state.energy_current[p], 0)
    state = merge(main & is_attach, state.replace(energy=indexing.add(state.energy, (p, attach_slot, current), 1),
                                                  energy_current=indexing.write(state.energy_current, (p,), -1)), state)
    ability_slot = jnp.clip(action - spec.ABILITY, 0, spec.NUM_SLOTS - 1)
    fossil = tables.is_fossil[jnp.maximum(indexing.read(state.card, (p, ability_slot)), 0)] == 1
    state = core.discard_from_play(state, p, ability_slot, main & is_ability & fossil)
    ability = main & is_ability & ~fossil
    bench_slot = jnp.clip(action - spec.RETREAT + 1, 1, 3)
    retreat = main & is_retreat
    paying = state.replace(retreated=indexing.write(state.retreated, (p,), True), phase=jnp.int32(spec.RETREAT_PAY), decider=p,
                           aux_index=bench_slot, aux_count=retreat_cost(tables, state, p))
    state = merge(retreat, _continue_retreat_payment(tables, paying, p), state)

    # --- attack declaration (ATK-1..4); resolve_attack is a handler
    attack_index = jnp.clip(action - spec.ATTACK, 0, 1)
    state, start_main, active_card = effects.declare_attack(tables, state, p, attack_index, main & act["attack"])
    start_card = jnp.maximum(active_card, 0)
    state, resolve_started = effects.start_attack(tables, state, p, start_card, attack_index, start_main)
    requests = HandlerRequests(trainer=trainer, trainer_card=trainer_card, ability=ability, ability_slot=ability_slot,
                               attack=resolve_started, attack_card=start_card, attack_index=attack_index,
                               attack_target=jnp.int32(-1))
    return state, requests


def _apply_answer(tables: CardTables, state: GameState, phase, action, legal) -> tuple[GameState, HandlerRequests]:
    """The decider's answer to the pending choice of `phase` (the phase before the action, seat 0);
    the state unchanged where the action is no answer (`answers_choice`)."""
    p, o = 0, 1
    act = _action_kinds(action, legal)
    is_self, is_opp = act["self"], act["opp"]
    self_slot = jnp.clip(action - spec.CHOOSE_SELF, 0, spec.NUM_SLOTS - 1)
    opp_slot = jnp.clip(action - spec.CHOOSE_OPP, 0, spec.NUM_SLOTS - 1)

    promote = (phase == spec.PROMOTE) & is_self
    state = merge(promote, core.move_slot(state, p, self_slot, 0).replace(phase=jnp.int32(spec.MAIN)), state)
    switch = (phase == spec.SWITCH_OUT) & is_self
    state = merge(switch, core.swap_active_with_bench(state, p, self_slot).replace(phase=jnp.int32(spec.MAIN)), state)
    pay = (phase == spec.RETREAT_PAY) & act["energy"]
    t = jnp.clip(action - spec.CHOOSE_ENERGY, 0, spec.NUM_ENERGY - 1)
    paid = state.replace(energy=indexing.add(state.energy, (p, 0, t), -1), aux_count=state.aux_count - 1)
    state = merge(pay, _continue_retreat_payment(tables, paid, p), state)
    evolve = (phase == spec.EVOLVE_TARGET) & is_self
    evolving = state.replace(phase=jnp.int32(spec.MAIN), aux_card=jnp.int32(-1))
    state = merge(evolve, _evolve(tables, evolving, p, self_slot, jnp.maximum(state.aux_card, 0), TRUE), state)
    trainer_target = (phase == spec.TRAINER_TARGET) & is_self
    state = effects.answer_trainer_target(tables, state.replace(phase=jnp.where(trainer_target, spec.MAIN, state.phase)),
                                          p, self_slot, trainer_target)
    ability_target = (phase == spec.ABILITY_TARGET) & is_opp
    state = effects.answer_ability_target(tables, state.replace(phase=jnp.where(ability_target, spec.MAIN, state.phase)),
                                          p, opp_slot, ability_target)
    place = (phase == spec.PLACE_ENERGY) & is_self
    placed = state.replace(energy=indexing.add(state.energy, (p, self_slot, jnp.maximum(state.aux_type, 0)), 1),
                           aux_count=state.aux_count - 1)
    more = placed.aux_count > 0
    placed = placed.replace(phase=jnp.where(more, spec.PLACE_ENERGY, spec.MAIN), aux_card=jnp.where(more, placed.aux_card, -1),
                            aux_index=jnp.where(more, placed.aux_index, -1), aux_type=jnp.where(more, placed.aux_type, -1))
    state = merge(place, placed, state)

    # --- a copied attack (COPY_ATTACK) starts an attack; a target answer (ATTACK_TARGET) resolves
    # the attack chosen before
    copy = (phase == spec.COPY_ATTACK) & act["copy"]
    k = jnp.clip(action - spec.CHOOSE_COPY, 0, 2 * spec.NUM_SLOTS - 1)
    copied = jnp.maximum(indexing.read(state.card, (o, k // 2)), 0)
    copy_paid = effects.can_pay(tables, state.energy[p, 0], copied, k % 2)
    state = merge(copy, state.replace(phase=jnp.int32(spec.MAIN), aux_card=jnp.int32(-1), aux_index=jnp.int32(-1)), state)
    state, resolve_started = effects.start_attack(tables, state, p, copied, k % 2, copy & copy_paid)
    answer = (phase == spec.ATTACK_TARGET) & (is_self | is_opp)
    target = jnp.where(is_opp, opp_slot, self_slot)
    answer_card, answer_a = jnp.maximum(state.aux_card, 0), jnp.clip(state.aux_index, 0, 1)
    state = merge(answer, state.replace(phase=jnp.int32(spec.MAIN), aux_card=jnp.int32(-1), aux_index=jnp.int32(-1)), state)
    requests = HandlerRequests(trainer=jnp.bool_(False), trainer_card=jnp.int32(0), ability=jnp.bool_(False),
                               ability_slot=jnp.int32(0), attack=resolve_started | answer,
                               attack_card=jnp.where(answer, answer_card, copied),
                               attack_index=jnp.where(answer, answer_a, k % 2),
                               attack_target=jnp.where(answer, target, -1))
    return state, requests
