"""Card effects of the JAX engine, table-driven: each effect kind is a gated update of the few
fields it changes, selected by comparing the card's kind id (tcgjax.game.tables). Every function
mirrors the function of the same name in tcgjax.reference.effects, including the order in which
the random stream is read.
"""

from __future__ import annotations

import jax.numpy as jnp

from tcgjax import spec
from tcgjax.game import core
from tcgjax.game.core import TRUE, merge
from tcgjax.game.state import GameState
from tcgjax.game.tables import ABILITY_KIND, ATTACK_KIND, STATUS_CODE, TRAINER_KIND, CardTables

I32 = jnp.int32
SLOTS = jnp.arange(spec.NUM_SLOTS)


def _slot_type_mask(T: CardTables, state: GameState, p, target_type):
    """Occupied slots of player p whose Pokémon has `target_type` (-1: any)."""
    ptype = T.ptype[jnp.maximum(state.card[p], 0)]
    return (state.card[p] >= 0) & ((target_type < 0) | (ptype == target_type))


def _in_list(T: CardTables, list_id, card):
    return (list_id >= 0) & T.name_lists[jnp.maximum(list_id, 0), T.name[jnp.maximum(card, 0)]] & (card >= 0)


def apply_status(state: GameState, p, status, gate) -> GameState:
    """STATUS-2; status is a STATUS_CODE."""
    special = jnp.select([status == STATUS_CODE["asleep"], status == STATUS_CODE["paralyzed"],
                          status == STATUS_CODE["confused"]], [spec.ASLEEP, spec.PARALYZED, spec.CONFUSED], state.special[p])
    return state.replace(
        poisoned=state.poisoned.at[p].set(state.poisoned[p] | (gate & (status == STATUS_CODE["poisoned"]))),
        burned=state.burned.at[p].set(state.burned[p] | (gate & (status == STATUS_CODE["burned"]))),
        special=state.special.at[p].set(jnp.where(gate, special, state.special[p])))


def _deck_random_pick(state: GameState, p, matches, gate, offset):
    """RNG-4: (gate & found, deck position) of a uniform pick among matching deck positions."""
    count = jnp.sum(matches)
    found = gate & (count > 0)
    position = core.kth_true(matches, core.pick_at(state, offset, count))
    return found, position


def _move_deck_card_to_hand(state: GameState, p, position, gate) -> GameState:
    card = state.deck[p, position]
    new = state.replace(deck=state.deck.at[p].set(core.remove_at(state.deck[p], position)),
                        deck_size=state.deck_size.at[p].add(-1))
    new = core.append_to_hand(new, p, card)
    return merge(gate, new, state)


def _append_cards_to_deck_and_shuffle(state: GameState, p, cards, count, offset, gate):
    """Put `count` cards (first entries of `cards`) at the bottom of p's deck, then shuffle the deck
    with stream values from rng_counter + offset. Returns (state, values used)."""
    size = state.deck_size[p]
    idx = jnp.arange(spec.DECK_SIZE)
    src = jnp.clip(idx - size, 0, cards.shape[0] - 1)
    row = jnp.where((idx >= size) & (idx < size + count), cards[src], state.deck[p])
    new_size = size + count
    row = core.shuffled(state.seed, state.rng_counter + offset, row, new_size)
    new = state.replace(deck=state.deck.at[p].set(row), deck_size=state.deck_size.at[p].set(new_size))
    return merge(gate, new, state), jnp.where(gate, jnp.maximum(new_size - 1, 0), 0)


# ====================================================================== Trainers

TARGETED_TRAINERS = (TRAINER_KIND["heal_target"], TRAINER_KIND["flip_until_tails_energy_to_target"],
                     TRAINER_KIND["zone_energy_to_named"])


def trainer_targets(T: CardTables, state: GameState, p, card):
    """TRAINER-2: own slots the targeted Trainer may choose, [4] bool."""
    kind = T.t_kind[card]
    typed = _slot_type_mask(T, state, p, T.t_target_type[card])
    heal = typed & (state.damage[p] > 0)
    named = _in_list(T, T.t_names[card], state.card[p])
    return jnp.select([kind == TRAINER_KIND["heal_target"], kind == TRAINER_KIND["flip_until_tails_energy_to_target"],
                       kind == TRAINER_KIND["zone_energy_to_named"]], [heal, typed, named], jnp.zeros(spec.NUM_SLOTS, bool))


def trainer_playable(T: CardTables, state: GameState, p, card):
    kind = T.t_kind[card]
    o = 1 - p
    active = state.card[p, 0]
    has_bench = jnp.any(core.bench_mask(state, p))
    targeted = (kind == TARGETED_TRAINERS[0]) | (kind == TARGETED_TRAINERS[1]) | (kind == TARGETED_TRAINERS[2])
    return jnp.select(
        [targeted, kind == TRAINER_KIND["fossil"], kind == TRAINER_KIND["return_active_to_hand"],
         kind == TRAINER_KIND["switch_out_opponent_active"], kind == TRAINER_KIND["move_bench_energy_to_active"]],
        [jnp.any(trainer_targets(T, state, p, card)), jnp.any(core.empty_bench_mask(state, p)),
         _in_list(T, T.t_names[card], active) & has_bench, jnp.any(core.bench_mask(state, o)),
         _in_list(T, T.t_names[card], active)],
        TRUE)


def play_trainer(T: CardTables, state: GameState, p, card, gate) -> GameState:
    """TRAINER-1 (the caller removed the card from the hand)."""
    old = state
    kind = T.t_kind[card]
    o = 1 - p
    flags = {name: gate & (kind == value) for name, value in TRAINER_KIND.items()}
    is_ = flags.__getitem__
    state = state.replace(supporter_played=state.supporter_played.at[p].set(state.supporter_played[p] | (T.trainer_kind[card] == 2)))
    fossil = is_("fossil")
    state = core.put_into_play(state, p, core.first_empty_bench(state, p), card, fossil)
    state = core.add_to_discard(state, p, card, ~fossil)
    targeted = (kind == TARGETED_TRAINERS[0]) | (kind == TARGETED_TRAINERS[1]) | (kind == TARGETED_TRAINERS[2])
    state = state.replace(
        phase=jnp.where(targeted, spec.TRAINER_TARGET, jnp.where(is_("switch_out_opponent_active"), spec.SWITCH_OUT, state.phase)),
        decider=jnp.where(targeted, p, jnp.where(is_("switch_out_opponent_active"), o, state.decider)),
        aux_card=jnp.where(targeted, card, state.aux_card),
        retreat_reduction=state.retreat_reduction.at[p].add(jnp.where(is_("retreat_reduction"), T.t_amount[card], 0)),
        named_attack_bonus=state.named_attack_bonus.at[p].set(jnp.where(is_("named_attack_bonus"), T.t_amount[card], state.named_attack_bonus[p])),
        attack_bonus=state.attack_bonus.at[p].set(jnp.where(is_("attack_bonus"), T.t_amount[card], state.attack_bonus[p])))
    # Poké Ball
    want = is_("deck_random_basic_to_hand")
    matches = (state.deck[p] >= 0) & (T.is_basic[jnp.maximum(state.deck[p], 0)] == 1)
    found, position = _deck_random_pick(state, p, matches, want, 0)
    state = _move_deck_card_to_hand(state, p, position, found)
    state = core.advance(state, 1, found)
    # Red Card
    red = is_("opponent_shuffle_hand_draw")
    hand_count = state.hand_size[o]
    shuffled, used = _append_cards_to_deck_and_shuffle(state, o, state.hand[o], hand_count, 0, red)
    shuffled = shuffled.replace(hand=shuffled.hand.at[o].set(-1), hand_size=shuffled.hand_size.at[o].set(0))
    state = merge(red, core.advance(shuffled, used), state)
    # Red Card's draw for the opponent, or Professor's Research's for the player
    state = core.draw(state, o, T.t_count[card], red, T.max_trainer_draw)
    state = core.draw(state, p, T.t_count[card], is_("draw"), T.max_trainer_draw)
    # Koga
    koga = is_("return_active_to_hand")
    state, cards = core.remove_from_play(state, p, 0, koga)
    for d in range(spec.STACK_DEPTH):
        state = core.append_to_hand(state, p, cards[d], koga)
    # Lt. Surge
    surge = is_("move_bench_energy_to_active")
    t = jnp.maximum(T.t_type[card], 0)
    moved = jnp.sum(state.energy[p, 1:, t])
    energy = state.energy.at[p, 0, t].add(moved).at[p, 1:, t].set(0)
    state = state.replace(energy=jnp.where(surge, energy, state.energy))
    return merge(gate, state, old)


def answer_trainer_target(T: CardTables, state: GameState, p, slot, gate) -> GameState:
    card = jnp.maximum(state.aux_card, 0)
    kind = T.t_kind[card]
    t = jnp.maximum(T.t_type[card], 0)
    state_heal = core.heal(state, p, slot, T.t_amount[card], gate & (kind == TRAINER_KIND["heal_target"]))
    misty = gate & (kind == TRAINER_KIND["flip_until_tails_energy_to_target"])
    heads, used = core.flip_until_tails_at(state, 0)
    brock = gate & (kind == TRAINER_KIND["zone_energy_to_named"])
    gained = jnp.where(misty, heads, 0) + brock.astype(I32)
    state = state_heal.replace(energy=state_heal.energy.at[p, slot, t].add(gained), aux_card=jnp.where(gate, -1, state.aux_card))
    return core.advance(state, used, misty)


# ====================================================================== Abilities

def ability_targets(T: CardTables, state: GameState, p, user_slot):
    """Opponent slots the Ability of p's `user_slot` may choose, [4] bool."""
    o = 1 - p
    kind = T.ab_kind[jnp.maximum(state.card[p, user_slot], 0)]
    pull = core.bench_mask(state, o) & (state.stack[o, :, 1] < 0)
    any_ = state.card[o] >= 0
    return jnp.select([kind == ABILITY_KIND["pull_opponent_bench_basic"], kind == ABILITY_KIND["damage_opponent_any"]],
                      [pull, any_], jnp.zeros(spec.NUM_SLOTS, bool))


def ability_usable(T: CardTables, state: GameState, p, slot):
    """ABILITY-1..3 for player p's slot."""
    o = 1 - p
    card = state.card[p, slot]
    c = jnp.maximum(card, 0)
    kind = T.ab_kind[c]
    has_bench = jnp.any(core.bench_mask(state, p))
    fossil_ok = (slot != 0) | has_bench
    passive = (kind == ABILITY_KIND["counterattack"]) | (kind == ABILITY_KIND["reduce_incoming"]) | (kind == ABILITY_KIND["block_opponent_supporters"])
    base = (kind > 0) & ~passive & ~state.ability_used[p, slot] & ((T.ab_requires_active[c] == 0) | (slot == 0))
    active_type = T.ptype[jnp.maximum(state.card[p, 0], 0)]
    specific = jnp.select(
        [kind == ABILITY_KIND["heal_all_own"],
         (kind == ABILITY_KIND["pull_opponent_bench_basic"]) | (kind == ABILITY_KIND["damage_opponent_any"]),
         kind == ABILITY_KIND["zone_energy_to_active_of_type"],
         (kind == ABILITY_KIND["coin_opponent_asleep"]) | (kind == ABILITY_KIND["poison_opponent_active"]),
         kind == ABILITY_KIND["switch_out_opponent_active"]],
        [jnp.any((state.card[p] >= 0) & (state.damage[p] > 0)),
         jnp.any(ability_targets(T, state, p, slot)),
         (state.card[p, 0] >= 0) & (active_type == T.ab_type[c]),
         state.card[o, 0] >= 0,
         jnp.any(core.bench_mask(state, o))],
        TRUE)
    return (card >= 0) & jnp.where(T.is_fossil[c] == 1, fossil_ok, base & specific)


def use_ability(T: CardTables, state: GameState, p, slot, gate) -> GameState:
    old = state
    o = 1 - p
    c = jnp.maximum(state.card[p, slot], 0)
    kind = T.ab_kind[c]
    flags = {name: gate & (kind == value) for name, value in ABILITY_KIND.items()}
    is_ = flags.__getitem__
    t = jnp.maximum(T.ab_type[c], 0)
    state = state.replace(ability_used=state.ability_used.at[p, slot].set(True))
    heal_all = is_("heal_all_own")
    damage = jnp.where(heal_all & (state.card[p] >= 0), jnp.maximum(state.damage[p] - T.ab_amount[c], 0), state.damage[p])
    targeted = is_("pull_opponent_bench_basic") | is_("damage_opponent_any")
    switch = is_("switch_out_opponent_active")
    energy = state.energy.at[p, slot, t].add(is_("zone_energy_to_self").astype(I32))
    energy = energy.at[p, 0, t].add(is_("zone_energy_to_active_of_type").astype(I32))
    state = state.replace(
        damage=state.damage.at[p].set(damage), energy=energy,
        phase=jnp.where(targeted, spec.ABILITY_TARGET, jnp.where(switch, spec.SWITCH_OUT, state.phase)),
        decider=jnp.where(targeted, p, jnp.where(switch, o, state.decider)),
        aux_index=jnp.where(targeted, slot, state.aux_index))
    sleep = is_("coin_opponent_asleep")
    heads = (core.value_at(state, 0) & 1) == 1
    state = apply_status(state, o, STATUS_CODE["asleep"], sleep & heads)
    state = core.advance(state, 1, sleep)
    state = apply_status(state, o, STATUS_CODE["poisoned"], is_("poison_opponent_active"))
    return merge(gate, state, old)


def answer_ability_target(T: CardTables, state: GameState, p, opp_slot, gate) -> GameState:
    c = jnp.maximum(state.card[p, jnp.maximum(state.aux_index, 0)], 0)
    kind = T.ab_kind[c]
    pulled = core.swap_active_with_bench(state, 1 - p, opp_slot, gate & (kind == ABILITY_KIND["pull_opponent_bench_basic"]))
    hit = core.add_damage(pulled, 1 - p, opp_slot, T.ab_amount[c], gate & (kind == ABILITY_KIND["damage_opponent_any"]))
    return hit.replace(aux_index=jnp.where(gate, -1, state.aux_index))


# ====================================================================== Attacks

def attack_targets(T: CardTables, state: GameState, p, card, a):
    """ATK-4: (needs a target, own slot mask, opponent slot mask)."""
    kind = T.atk_kind[card, a]
    is_ = lambda name: kind == ATTACK_KIND[name]  # noqa: E731
    o = 1 - p
    opp_any = is_("snipe_opponent_any")
    opp_bench = is_("snipe_opponent_bench")
    own_bench = is_("damage_own_bench_one") | is_("switch_self_with_bench")
    own_typed = is_("zone_energy_to_own_bench")
    needs = opp_any | opp_bench | own_bench | own_typed
    own = jnp.where(own_bench, core.bench_mask(state, p),
                    own_typed & (SLOTS > 0) & _slot_type_mask(T, state, p, T.atk_target_type[card, a]))
    opp = jnp.where(opp_any, state.card[o] >= 0, opp_bench & core.bench_mask(state, o))
    return needs, own, opp


def copy_options(T: CardTables, state: GameState, p):
    """Ditto: [4 slots, 2 attacks] bool of the opponent's copiable attacks."""
    o = 1 - p
    cards = jnp.maximum(state.card[o], 0)
    ok = (state.card[o] >= 0)[:, None] & (T.atk_exists[cards] == 1) & (T.atk_kind[cards] != ATTACK_KIND["copy_opponent_attack"])
    return ok


def can_pay(T: CardTables, energy, card, a):
    """ATK-1 for one Pokémon's Energy [8]."""
    cost = T.atk_cost[card, a]
    return jnp.all(energy >= cost) & (jnp.sum(energy) >= jnp.sum(cost) + T.atk_colorless[card, a])


def declare_attack(T: CardTables, state: GameState, p, a, gate):
    """ATK-1, ATK-3. Returns (state, start request gate, card)."""
    confused = gate & (state.special[p] == spec.CONFUSED)
    tails = (core.value_at(state, 0) & 1) == 0
    new = core.advance(state.replace(in_attack=jnp.bool_(True), counter_damage=jnp.int32(0)), 1, confused)
    state = merge(gate, new, state)
    return state, gate & ~(confused & tails), state.card[p, 0]


def start_attack(T: CardTables, state: GameState, p, card, a, gate):
    """Ask for a target or a copy (ATK-4); returns (state, resolve gate)."""
    kind = T.atk_kind[card, a]
    copy = kind == ATTACK_KIND["copy_opponent_attack"]
    any_copy = jnp.any(copy_options(T, state, p))
    needs, own, opp = attack_targets(T, state, p, card, a)
    ask = needs & (jnp.any(own) | jnp.any(opp))
    pending = gate & ((copy & any_copy) | ask)
    new = state.replace(phase=jnp.where(copy, spec.COPY_ATTACK, spec.ATTACK_TARGET), decider=p, aux_card=card, aux_index=a)
    return merge(pending, new, state), gate & ~copy & ~ask


def extra_energy(T: CardTables, energy, card, a, energy_type):
    """Energy of energy_type beyond what the attack cost needs (Hydro Pump, Hydro Bazooka)."""
    typed = T.atk_cost[card, a]
    others = jnp.arange(spec.NUM_ENERGY) != energy_type
    other_spare = jnp.sum(jnp.where(others, energy - typed, 0))
    used_for_colorless = jnp.maximum(0, T.atk_colorless[card, a] - other_spare)
    return energy[energy_type] - typed[energy_type] - used_for_colorless


def _damage_opponent(T: CardTables, state: GameState, p, units, counts, gate):
    """Attack damage to the opponent's Pokémon: `counts[s]` hits of `units[s]` base damage on slot s
    (DMG-1 for the Active, DMG-3 for the Bench), all at once: the formula does not depend on the
    damage already there. Notes Counterattack. Returns (state, dealt per slot)."""
    o = 1 - p
    slots = jnp.arange(spec.NUM_SLOTS)
    per_hit_active = core.attack_damage_to_active(T, state, p, units[0])
    reduction = core.incoming_reductions(T, state, o)
    per_hit_bench = jnp.where(units <= 0, 0, jnp.maximum(units - reduction, 0))
    per_hit = jnp.where(slots == 0, per_hit_active, per_hit_bench)
    dealt = jnp.where(gate & (state.card[o] >= 0), counts * per_hit, 0).astype(I32)
    defender = jnp.maximum(state.card[o, 0], 0)
    counter = (dealt[0] > 0) & (T.ab_kind[defender] == ABILITY_KIND["counterattack"])
    state = state.replace(damage=state.damage.at[o].add(dealt),
                          counter_damage=jnp.where(counter, T.ab_amount[defender], state.counter_damage))
    return state, dealt


def _discard_random_energy(state: GameState, p, slot, offset, gate):
    energy = state.energy[p, slot]
    total = jnp.sum(energy)
    ok = gate & (total > 0)
    k = core.pick_at(state, offset, total)
    t = jnp.argmax(jnp.cumsum(energy) > k)
    return state.replace(energy=state.energy.at[p, slot, t].add(-ok.astype(I32))), ok


def resolve_attack(T: CardTables, state: GameState, p, card, a, target, gate) -> GameState:
    """ATK-5, mirroring reference effects.resolve_attack (same stream order)."""
    old = state
    o = 1 - p
    kind = T.atk_kind[card, a]
    flags = {name: kind == value for name, value in ATTACK_KIND.items()}
    is_ = flags.__getitem__
    amount = T.atk_amount[card, a]
    etype = jnp.maximum(T.atk_type[card, a], 0)
    attacker_energy = state.energy[p, 0]
    # --- coins (all of an attack's coins come first in the stream)
    one_coin = (is_("coin_or_fail") | is_("coin_bonus") | is_("coin_bonus_else_self_damage") | is_("coin_inflict")
                | is_("coin_defender_cant_attack") | is_("coin_discard_random_opponent_energy") | is_("coin_protect_next_turn")
                | is_("coin_discard_random_opponent_hand_card") | is_("coin_shuffle_opponent_active_into_deck"))
    many = is_("coins_times_damage") | is_("all_heads_bonus") | is_("coins_zone_energy_to_own_bench")
    num_coins = jnp.where(one_coin, 1, jnp.where(many, T.atk_coins[card, a], 0))
    heads = core.coins_at(state, 0, num_coins, 4)
    until_tails = is_("flip_until_tails_times_damage")
    streak, streak_used = core.flip_until_tails_at(state, 0)
    used = jnp.where(until_tails, streak_used, num_coins)
    heads = jnp.where(until_tails, streak, heads)
    failed = is_("coin_or_fail") & (heads == 0)
    # --- base damage with the attack's own bonuses
    base = T.atk_damage[card, a]
    bench_p = core.bench_mask(state, p)
    bench_types = _slot_type_mask(T, state, p, T.atk_type[card, a]) & bench_p
    named_bench = bench_p & (T.name[jnp.maximum(state.card[p], 0)] == T.atk_name[card, a])
    bonus = jnp.select(
        [is_("coin_bonus") | is_("coin_bonus_else_self_damage"), is_("all_heads_bonus"),
         is_("extra_energy_bonus"), is_("bonus_if_opponent_damaged"), is_("bonus_per_opponent_energy"),
         is_("bonus_if_self_damaged"), is_("bonus_per_own_bench_named"), is_("bonus_if_opponent_poisoned")],
        [jnp.where(heads > 0, amount, 0), jnp.where(heads == num_coins, amount, 0),
         jnp.where(extra_energy(T, attacker_energy, card, a, etype) >= T.atk_extra[card, a], amount, 0),
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
        hit = meteor & (i < T.atk_times[card, a])
        slot = core.kth_true(occupied_o, core.pick_at(state, used, jnp.sum(occupied_o)))
        hits = hits + ((slots == slot) & hit).astype(I32)
        used = used + hit.astype(I32)
    snipe = (is_("snipe_opponent_any") | is_("snipe_opponent_bench")) & (target >= 0)
    blizzard = is_("damage_each_opponent_bench")
    main = (T.atk_damage[card, a] > 0).astype(I32)
    units = jnp.where(snipe | is_("random_opponent_hits"), amount, jnp.where(slots == 0, base, jnp.where(blizzard, amount, 0)))
    counts = jnp.where(snipe, (slots == target).astype(I32), jnp.where(is_("random_opponent_hits"), hits,
                       jnp.where(slots == 0, main, blizzard.astype(I32))))
    state, dealt_per_slot = _damage_opponent(T, state, p, units, counts, go)
    dealt = jnp.where(main > 0, dealt_per_slot[0], 0)
    protected = core.is_turn(state, state.protected_turn[o])
    next_turn = state.turn + 1
    # --- the other effects, in the reference's order
    state = core.heal(state, p, 0, amount, go & is_("heal_self"))
    state = core.heal(state, p, 0, dealt, go & is_("heal_self_by_damage_dealt"))
    self_hit = jnp.where(is_("self_damage"), amount, 0) + jnp.where(is_("coin_bonus_else_self_damage") & (heads == 0), T.atk_self_damage[card, a], 0)
    state = core.add_damage(state, p, 0, self_hit, go)
    state = apply_status(state, o, T.atk_status[card, a], go & ~protected & (is_("inflict") | (is_("coin_inflict") & (heads > 0))))
    own_discard = jnp.where(is_("discard_own_energy"), jnp.minimum(T.atk_count[card, a], state.energy[p, 0, etype]), 0)
    energy = state.energy.at[p, 0, etype].add(-jnp.where(go, own_discard, 0))
    energy = energy.at[p, 0].set(jnp.where(go & is_("discard_all_own_energy"), 0, energy[p, 0]))
    energy = energy.at[p, jnp.maximum(target, 0), etype].add((go & is_("zone_energy_to_own_bench") & (target >= 0)).astype(I32))
    energy = energy.at[p, 0, etype].add((go & is_("zone_energy_to_self")).astype(I32))
    state = state.replace(energy=energy)
    moltres = go & is_("coins_zone_energy_to_own_bench") & (heads > 0) & jnp.any(
        (SLOTS > 0) & _slot_type_mask(T, state, p, T.atk_target_type[card, a]))
    state = state.replace(
        phase=jnp.where(moltres, spec.PLACE_ENERGY, state.phase), decider=jnp.where(moltres, p, state.decider),
        aux_card=jnp.where(moltres, card, state.aux_card), aux_index=jnp.where(moltres, a, state.aux_index),
        aux_count=jnp.where(moltres, heads, state.aux_count), aux_type=jnp.where(moltres, etype, state.aux_type))
    on_defender = go & ~protected
    cant_attack = on_defender & (is_("defender_cant_attack") | (is_("coin_defender_cant_attack") & (heads > 0)))
    weaker = on_defender & is_("defender_attacks_weaker")
    protect = go & is_("coin_protect_next_turn") & (heads > 0)
    barrier = go & is_("reduce_damage_next_turn")
    state = state.replace(
        cant_attack_turn=state.cant_attack_turn.at[o].set(jnp.where(cant_attack, next_turn, state.cant_attack_turn[o])),
        cant_retreat_turn=state.cant_retreat_turn.at[o].set(jnp.where(on_defender & is_("defender_cant_retreat"), next_turn, state.cant_retreat_turn[o])),
        attack_minus_turn=state.attack_minus_turn.at[o].set(jnp.where(weaker, next_turn, state.attack_minus_turn[o])),
        attack_minus_amount=state.attack_minus_amount.at[o].set(jnp.where(weaker, amount, state.attack_minus_amount[o])),
        supporter_blocked_turn=state.supporter_blocked_turn.at[o].set(jnp.where(go & is_("opponent_no_supporter_next_turn"), next_turn, state.supporter_blocked_turn[o])),
        reduce_damage_turn=state.reduce_damage_turn.at[p].set(jnp.where(barrier, next_turn, state.reduce_damage_turn[p])),
        reduce_damage_amount=state.reduce_damage_amount.at[p].set(jnp.where(barrier, amount, state.reduce_damage_amount[p])),
        protected_turn=state.protected_turn.at[p].set(jnp.where(protect, next_turn, state.protected_turn[p])))
    # random Energy discard from the opponent's Active (after this attack's coins)
    discard_energy = on_defender & (is_("discard_random_opponent_energy") | (is_("coin_discard_random_opponent_energy") & (heads > 0)))
    state, picked = _discard_random_energy(state, o, 0, used, discard_energy)
    used = used + picked.astype(I32)
    # Raging Thunder: one own Benched Pokémon
    own_hit = core.attack_damage_to_bench(T, state, p, jnp.maximum(target, 0), amount)
    state = core.add_damage(state, p, jnp.maximum(target, 0), own_hit, go & is_("damage_own_bench_one") & (target >= 0))
    # Knock Back
    knock = go & ~protected & is_("switch_out_opponent_active") & jnp.any(core.bench_mask(state, o))
    state = state.replace(phase=jnp.where(knock, spec.SWITCH_OUT, state.phase), decider=jnp.where(knock, o, state.decider))
    # Call for Family
    family = go & is_("deck_random_named_to_bench") & jnp.any(core.empty_bench_mask(state, p))
    matches = (state.deck[p] >= 0) & (T.name[jnp.maximum(state.deck[p], 0)] == T.atk_name[card, a])
    found, position = _deck_random_pick(state, p, matches, family, used)
    benched = state.deck[p, position]
    moved = state.replace(deck=state.deck.at[p].set(core.remove_at(state.deck[p], position)), deck_size=state.deck_size.at[p].add(-1))
    moved = core.put_into_play(moved, p, core.first_empty_bench(state, p), benched)
    state = merge(found, moved, state)
    used = used + found.astype(I32)
    # Find a Friend
    friend = go & is_("deck_random_pokemon_of_type_to_hand")
    matches = (state.deck[p] >= 0) & (T.is_pokemon[jnp.maximum(state.deck[p], 0)] == 1) & (T.ptype[jnp.maximum(state.deck[p], 0)] == etype)
    found, position = _deck_random_pick(state, p, matches, friend, used)
    state = _move_deck_card_to_hand(state, p, position, found)
    used = used + found.astype(I32)
    # Pay Day
    state = core.draw(state, p, T.atk_count[card, a], go & is_("draw"), T.max_attack_draw)
    # Shadow Claw
    claw = go & is_("coin_discard_random_opponent_hand_card") & (heads > 0) & (state.hand_size[o] > 0)
    h = core.pick_at(state, used, state.hand_size[o])
    removed, lost = core.remove_from_hand(state, o, h)
    removed = core.add_to_discard(removed, o, lost)
    state = merge(claw, removed, state)
    used = used + claw.astype(I32)
    # Primal Wingbeat
    wing = on_defender & is_("coin_shuffle_opponent_active_into_deck") & (heads > 0) & (state.card[o, 0] >= 0)
    gone, cards = core.remove_from_play(state, o, 0)
    depth = jnp.sum(cards >= 0)
    shuffled, shuffle_used = _append_cards_to_deck_and_shuffle(gone, o, cards, depth, used, TRUE)
    state = merge(wing, shuffled, state)
    used = used + jnp.where(wing, shuffle_used, 0)
    # Teleport
    state = core.swap_active_with_bench(state, p, jnp.maximum(target, 0), go & is_("switch_self_with_bench") & (target >= 0))
    state = core.advance(state, used)
    return merge(gate, state, old)


def finish_attack(state: GameState, gate) -> GameState:
    """Counterattack, then the turn ends. In the turn player's frame (seat 0)."""
    p = 0
    hit = state.counter_damage * (state.card[p, 0] >= 0)
    new = core.add_damage(state, p, 0, hit).replace(counter_damage=jnp.int32(0), in_attack=jnp.bool_(False))
    return merge(gate, core.end_turn(new), state)
