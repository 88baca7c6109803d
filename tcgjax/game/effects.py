"""Card effects of the JAX engine, table-driven: each effect kind is a gated update of the few
fields it changes, selected by comparing the card's kind id (tcgjax.game.tables). Every function
mirrors the function of the same name in tcgjax.reference.effects, including the order in which
the random stream is read.
"""

from __future__ import annotations

import jax.numpy as jnp

from paritygym import indexing
from tcgjax import spec
from tcgjax.game import core
from tcgjax.game.core import TRUE, merge
from tcgjax.game.state import ACTIVE_INDEX as ACTIVE
from tcgjax.game.state import EMPTY_SLOT, SLOT_INDEX, GameState, materialize, write_static
from tcgjax.game.tables import ABILITY_KIND, ATTACK_KIND, STATUS_CODE, TRAINER_KIND, CardTables

I32 = jnp.int32
SLOTS = jnp.arange(spec.NUM_SLOTS)


def _slot_type_mask(tables: CardTables, state: GameState, p, target_type):
    """Occupied slots of player p whose Pokémon has `target_type` (-1: any)."""
    ptype = tables.ptype[jnp.maximum(state.card[p], 0)]
    return (state.card[p] >= 0) & ((target_type < 0) | (ptype == target_type))


def _in_list(tables: CardTables, list_id, card):
    return (list_id >= 0) & tables.name_lists[jnp.maximum(list_id, 0), tables.name[jnp.maximum(card, 0)]] & (card >= 0)


def _status_values(poisoned, burned, special, status, gate):
    """STATUS-2 on one Active's (poisoned, burned, special); status is a STATUS_CODE."""
    new_special = jnp.select([status == STATUS_CODE["asleep"], status == STATUS_CODE["paralyzed"],
                              status == STATUS_CODE["confused"]], [spec.ASLEEP, spec.PARALYZED, spec.CONFUSED], special)
    return (poisoned | (gate & (status == STATUS_CODE["poisoned"])), burned | (gate & (status == STATUS_CODE["burned"])),
            jnp.where(gate, new_special, special))


def apply_status(state: GameState, p, status, gate) -> GameState:
    """STATUS-2; status is a STATUS_CODE."""
    poisoned, burned, special = _status_values(state.poisoned[p], state.burned[p], state.special[p], status, gate)
    return state.replace(poisoned=indexing.write(state.poisoned, (p,), poisoned), burned=indexing.write(state.burned, (p,), burned),
                         special=indexing.write(state.special, (p,), special))


def _with_columns(block, damage, energy):
    """One seat's slots [4, 15] with the damage and Energy columns replaced."""
    return write_static(write_static(block, (SLOT_INDEX["damage"],), damage), (SLOT_INDEX["energy"],), energy)


def _shuffle_into_deck(state: GameState, deck, deck_size, cards, count, offset):
    """RNG-3: `count` cards (first entries of `cards`) put at the bottom of `deck`, then the deck
    shuffled with stream values from rng_counter + offset. Returns (deck, size, values used)."""
    size = deck_size + count
    row = core.shuffled(state.seed, state.rng_counter + offset, core.append_row(deck, deck_size, cards, count), size)
    return row, size, jnp.maximum(size - 1, 0)


def _append_cards_to_deck_and_shuffle(state: GameState, p, cards, count, offset, gate):
    """`_shuffle_into_deck` on p's deck, gated. Returns (state, values used)."""
    row, size, used = _shuffle_into_deck(state, state.deck[p], state.deck_size[p], cards, count, offset)
    new = state.replace(deck=indexing.write(state.deck, (p,), row), deck_size=indexing.write(state.deck_size, (p,), size))
    return merge(gate, new, state), jnp.where(gate, used, 0)


# ====================================================================== Trainers

TARGETED_TRAINERS = (TRAINER_KIND["heal_target"], TRAINER_KIND["flip_until_tails_energy_to_target"],
                     TRAINER_KIND["zone_energy_to_named"])


def trainer_targets(tables: CardTables, state: GameState, p, card):
    """TRAINER-2: own slots the targeted Trainer may choose, [4] bool."""
    kind = tables.t_kind[card]
    typed = _slot_type_mask(tables, state, p, tables.t_target_type[card])
    heal = typed & (state.damage[p] > 0)
    named = _in_list(tables, tables.t_names[card], state.card[p])
    return jnp.select([kind == TRAINER_KIND["heal_target"], kind == TRAINER_KIND["flip_until_tails_energy_to_target"],
                       kind == TRAINER_KIND["zone_energy_to_named"]], [heal, typed, named], jnp.zeros(spec.NUM_SLOTS, bool))


def trainer_playable(tables: CardTables, state: GameState, p, card):
    kind = tables.t_kind[card]
    o = 1 - p
    active = state.card[p, 0]
    has_bench = jnp.any(core.bench_mask(state, p))
    targeted = (kind == TARGETED_TRAINERS[0]) | (kind == TARGETED_TRAINERS[1]) | (kind == TARGETED_TRAINERS[2])
    return jnp.select(
        [targeted, kind == TRAINER_KIND["fossil"], kind == TRAINER_KIND["return_active_to_hand"],
         kind == TRAINER_KIND["switch_out_opponent_active"], kind == TRAINER_KIND["move_bench_energy_to_active"]],
        [jnp.any(trainer_targets(tables, state, p, card)), jnp.any(core.empty_bench_mask(state, p)),
         _in_list(tables, tables.t_names[card], active) & has_bench, jnp.any(core.bench_mask(state, o)),
         _in_list(tables, tables.t_names[card], active)],
        TRUE)


def play_trainer(tables: CardTables, state: GameState, p: int, card, gate) -> GameState:
    """TRAINER-1 (the caller removed the card from the hand). The Trainer kinds exclude each other:
    each computes the rows it changes from `state`, and the rows are written once, gated."""
    o = 1 - p
    gate, card = materialize(gate), materialize(card)
    kind = materialize(tables.t_kind[card])
    is_ = lambda name: kind == TRAINER_KIND[name]  # noqa: E731
    pokeball, red, draw = is_("deck_random_basic_to_hand"), is_("opponent_shuffle_hand_draw"), is_("draw")
    koga, fossil, surge = is_("return_active_to_hand"), is_("fossil"), is_("move_bench_energy_to_active")
    switch = is_("switch_out_opponent_active")
    targeted = (kind == TARGETED_TRAINERS[0]) | (kind == TARGETED_TRAINERS[1]) | (kind == TARGETED_TRAINERS[2])
    deck, hand, discard = state.deck[p], state.hand[p], state.discard[p]
    deck_size, hand_size, discard_size = state.deck_size[p], state.hand_size[p], state.discard_size[p]
    slots = state.slots[p]
    # --- player p: cards that leave the top / a position of the deck, cards that join the hand
    # Poké Ball (RNG-4): a uniform pick among the deck's Basic Pokémon
    basics = (deck >= 0) & (tables.is_basic[jnp.maximum(deck, 0)] == 1)
    found = pokeball & (jnp.sum(basics) > 0)
    position = core.kth_true(basics, core.pick_at(state, 0, jnp.sum(basics)))
    # Professor's Research: the top cards
    drawn = jnp.where(draw, core.drawn_count(deck_size, hand_size, tables.t_count[card], tables.max_trainer_draw), 0)
    deck_first = jnp.where(found, position, 0)
    deck_taken = jnp.where(found, 1, drawn)
    # Koga: the Active's stack (bottom card first) returns to the hand
    stack = state.stack[p, 0]
    joining = jnp.where(koga, jnp.pad(stack, (0, spec.DECK_SIZE - spec.STACK_DEPTH), constant_values=-1),
                        core.drop_row(deck, 0, deck_first))  # Poké Ball's card or the drawn cards lead this row
    joining_count = jnp.where(koga, jnp.sum(stack >= 0), deck_taken)
    # fossils go into play, every other Trainer to the discard pile
    discard = core.append_row(discard, discard_size, card[None], (~fossil).astype(I32))
    # --- the Pokémon in play
    fossil_row = core.new_slot_row(card, state.turn)
    t = jnp.maximum(tables.t_type[card], 0)
    column = SLOT_INDEX["energy"].start + t
    moved = jnp.sum(indexing.read(slots, (slice(1, None), column)))
    surged = indexing.write(indexing.add(slots, (0, column), moved), (slice(1, None), column), 0)
    bench = jnp.arange(spec.NUM_SLOTS) == core.first_empty_bench(state, p)
    slots = jnp.where(fossil & bench[:, None], fossil_row, jnp.where(surge, surged, slots))
    slots = jnp.where(koga & (jnp.arange(spec.NUM_SLOTS) == 0)[:, None], jnp.asarray(EMPTY_SLOT), slots)
    # --- the opponent: Red Card shuffles the hand into the deck, then draws
    shuffled, shuffled_size, used = _shuffle_into_deck(state, state.deck[o], state.deck_size[o], state.hand[o],
                                                       state.hand_size[o], 0)
    opp_drawn = core.drawn_count(shuffled_size, 0, tables.t_count[card], tables.max_trainer_draw)
    opp_deck = core.drop_row(shuffled, 0, opp_drawn)
    opp_hand = jnp.where(jnp.arange(spec.HAND_CAPACITY) < opp_drawn, shuffled, -1)
    # --- one gated write per array
    keep = lambda new, old: jnp.where(gate, new, old)  # noqa: E731
    zones = jnp.stack([
        jnp.stack([keep(core.drop_row(deck, deck_first, deck_taken), state.deck[p]),
                   keep(core.append_row(hand, hand_size, joining, joining_count), hand), keep(discard, state.discard[p])]),
        jnp.stack([keep(jnp.where(red, opp_deck, state.deck[o]), state.deck[o]),
                   keep(jnp.where(red, opp_hand, state.hand[o]), state.hand[o]), state.discard[o]])])
    if p == 1:
        zones = zones[::-1]
    seat = state.replace(
        deck_size=indexing.write(indexing.add(state.deck_size, (p,), -deck_taken), (o,), jnp.where(red, shuffled_size - opp_drawn, state.deck_size[o])),
        hand_size=indexing.write(indexing.add(state.hand_size, (p,), joining_count), (o,), jnp.where(red, opp_drawn, state.hand_size[o])),
        discard_size=indexing.add(state.discard_size, (p,), (~fossil).astype(I32)),
        supporter_played=indexing.write(state.supporter_played, (p,), state.supporter_played[p] | (tables.trainer_kind[card] == 2)),
        retreat_reduction=indexing.add(state.retreat_reduction, (p,), jnp.where(is_("retreat_reduction"), tables.t_amount[card], 0)),
        named_attack_bonus=indexing.write(state.named_attack_bonus, (p,), 
            jnp.where(is_("named_attack_bonus"), tables.t_amount[card], state.named_attack_bonus[p])),
        attack_bonus=indexing.write(state.attack_bonus, (p,), 
            jnp.where(is_("attack_bonus"), tables.t_amount[card], state.attack_bonus[p]))).seat
    flow = state.replace(
        phase=jnp.where(targeted, spec.TRAINER_TARGET, jnp.where(switch, spec.SWITCH_OUT, state.phase)),
        decider=jnp.where(targeted, p, jnp.where(switch, o, state.decider)),
        aux_card=jnp.where(targeted, card, state.aux_card),
        rng_counter=state.rng_counter + found.astype(I32) + jnp.where(red, used, 0)).flow
    active = indexing.write(state.active, (p,), jnp.where(koga, 0, state.active[p]))
    return state.replace(zones=zones, seat=keep(seat, state.seat), flow=keep(flow, state.flow),
                         slots=indexing.write(state.slots, (p,), keep(slots, state.slots[p])), active=keep(active, state.active))


def answer_trainer_target(tables: CardTables, state: GameState, p: int, slot, gate) -> GameState:
    gate, slot = materialize(gate), materialize(slot)
    card = materialize(jnp.maximum(state.aux_card, 0))
    kind = tables.t_kind[card]
    t = jnp.maximum(tables.t_type[card], 0)
    chosen = SLOTS == slot
    heal = gate & (kind == TRAINER_KIND["heal_target"])
    damage = jnp.where(heal & chosen, jnp.maximum(state.damage[p] - tables.t_amount[card], 0), state.damage[p])
    misty = gate & (kind == TRAINER_KIND["flip_until_tails_energy_to_target"])
    heads, used = core.flip_until_tails_at(state, 0)
    brock = gate & (kind == TRAINER_KIND["zone_energy_to_named"])
    gained = jnp.where(misty, heads, 0) + brock.astype(I32)
    energy = state.energy[p] + jnp.where(chosen[:, None] & (jnp.arange(spec.NUM_ENERGY) == t), gained, 0)
    return state.replace(slots=indexing.write(state.slots, (p,), _with_columns(state.slots[p], damage, energy)),
                         aux_card=jnp.where(gate, -1, state.aux_card),
                         rng_counter=state.rng_counter + jnp.where(misty, used, 0))


# ====================================================================== Abilities

def ability_targets(tables: CardTables, state: GameState, p, user_slot):
    """Opponent slots the Ability of p's `user_slot` may choose, [4] bool."""
    o = 1 - p
    kind = tables.ab_kind[jnp.maximum(indexing.read(state.card, (p, user_slot)), 0)]
    pull = core.bench_mask(state, o) & (state.stack[o, :, 1] < 0)
    any_ = state.card[o] >= 0
    return jnp.select([kind == ABILITY_KIND["pull_opponent_bench_basic"], kind == ABILITY_KIND["damage_opponent_any"]],
                      [pull, any_], jnp.zeros(spec.NUM_SLOTS, bool))


def ability_usable(tables: CardTables, state: GameState, p, slot):
    """ABILITY-1..3 for player p's slot."""
    o = 1 - p
    card = indexing.read(state.card, (p, slot))
    c = jnp.maximum(card, 0)
    kind = tables.ab_kind[c]
    has_bench = jnp.any(core.bench_mask(state, p))
    fossil_ok = (slot != 0) | has_bench
    passive = (kind == ABILITY_KIND["counterattack"]) | (kind == ABILITY_KIND["reduce_incoming"]) | (kind == ABILITY_KIND["block_opponent_supporters"])
    base = (kind > 0) & ~passive & ~state.ability_used[p, slot] & ((tables.ab_requires_active[c] == 0) | (slot == 0))
    active_type = tables.ptype[jnp.maximum(state.card[p, 0], 0)]
    specific = jnp.select(
        [kind == ABILITY_KIND["heal_all_own"],
         (kind == ABILITY_KIND["pull_opponent_bench_basic"]) | (kind == ABILITY_KIND["damage_opponent_any"]),
         kind == ABILITY_KIND["zone_energy_to_active_of_type"],
         (kind == ABILITY_KIND["coin_opponent_asleep"]) | (kind == ABILITY_KIND["poison_opponent_active"]),
         kind == ABILITY_KIND["switch_out_opponent_active"]],
        [jnp.any((state.card[p] >= 0) & (state.damage[p] > 0)),
         jnp.any(ability_targets(tables, state, p, slot)),
         (state.card[p, 0] >= 0) & (active_type == tables.ab_type[c]),
         state.card[o, 0] >= 0,
         jnp.any(core.bench_mask(state, o))],
        TRUE)
    return (card >= 0) & jnp.where(tables.is_fossil[c] == 1, fossil_ok, base & specific)


def use_ability(tables: CardTables, state: GameState, p: int, slot, gate) -> GameState:
    """The Ability of p's `slot`: one write per changed array, gated."""
    o = 1 - p
    gate, slot = materialize(gate), materialize(slot)
    c = materialize(jnp.maximum(indexing.read(state.card, (p, slot)), 0))
    kind = tables.ab_kind[c]
    is_ = lambda name: kind == ABILITY_KIND[name]  # noqa: E731
    t = jnp.maximum(tables.ab_type[c], 0)
    damage = jnp.where(is_("heal_all_own") & (state.card[p] >= 0), jnp.maximum(state.damage[p] - tables.ab_amount[c], 0),
                       state.damage[p])
    typed = jnp.arange(spec.NUM_ENERGY) == t
    energy = (state.energy[p] + jnp.where((SLOTS == slot)[:, None] & typed, is_("zone_energy_to_self").astype(I32), 0)
              + jnp.where((SLOTS == 0)[:, None] & typed, is_("zone_energy_to_active_of_type").astype(I32), 0))
    block = _with_columns(state.slots[p], damage, energy)
    block = write_static(block, (SLOT_INDEX["ability_used"],), jnp.where(SLOTS == slot, 1, block[:, SLOT_INDEX["ability_used"]]))
    targeted = is_("pull_opponent_bench_basic") | is_("damage_opponent_any")
    switch = is_("switch_out_opponent_active")
    sleep = is_("coin_opponent_asleep")
    heads = (core.value_at(state, 0) & 1) == 1
    status = _status_values(state.poisoned[o], state.burned[o], state.special[o], STATUS_CODE["asleep"], sleep & heads)
    status = _status_values(*status, STATUS_CODE["poisoned"], is_("poison_opponent_active"))
    active_o = indexing.write(state.active[o], (ACTIVE["poisoned"],), status[0].astype(I32))
    active_o = indexing.write(indexing.write(active_o, (ACTIVE["burned"],), status[1].astype(I32)), (ACTIVE["special"],), status[2])
    flow = state.replace(
        phase=jnp.where(targeted, spec.ABILITY_TARGET, jnp.where(switch, spec.SWITCH_OUT, state.phase)),
        decider=jnp.where(targeted, p, jnp.where(switch, o, state.decider)),
        aux_index=jnp.where(targeted, slot, state.aux_index), rng_counter=state.rng_counter + sleep.astype(I32)).flow
    keep = lambda new, old: jnp.where(gate, new, old)  # noqa: E731
    return state.replace(slots=indexing.write(state.slots, (p,), keep(block, state.slots[p])),
                         active=indexing.write(state.active, (o,), keep(active_o, state.active[o])), flow=keep(flow, state.flow))


def answer_ability_target(tables: CardTables, state: GameState, p: int, opp_slot, gate) -> GameState:
    o = 1 - p
    gate, opp_slot = materialize(gate), materialize(opp_slot)
    c = materialize(jnp.maximum(indexing.read(state.card, (p, jnp.maximum(state.aux_index, 0))), 0))
    kind = tables.ab_kind[c]
    pull = gate & (kind == ABILITY_KIND["pull_opponent_bench_basic"])
    hit = gate & (kind == ABILITY_KIND["damage_opponent_any"])
    order = jnp.where(pull & (SLOTS == 0), opp_slot, jnp.where(pull & (SLOTS == opp_slot), 0, SLOTS))
    block = indexing.lookup(state.slots[o], order)
    damage = block[:, SLOT_INDEX["damage"]] + jnp.where(hit & (SLOTS == opp_slot), tables.ab_amount[c], 0)
    block = write_static(block, (SLOT_INDEX["damage"],), damage)
    return state.replace(slots=indexing.write(state.slots, (o,), block), active=indexing.write(state.active, (o,), jnp.where(pull, 0, state.active[o])),
                         aux_index=jnp.where(gate, -1, state.aux_index))


# ====================================================================== Attacks

def attack_targets(tables: CardTables, state: GameState, p, card, a):
    """ATK-4: (needs a target, own slot mask, opponent slot mask)."""
    kind = tables.atk_kind[card, a]
    is_ = lambda name: kind == ATTACK_KIND[name]  # noqa: E731
    o = 1 - p
    opp_any = is_("snipe_opponent_any")
    opp_bench = is_("snipe_opponent_bench")
    own_bench = is_("damage_own_bench_one") | is_("switch_self_with_bench")
    own_typed = is_("zone_energy_to_own_bench")
    needs = opp_any | opp_bench | own_bench | own_typed
    own = jnp.where(own_bench, core.bench_mask(state, p),
                    own_typed & (SLOTS > 0) & _slot_type_mask(tables, state, p, tables.atk_target_type[card, a]))
    opp = jnp.where(opp_any, state.card[o] >= 0, opp_bench & core.bench_mask(state, o))
    return needs, own, opp


def copy_options(tables: CardTables, state: GameState, p):
    """Ditto: [4 slots, 2 attacks] bool of the opponent's copiable attacks."""
    o = 1 - p
    cards = jnp.maximum(state.card[o], 0)
    ok = ((state.card[o] >= 0)[:, None] & (tables.atk_exists[cards] == 1)
          & (tables.atk_kind[cards] != ATTACK_KIND["copy_opponent_attack"]))
    return ok


def can_pay(tables: CardTables, energy, card, a):
    """ATK-1 for one Pokémon's Energy [8]."""
    cost = tables.atk_cost[card, a]
    return jnp.all(energy >= cost) & (jnp.sum(energy) >= jnp.sum(cost) + tables.atk_colorless[card, a])


def declare_attack(tables: CardTables, state: GameState, p, a, gate):
    """ATK-1, ATK-3. Returns (state, start request gate, card)."""
    confused = gate & (state.special[p] == spec.CONFUSED)
    tails = (core.value_at(state, 0) & 1) == 0
    new = core.advance(state.replace(in_attack=jnp.bool_(True), counter_damage=jnp.int32(0)), 1, confused)
    state = merge(gate, new, state)
    return state, gate & ~(confused & tails), state.card[p, 0]


def start_attack(tables: CardTables, state: GameState, p, card, a, gate):
    """Ask for a target or a copy (ATK-4); returns (state, resolve gate)."""
    kind = tables.atk_kind[card, a]
    copy = kind == ATTACK_KIND["copy_opponent_attack"]
    any_copy = jnp.any(copy_options(tables, state, p))
    needs, own, opp = attack_targets(tables, state, p, card, a)
    ask = needs & (jnp.any(own) | jnp.any(opp))
    pending = gate & ((copy & any_copy) | ask)
    new = state.replace(phase=jnp.where(copy, spec.COPY_ATTACK, spec.ATTACK_TARGET), decider=p, aux_card=card, aux_index=a)
    return merge(pending, new, state), gate & ~copy & ~ask


def extra_energy(tables: CardTables, energy, card, a, energy_type):
    """Energy of energy_type beyond what the attack cost needs (Hydro Pump, Hydro Bazooka)."""
    typed = tables.atk_cost[card, a]
    others = jnp.arange(spec.NUM_ENERGY) != energy_type
    other_spare = jnp.sum(jnp.where(others, energy - typed, 0))
    used_for_colorless = jnp.maximum(0, tables.atk_colorless[card, a] - other_spare)
    return indexing.read(energy, energy_type) - indexing.read(typed, energy_type) - used_for_colorless


def _damage_to_opponent(tables: CardTables, state: GameState, p, units, counts, gate):
    """Attack damage to the opponent's Pokémon: `counts[s]` hits of `units[s]` base damage on slot s
    (DMG-1 for the Active, DMG-3 for the Bench), all at once: the formula does not depend on the
    damage already there. Returns (damage dealt per slot, counter_damage: Counterattack's)."""
    o = 1 - p
    slots = jnp.arange(spec.NUM_SLOTS)
    per_hit_active = core.attack_damage_to_active(tables, state, p, units[0])
    reduction = core.incoming_reductions(tables, state, o)
    per_hit_bench = jnp.where(units <= 0, 0, jnp.maximum(units - reduction, 0))
    per_hit = jnp.where(slots == 0, per_hit_active, per_hit_bench)
    dealt = jnp.where(gate & (state.card[o] >= 0), counts * per_hit, 0).astype(I32)
    defender = jnp.maximum(state.card[o, 0], 0)
    counter = (dealt[0] > 0) & (tables.ab_kind[defender] == ABILITY_KIND["counterattack"])
    return dealt, jnp.where(counter, tables.ab_amount[defender], state.counter_damage)


def resolve_attack(tables: CardTables, state: GameState, p: int, card, a, target, gate) -> GameState:
    """ATK-5, mirroring reference effects.resolve_attack (same stream order). Every effect reads
    the state before the attack (an attack has one effect kind besides its damage, and the
    reference's effects read nothing an earlier one of the same attack changed), changes small
    per-seat rows, and each packed array is written once at the end, gated."""
    o = 1 - p
    # per-game values that gate row writes are computed once per game (see state.materialize)
    gate, card, a, target = (materialize(x) for x in (gate, card, a, target))
    kind = materialize(tables.atk_kind[card, a])
    flags = {name: kind == value for name, value in ATTACK_KIND.items()}
    is_ = flags.__getitem__
    amount = tables.atk_amount[card, a]
    etype = jnp.maximum(tables.atk_type[card, a], 0)
    attacker_energy = state.energy[p, 0]
    # --- coins (all of an attack's coins come first in the stream)
    one_coin = (is_("coin_or_fail") | is_("coin_bonus") | is_("coin_bonus_else_self_damage") | is_("coin_inflict")
                | is_("coin_defender_cant_attack") | is_("coin_discard_random_opponent_energy") | is_("coin_protect_next_turn")
                | is_("coin_discard_random_opponent_hand_card") | is_("coin_shuffle_opponent_active_into_deck"))
    many = is_("coins_times_damage") | is_("all_heads_bonus") | is_("coins_zone_energy_to_own_bench")
    num_coins = jnp.where(one_coin, 1, jnp.where(many, tables.atk_coins[card, a], 0))
    heads = core.coins_at(state, 0, num_coins, 4)
    until_tails = is_("flip_until_tails_times_damage")
    streak, streak_used = core.flip_until_tails_at(state, 0)
    used = jnp.where(until_tails, streak_used, num_coins)
    heads = jnp.where(until_tails, streak, heads)
    failed = is_("coin_or_fail") & (heads == 0)
    # --- base damage with the attack's own bonuses
    base = tables.atk_damage[card, a]
    bench_p = core.bench_mask(state, p)
    bench_types = _slot_type_mask(tables, state, p, tables.atk_type[card, a]) & bench_p
    named_bench = bench_p & (tables.name[jnp.maximum(state.card[p], 0)] == tables.atk_name[card, a])
    bonus = jnp.select(
        [is_("coin_bonus") | is_("coin_bonus_else_self_damage"), is_("all_heads_bonus"),
         is_("extra_energy_bonus"), is_("bonus_if_opponent_damaged"), is_("bonus_per_opponent_energy"),
         is_("bonus_if_self_damaged"), is_("bonus_per_own_bench_named"), is_("bonus_if_opponent_poisoned")],
        [jnp.where(heads > 0, amount, 0), jnp.where(heads == num_coins, amount, 0),
         jnp.where(extra_energy(tables, attacker_energy, card, a, etype) >= tables.atk_extra[card, a], amount, 0),
         jnp.where(state.damage[o, 0] > 0, amount, 0), amount * jnp.sum(state.energy[o, 0]),
         jnp.where(state.damage[p, 0] > 0, amount, 0), amount * jnp.sum(named_bench),
         jnp.where(state.poisoned[o], amount, 0)], 0)
    multiplier = jnp.select([is_("coins_times_damage") | until_tails, is_("times_own_bench")],
                            [heads, jnp.sum(bench_types)], 1)
    base = base * multiplier + bonus
    go = gate & ~failed
    # --- damage to the opponent's Pokémon: the Defending Pokémon, Blizzard's Bench hits, a snipe at
    # the chosen target, or Draco Meteor's random hits (the occupied slots do not change during the
    # hits: Knock Outs come later). At most one of these kinds, besides the main hit, per attack.
    slots = jnp.arange(spec.NUM_SLOTS)
    occupied_o = state.card[o] >= 0
    meteor = go & is_("random_opponent_hits")
    hits = jnp.zeros(spec.NUM_SLOTS, I32)
    for i in range(4):
        hit = meteor & (i < tables.atk_times[card, a])
        slot = core.kth_true(occupied_o, core.pick_at(state, used, jnp.sum(occupied_o)))
        hits = hits + ((slots == slot) & hit).astype(I32)
        used = used + hit.astype(I32)
    snipe = (is_("snipe_opponent_any") | is_("snipe_opponent_bench")) & (target >= 0)
    blizzard = is_("damage_each_opponent_bench")
    main = (tables.atk_damage[card, a] > 0).astype(I32)
    units = jnp.where(snipe | is_("random_opponent_hits"), amount, jnp.where(slots == 0, base, jnp.where(blizzard, amount, 0)))
    counts = jnp.where(snipe, (slots == target).astype(I32), jnp.where(is_("random_opponent_hits"), hits,
                       jnp.where(slots == 0, main, blizzard.astype(I32))))
    dealt_per_slot, counter_damage = _damage_to_opponent(tables, state, p, units, counts, go)
    damage_o = state.damage[o] + dealt_per_slot
    dealt = jnp.where(main > 0, dealt_per_slot[0], 0)
    protected = core.is_turn(state, state.protected_turn[o])
    next_turn = state.turn + 1
    # --- the other effects, in the reference's order
    damage_p = state.damage[p]
    active_damage = damage_p[0]
    active_damage = jnp.where(go & is_("heal_self"), jnp.maximum(active_damage - amount, 0), active_damage)
    active_damage = jnp.where(go & is_("heal_self_by_damage_dealt"), jnp.maximum(active_damage - dealt, 0), active_damage)
    self_hit = (jnp.where(is_("self_damage"), amount, 0)
                + jnp.where(is_("coin_bonus_else_self_damage") & (heads == 0), tables.atk_self_damage[card, a], 0))
    active_damage = active_damage + jnp.where(go, self_hit, 0)
    # Raging Thunder: one own Benched Pokémon
    own_slot = jnp.maximum(target, 0)
    own_hit = core.attack_damage_to_bench(tables, state, p, own_slot, amount)
    damage_p = indexing.write(damage_p, (0,), active_damage)
    damage_p = indexing.add(damage_p, own_slot, jnp.where(go & is_("damage_own_bench_one") & (target >= 0), own_hit, 0))
    status = _status_values(state.poisoned[o], state.burned[o], state.special[o], tables.atk_status[card, a],
                            go & ~protected & (is_("inflict") | (is_("coin_inflict") & (heads > 0))))
    energy_p = state.energy[p]
    own_discard = jnp.where(is_("discard_own_energy"), jnp.minimum(tables.atk_count[card, a], indexing.read(energy_p, (0, etype))), 0)
    energy_p = indexing.add(energy_p, (0, etype), -jnp.where(go, own_discard, 0))
    energy_p = indexing.write(energy_p, (0,), jnp.where(go & is_("discard_all_own_energy"), 0, energy_p[0]))
    energy_p = indexing.add(energy_p, (own_slot, etype), (go & is_("zone_energy_to_own_bench") & (target >= 0)).astype(I32))
    energy_p = indexing.add(energy_p, (0, etype), (go & is_("zone_energy_to_self")).astype(I32))
    moltres = go & is_("coins_zone_energy_to_own_bench") & (heads > 0) & jnp.any(
        (SLOTS > 0) & _slot_type_mask(tables, state, p, tables.atk_target_type[card, a]))
    on_defender = go & ~protected
    cant_attack = on_defender & (is_("defender_cant_attack") | (is_("coin_defender_cant_attack") & (heads > 0)))
    weaker = on_defender & is_("defender_attacks_weaker")
    protect = go & is_("coin_protect_next_turn") & (heads > 0)
    barrier = go & is_("reduce_damage_next_turn")
    # random Energy discard from the opponent's Active (after this attack's coins)
    discard_energy = on_defender & (is_("discard_random_opponent_energy") | (is_("coin_discard_random_opponent_energy") & (heads > 0)))
    energy_o = state.energy[o, 0]
    total = jnp.sum(energy_o)
    picked = discard_energy & (total > 0)
    lost_type = jnp.argmax(core.prefix_sum(energy_o) > core.pick_at(state, used, total))
    energy_o = indexing.add(energy_o, lost_type, -picked.astype(I32))
    used = used + picked.astype(I32)
    # Knock Back
    knock = go & ~protected & is_("switch_out_opponent_active") & jnp.any(core.bench_mask(state, o))
    # Call for Family / Find a Friend: a uniform pick among matching deck cards (RNG-4)
    deck, hand = state.deck[p], state.hand[p]
    deck_cards = jnp.maximum(deck, 0)
    family = go & is_("deck_random_named_to_bench") & jnp.any(core.empty_bench_mask(state, p))
    friend = go & is_("deck_random_pokemon_of_type_to_hand")
    matches = (deck >= 0) & jnp.where(family, tables.name[deck_cards] == tables.atk_name[card, a],
                                      (tables.is_pokemon[deck_cards] == 1) & (tables.ptype[deck_cards] == etype))
    found = (family | friend) & (jnp.sum(matches) > 0)
    position = core.kth_true(matches, core.pick_at(state, used, jnp.sum(matches)))
    benched = found & family
    used = used + found.astype(I32)
    # Pay Day
    drawn = jnp.where(go & is_("draw"), core.drawn_count(state.deck_size[p], state.hand_size[p], tables.atk_count[card, a],
                                                     tables.max_attack_draw), 0)
    deck_first = jnp.where(found, position, 0)
    deck_taken = jnp.where(found, 1, drawn)
    to_hand = jnp.where(found & friend, 1, drawn)
    # Shadow Claw
    claw = go & is_("coin_discard_random_opponent_hand_card") & (heads > 0) & (state.hand_size[o] > 0)
    h = core.pick_at(state, used, state.hand_size[o])
    lost = indexing.read(state.hand, (o, h))
    used = used + claw.astype(I32)
    # Primal Wingbeat: the Defending Pokémon's cards are shuffled into the deck
    wing = on_defender & is_("coin_shuffle_opponent_active_into_deck") & (heads > 0) & (state.card[o, 0] >= 0)
    stack_o = state.stack[o, 0]
    shuffled, shuffled_size, shuffle_used = _shuffle_into_deck(state, state.deck[o], state.deck_size[o], stack_o,
                                                               jnp.sum(stack_o >= 0), used)
    used = used + jnp.where(wing, shuffle_used, 0)
    # Teleport
    teleport = go & is_("switch_self_with_bench") & (target >= 0)

    # --- the rows, written once
    keep = lambda new, old: jnp.where(gate, new, old)  # noqa: E731
    block_p = _with_columns(state.slots[p], damage_p, energy_p)
    block_p = jnp.where(benched & (slots == core.first_empty_bench(state, p))[:, None],
                        core.new_slot_row(indexing.read(deck, position), state.turn), block_p)
    order = jnp.where(slots == 0, own_slot, jnp.where(slots == own_slot, 0, slots))
    block_p = jnp.where(teleport, indexing.lookup(block_p, order), block_p)
    block_o = _with_columns(state.slots[o], damage_o, indexing.write(state.energy[o], (0,), energy_o))
    block_o = jnp.where(wing & (slots == 0)[:, None], jnp.asarray(EMPTY_SLOT), block_o)
    slots_new = jnp.stack([block_p, block_o][:: 1 if p == 0 else -1])
    active_o = state.active[o]
    active_o = indexing.write(indexing.write(active_o, (ACTIVE["poisoned"],), status[0].astype(I32)), (ACTIVE["burned"],), status[1].astype(I32))
    active_o = indexing.write(active_o, (ACTIVE["special"],), status[2])
    active_o = indexing.write(active_o, (ACTIVE["cant_attack_turn"],), jnp.where(cant_attack, next_turn, active_o[ACTIVE["cant_attack_turn"]]))
    active_o = indexing.write(active_o, (ACTIVE["cant_retreat_turn"],), 
        jnp.where(on_defender & is_("defender_cant_retreat"), next_turn, active_o[ACTIVE["cant_retreat_turn"]]))
    active_o = indexing.write(active_o, (ACTIVE["attack_minus_turn"],), jnp.where(weaker, next_turn, active_o[ACTIVE["attack_minus_turn"]]))
    active_o = indexing.write(active_o, (ACTIVE["attack_minus_amount"],), jnp.where(weaker, amount, active_o[ACTIVE["attack_minus_amount"]]))
    active_o = jnp.where(wing, 0, active_o)
    active_p = state.active[p]
    active_p = indexing.write(active_p, (ACTIVE["reduce_damage_turn"],), jnp.where(barrier, next_turn, active_p[ACTIVE["reduce_damage_turn"]]))
    active_p = indexing.write(active_p, (ACTIVE["reduce_damage_amount"],), jnp.where(barrier, amount, active_p[ACTIVE["reduce_damage_amount"]]))
    active_p = indexing.write(active_p, (ACTIVE["protected_turn"],), jnp.where(protect, next_turn, active_p[ACTIVE["protected_turn"]]))
    active_p = jnp.where(teleport, 0, active_p)
    active_new = jnp.stack([active_p, active_o][:: 1 if p == 0 else -1])
    deck_o = jnp.where(wing, shuffled, state.deck[o])
    hand_o = jnp.where(claw, core.remove_at(state.hand[o], h), state.hand[o])
    discard_o = jnp.where(claw, core.append_row(state.discard[o], state.discard_size[o], lost[None], (lost >= 0).astype(I32)),
                          state.discard[o])
    zones_p = jnp.stack([core.drop_row(deck, deck_first, deck_taken),
                         core.append_row(hand, state.hand_size[p], core.drop_row(deck, 0, deck_first), to_hand), state.discard[p]])
    zones_new = jnp.stack([zones_p, jnp.stack([deck_o, hand_o, discard_o])][:: 1 if p == 0 else -1])
    seat = state.replace(
        deck_size=indexing.write(indexing.add(state.deck_size, (p,), -deck_taken), (o,), jnp.where(wing, shuffled_size, state.deck_size[o])),
        hand_size=indexing.add(indexing.add(state.hand_size, (p,), to_hand), (o,), -claw.astype(I32)),
        discard_size=indexing.add(state.discard_size, (o,), (claw & (lost >= 0)).astype(I32)),
        supporter_blocked_turn=indexing.write(state.supporter_blocked_turn, (o,), 
            jnp.where(go & is_("opponent_no_supporter_next_turn"), next_turn, state.supporter_blocked_turn[o]))).seat
    flow = state.replace(
        counter_damage=counter_damage,
        phase=jnp.where(knock, spec.SWITCH_OUT, jnp.where(moltres, spec.PLACE_ENERGY, state.phase)),
        decider=jnp.where(knock, o, jnp.where(moltres, p, state.decider)),
        aux_card=jnp.where(moltres, card, state.aux_card), aux_index=jnp.where(moltres, a, state.aux_index),
        aux_count=jnp.where(moltres, heads, state.aux_count), aux_type=jnp.where(moltres, etype, state.aux_type),
        rng_counter=state.rng_counter + used).flow
    return state.replace(flow=keep(flow, state.flow), seat=keep(seat, state.seat), zones=keep(zones_new, state.zones),
                         slots=keep(slots_new, state.slots), active=keep(active_new, state.active))
