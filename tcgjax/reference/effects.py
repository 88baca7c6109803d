"""Card effects of the reference engine: one function per effect kind of tcgjax.cards.

Attacks (ATK-1..5) go: `declare_attack` (Confusion, ATK-3) -> a target if the text asks for one
(ATK-4) -> `resolve_attack` (coins and damage, then the other effects in text order) -> perhaps one
more choice (Moltres ex, Knock Back); the engine's `settle` then finishes the attack (Counterattack,
end of the turn, `Game.finish_attack`) and resolves Knock Outs.
"""

from __future__ import annotations

from typing import Callable

from tcgjax import spec
from tcgjax.cards import TYPE_INDEX, Attack, Card
from tcgjax.reference.core import GameCore

STATUS_CODES = {"asleep": spec.ASLEEP, "paralyzed": spec.PARALYZED, "confused": spec.CONFUSED}


def _protected(game: GameCore, p: int) -> bool:
    """DMG-5: Dig protects player p's Active this turn."""
    return game.is_turn(game.player(p).active_effects.protected_turn)


def apply_status(game: GameCore, p: int, status: str) -> None:
    """STATUS-2."""
    fx = game.player(p).active_effects
    if status == "poisoned":
        fx.poisoned = True
    elif status == "burned":
        fx.burned = True
    else:
        fx.special = STATUS_CODES[status]


def _pokemon_of_type(game: GameCore, p: int, slots, target_type: str) -> list[int]:
    player = game.player(p)
    return [s for s in slots if player.slots[s] is not None
            and (target_type == "any" or game.pokemon_type(player.slots[s]) == TYPE_INDEX[target_type])]


# ====================================================================== Trainers (TRAINER-1..3)

def trainer_targets(game: GameCore, p: int, card: Card) -> list[int]:
    """Own slots a targeted Trainer may choose (TRAINER-2); [] for untargeted ones."""
    effect, player = card.effect, game.player(p)
    kind = effect["kind"]
    if kind == "heal_target":
        return [s for s in _pokemon_of_type(game, p, range(spec.NUM_SLOTS), effect["target_type"]) if player.slots[s].damage > 0]
    if kind == "flip_until_tails_energy_to_target":
        return _pokemon_of_type(game, p, range(spec.NUM_SLOTS), effect["target_type"])
    if kind == "zone_energy_to_named":
        return [s for s in player.occupied_slots() if game.pokemon_name(player.slots[s]) in effect["names"]]
    return []


TARGETED_TRAINERS = frozenset({"heal_target", "flip_until_tails_energy_to_target", "zone_energy_to_named"})


def trainer_playable(game: GameCore, p: int, card: Card) -> bool:
    effect, player, opp = card.effect, game.player(p), game.player(1 - p)
    kind = effect["kind"]
    if kind in TARGETED_TRAINERS:
        return bool(trainer_targets(game, p, card))
    if kind == "fossil":
        return bool(player.empty_bench_slots())
    if kind == "return_active_to_hand":
        return player.active is not None and game.pokemon_name(player.active) in effect["names"] and bool(player.bench_slots())
    if kind == "switch_out_opponent_active":
        return bool(opp.bench_slots())
    if kind == "move_bench_energy_to_active":
        return player.active is not None and game.pokemon_name(player.active) in effect["names"]
    return True


def play_trainer(game: GameCore, p: int, card: Card) -> None:
    """TRAINER-1: the card leaves the hand (the caller popped it), goes to the discard pile unless
    it is a fossil, then its effect resolves."""
    s, player, opp = game.state, game.player(p), game.player(1 - p)
    effect = card.effect
    kind = effect["kind"]
    if card.trainer_kind == "supporter":
        player.supporter_played = True
    if kind == "fossil":
        game.put_into_play(p, player.empty_bench_slots()[0], card.index)
        return
    player.discard.append(card.index)
    if kind in TARGETED_TRAINERS:
        s.phase, s.decider, s.aux_card = spec.TRAINER_TARGET, p, card.index
    elif kind == "retreat_reduction":
        player.retreat_reduction += effect["amount"]
    elif kind in ("reveal_opponent_hand", "look_top_of_deck"):
        pass  # INFO-3: information only
    elif kind == "deck_random_basic_to_hand":
        _deck_random_to_hand(game, p, lambda c: c.is_basic_pokemon)
    elif kind == "opponent_shuffle_hand_draw":
        opp.deck.extend(opp.hand)
        opp.hand = []
        game.rng.shuffle(opp.deck)
        game.draw(1 - p, effect["count"])
    elif kind == "draw":
        game.draw(p, effect["count"])
    elif kind == "named_attack_bonus":
        player.named_attack_bonus = effect["amount"]
    elif kind == "attack_bonus":
        player.attack_bonus = effect["amount"]
    elif kind == "return_active_to_hand":
        mon = game.remove_from_play(p, 0)
        player.hand.extend(mon.cards)  # KO-4: the promotion follows in settle()
    elif kind == "switch_out_opponent_active":
        s.phase, s.decider = spec.SWITCH_OUT, 1 - p
    elif kind == "move_bench_energy_to_active":
        t = TYPE_INDEX[effect["type"]]
        for b in player.bench_slots():
            player.active.energy[t] += player.slots[b].energy[t]
            player.slots[b].energy[t] = 0
    else:  # pragma: no cover - the database validator rules this out
        raise NotImplementedError(kind)


def _answer_trainer_target(game: GameCore, p: int, slot: int) -> None:
    card = game.card(game.state.aux_card)
    effect, mon = card.effect, game.player(p).slots[slot]
    kind = effect["kind"]
    if kind == "heal_target":
        game.heal(mon, effect["amount"])
    elif kind == "flip_until_tails_energy_to_target":
        mon.energy[TYPE_INDEX[effect["type"]]] += game.rng.flip_until_tails()
    elif kind == "zone_energy_to_named":
        mon.energy[TYPE_INDEX[effect["type"]]] += 1


def _deck_random_to_hand(game: GameCore, p: int, matches: Callable[[Card], bool]) -> None:
    """RNG-4: a uniform pick among the matching deck cards; the deck keeps its order."""
    player = game.player(p)
    positions = [i for i, c in enumerate(player.deck) if matches(game.card(c))]
    if positions:
        player.hand.append(player.deck.pop(positions[game.rng.pick(len(positions))]))


# ====================================================================== Abilities (ABILITY-1..3)

def ability_targets(game: GameCore, p: int, ability: dict) -> list[int]:
    """Opponent slots the Ability may choose."""
    opp = game.player(1 - p)
    if ability["kind"] == "pull_opponent_bench_basic":
        return [b for b in opp.bench_slots() if len(opp.slots[b].cards) == 1]
    if ability["kind"] == "damage_opponent_any":
        return opp.occupied_slots()
    return []


def ability_usable(game: GameCore, p: int, slot: int, ability: dict) -> bool:
    player, opp = game.player(p), game.player(1 - p)
    kind = ability["kind"]
    if kind == "heal_all_own":
        return any(player.slots[s].damage > 0 for s in player.occupied_slots())
    if kind in ("pull_opponent_bench_basic", "damage_opponent_any"):
        return bool(ability_targets(game, p, ability))
    if kind == "zone_energy_to_active_of_type":
        return player.active is not None and game.pokemon_type(player.active) == TYPE_INDEX[ability["type"]]
    if kind in ("coin_opponent_asleep", "poison_opponent_active"):
        return opp.active is not None
    if kind == "switch_out_opponent_active":
        return bool(opp.bench_slots())
    return True  # zone_energy_to_self, look_top_of_deck


def use_ability(game: GameCore, p: int, slot: int) -> None:
    s, player = game.state, game.player(p)
    mon = player.slots[slot]
    ability = game.ability(mon)
    kind = ability["kind"]
    mon.ability_used = True
    if kind == "heal_all_own":
        for other in player.occupied_slots():
            game.heal(player.slots[other], ability["amount"])
    elif kind in ("pull_opponent_bench_basic", "damage_opponent_any"):
        s.phase, s.decider, s.aux_index = spec.ABILITY_TARGET, p, slot
    elif kind == "zone_energy_to_self":
        mon.energy[TYPE_INDEX[ability["type"]]] += 1
    elif kind == "coin_opponent_asleep":
        if game.rng.coin():
            apply_status(game, 1 - p, "asleep")
    elif kind == "zone_energy_to_active_of_type":
        player.active.energy[TYPE_INDEX[ability["type"]]] += 1
    elif kind == "poison_opponent_active":
        apply_status(game, 1 - p, "poisoned")
    elif kind == "switch_out_opponent_active":
        s.phase, s.decider = spec.SWITCH_OUT, 1 - p
    elif kind == "look_top_of_deck":
        pass  # INFO-3
    else:  # pragma: no cover
        raise NotImplementedError(kind)


def _answer_ability_target(game: GameCore, p: int, opp_slot: int) -> None:
    ability = game.ability(game.player(p).slots[game.state.aux_index])
    if ability["kind"] == "pull_opponent_bench_basic":
        game.swap_active_with_bench(1 - p, opp_slot)
    else:  # damage_opponent_any: DMG-4, no modifiers
        game.add_damage(1 - p, opp_slot, ability["amount"])


# ====================================================================== Attacks (ATK-1..5)

def declare_attack(game: GameCore, p: int, attack_index: int) -> None:
    """ATK-1, ATK-3."""
    s = game.state
    s.in_attack = True
    s.counter_damage = 0
    if game.player(p).active_effects.special == spec.CONFUSED and not game.rng.coin():
        return  # tails: the attack does nothing and the turn ends (settle -> Game.finish_attack)
    start_attack(game, p, game.player(p).active.top, attack_index)


def attack_of(game: GameCore, card_index: int, attack_index: int) -> Attack:
    return game.card(card_index).attacks[attack_index]


def attack_targets(game: GameCore, p: int, attack: Attack) -> tuple[list[int], list[int]] | None:
    """ATK-4: (own slots, opponent slots) the attack may target, or None if it takes no target."""
    kind = attack.effect["kind"] if attack.effect else None
    player, opp = game.player(p), game.player(1 - p)
    if kind == "snipe_opponent_any":
        return [], opp.occupied_slots()
    if kind == "snipe_opponent_bench":
        return [], opp.bench_slots()
    if kind in ("damage_own_bench_one", "switch_self_with_bench"):
        return player.bench_slots(), []
    if kind == "zone_energy_to_own_bench":
        return _pokemon_of_type(game, p, spec.BENCH_SLOTS, attack.effect["target_type"]), []
    return None


def copy_options(game: GameCore, p: int) -> list[tuple[int, int]]:
    """Ditto: every attack of the opponent's Pokémon in play except Copy Anything itself."""
    opp = game.player(1 - p)
    options = []
    for slot in opp.occupied_slots():
        card = game.top_card(opp.slots[slot])
        for a, attack in enumerate(card.attacks if card.is_pokemon else ()):
            if not (attack.effect and attack.effect["kind"] == "copy_opponent_attack"):
                options.append((slot, a))
    return options


def start_attack(game: GameCore, p: int, card_index: int, attack_index: int) -> None:
    """Ask for the attack's target when it needs one (ATK-4), else resolve it."""
    s = game.state
    attack = attack_of(game, card_index, attack_index)
    kind = attack.effect["kind"] if attack.effect else None
    if kind == "copy_opponent_attack":
        if copy_options(game, p):
            s.phase, s.decider, s.aux_card, s.aux_index = spec.COPY_ATTACK, p, card_index, attack_index
        return
    targets = attack_targets(game, p, attack)
    if targets is not None and (targets[0] or targets[1]):
        s.phase, s.decider, s.aux_card, s.aux_index = spec.ATTACK_TARGET, p, card_index, attack_index
        return
    resolve_attack(game, p, card_index, attack_index, target=-1)


def extra_energy(mon, cost, energy_type: int) -> int:
    """Energy of `energy_type` beyond what the cost needs, Colorless symbols being paid with other
    types first (Hydro Pump, Hydro Bazooka)."""
    typed = [0] * len(mon.energy)
    colorless = 0
    for symbol in cost:
        if symbol == "colorless":
            colorless += 1
        else:
            typed[TYPE_INDEX[symbol]] += 1
    other_spare = sum(mon.energy[t] - typed[t] for t in range(len(mon.energy)) if t != energy_type)
    used_for_colorless = max(0, colorless - other_spare)
    return mon.energy[energy_type] - typed[energy_type] - used_for_colorless


def _damage_opponent_slot(game: GameCore, p: int, slot: int, base: int) -> int:
    """Attack damage to one of the opponent's Pokémon (DMG-1/3); notes Counterattack."""
    if slot == 0:
        dealt = game.attack_damage_to_active(p, base)
        defender = game.player(1 - p).active
        if dealt > 0:
            ability = game.ability(defender)
            if ability is not None and ability["kind"] == "counterattack":
                game.state.counter_damage = ability["amount"]
    else:
        dealt = game.attack_damage_to_bench(1 - p, slot, base)
    if dealt > 0:
        game.add_damage(1 - p, slot, dealt)
    return dealt


def resolve_attack(game: GameCore, p: int, card_index: int, attack_index: int, target: int) -> None:
    """ATK-5: coins and text bonuses, damage to the opponent's Active, then the other effects."""
    s, rng = game.state, game.rng
    me, opp = game.player(p), game.player(1 - p)
    attacker = me.active
    attack = attack_of(game, card_index, attack_index)
    effect = attack.effect or {}
    kind = effect.get("kind")
    base = attack.damage
    heads = 0
    # --- coins and bonuses that decide the damage
    if kind == "coin_or_fail":
        if not rng.coin():
            return
    elif kind == "coin_bonus":
        if rng.coin():
            base += effect["amount"]
    elif kind == "coin_bonus_else_self_damage":
        heads = int(rng.coin())
        if heads:
            base += effect["amount"]
    elif kind == "coins_times_damage":
        base *= sum(rng.coin() for _ in range(effect["coins"]))
    elif kind == "flip_until_tails_times_damage":
        base *= rng.flip_until_tails()
    elif kind == "all_heads_bonus":
        if sum(rng.coin() for _ in range(effect["coins"])) == effect["coins"]:
            base += effect["amount"]
    elif kind == "extra_energy_bonus":
        if extra_energy(attacker, attack.cost, TYPE_INDEX[effect["type"]]) >= effect["extra"]:
            base += effect["amount"]
    elif kind == "bonus_if_opponent_damaged":
        if opp.active.damage > 0:
            base += effect["amount"]
    elif kind == "times_own_bench":
        base *= len(_pokemon_of_type(game, p, me.bench_slots(), effect["type"]))
    elif kind == "bonus_per_opponent_energy":
        base += effect["amount"] * opp.active.total_energy
    elif kind == "bonus_if_self_damaged":
        if attacker.damage > 0:
            base += effect["amount"]
    elif kind == "bonus_per_own_bench_named":
        base += effect["amount"] * sum(game.pokemon_name(me.slots[b]) == effect["card_name"] for b in me.bench_slots())
    elif kind == "bonus_if_opponent_poisoned":
        if opp.active_effects.poisoned:
            base += effect["amount"]
    # --- damage to the Defending Pokémon
    dealt = _damage_opponent_slot(game, p, 0, base) if attack.damage > 0 else 0
    # --- the other effects
    protected = _protected(game, 1 - p)
    next_turn = s.turn + 1
    if kind == "heal_self":
        game.heal(attacker, effect["amount"])
    elif kind == "heal_self_by_damage_dealt":
        game.heal(attacker, dealt)
    elif kind == "self_damage":
        attacker.damage += effect["amount"]
    elif kind == "coin_bonus_else_self_damage":
        if not heads:
            attacker.damage += effect["self_damage"]
    elif kind == "inflict":
        if not protected:
            apply_status(game, 1 - p, effect["status"])
    elif kind == "coin_inflict":
        if rng.coin() and not protected:
            apply_status(game, 1 - p, effect["status"])
    elif kind == "discard_own_energy":
        t = TYPE_INDEX[effect["type"]]
        attacker.energy[t] -= min(effect["count"], attacker.energy[t])
    elif kind == "discard_all_own_energy":
        attacker.energy = [0] * len(attacker.energy)
    elif kind == "zone_energy_to_own_bench":
        if target >= 0:
            me.slots[target].energy[TYPE_INDEX[effect["type"]]] += 1
    elif kind == "coins_zone_energy_to_own_bench":
        won = sum(rng.coin() for _ in range(effect["coins"]))
        if won and _pokemon_of_type(game, p, spec.BENCH_SLOTS, effect["target_type"]):
            s.phase, s.decider, s.aux_card, s.aux_index = spec.PLACE_ENERGY, p, card_index, attack_index
            s.aux_count, s.aux_type = won, TYPE_INDEX[effect["type"]]
    elif kind == "zone_energy_to_self":
        attacker.energy[TYPE_INDEX[effect["type"]]] += 1
    elif kind == "coin_defender_cant_attack":
        if rng.coin() and not protected:
            opp.active_effects.cant_attack_turn = next_turn
    elif kind == "defender_cant_attack":
        if not protected:
            opp.active_effects.cant_attack_turn = next_turn
    elif kind == "defender_cant_retreat":
        if not protected:
            opp.active_effects.cant_retreat_turn = next_turn
    elif kind == "defender_attacks_weaker":
        if not protected:
            opp.active_effects.attack_minus_turn = next_turn
            opp.active_effects.attack_minus_amount = effect["amount"]
    elif kind == "opponent_no_supporter_next_turn":
        opp.supporter_blocked_turn = next_turn
    elif kind in ("snipe_opponent_any", "snipe_opponent_bench"):
        if target >= 0:
            _damage_opponent_slot(game, p, target, effect["amount"])
    elif kind == "discard_random_opponent_energy":
        if not protected:
            _discard_random_energy(game, opp.active)
    elif kind == "coin_discard_random_opponent_energy":
        if rng.coin() and not protected:
            _discard_random_energy(game, opp.active)
    elif kind == "damage_each_opponent_bench":
        for b in opp.bench_slots():
            _damage_opponent_slot(game, p, b, effect["amount"])
    elif kind == "damage_own_bench_one":
        if target >= 0:
            game.add_damage(p, target, game.attack_damage_to_bench(p, target, effect["amount"]))
    elif kind == "reduce_damage_next_turn":
        me.active_effects.reduce_damage_turn = next_turn
        me.active_effects.reduce_damage_amount = effect["amount"]
    elif kind == "coin_protect_next_turn":
        if rng.coin():
            me.active_effects.protected_turn = next_turn
    elif kind == "switch_out_opponent_active":
        if not protected and opp.bench_slots():
            s.phase, s.decider = spec.SWITCH_OUT, 1 - p
    elif kind == "deck_random_named_to_bench":
        positions = [i for i, c in enumerate(me.deck) if game.card(c).name == effect["card_name"]]
        if positions and me.empty_bench_slots():
            card = me.deck.pop(positions[rng.pick(len(positions))])
            game.put_into_play(p, me.empty_bench_slots()[0], card)
    elif kind == "deck_random_pokemon_of_type_to_hand":
        _deck_random_to_hand(game, p, lambda c: c.is_pokemon and c.type == effect["type"])
    elif kind == "random_opponent_hits":
        for _ in range(effect["times"]):
            slots = opp.occupied_slots()
            _damage_opponent_slot(game, p, slots[rng.pick(len(slots))], effect["amount"])
    elif kind == "draw":
        game.draw(p, effect["count"])
    elif kind == "coin_discard_random_opponent_hand_card":
        if rng.coin() and opp.hand:
            opp.discard.append(opp.hand.pop(rng.pick(len(opp.hand))))
    elif kind == "coin_shuffle_opponent_active_into_deck":
        if rng.coin() and not protected:
            mon = game.remove_from_play(1 - p, 0)
            opp.deck.extend(mon.cards)
            rng.shuffle(opp.deck)
    elif kind == "switch_self_with_bench":
        if target >= 0:
            game.swap_active_with_bench(p, target)


def _discard_random_energy(game: GameCore, mon) -> None:
    """A uniform pick among the attached Energy, counted type by type in type order."""
    total = mon.total_energy
    if total == 0:
        return
    k = game.rng.pick(total)
    for t, count in enumerate(mon.energy):
        if k < count:
            mon.energy[t] -= 1
            return
        k -= count


# ====================================================================== pending choices

def pending_targets(game: GameCore) -> tuple[list[int], list[int]]:
    """(own slots, opponent slots) that answer the pending choice, for the legal-action mask."""
    s = game.state
    p = s.decider
    if s.phase == spec.EVOLVE_TARGET:
        return game.evolution_targets(p, game.card(s.aux_card)), []
    if s.phase == spec.TRAINER_TARGET:
        return trainer_targets(game, p, game.card(s.aux_card)), []
    if s.phase == spec.ABILITY_TARGET:
        return [], ability_targets(game, p, game.ability(game.player(p).slots[s.aux_index]))
    if s.phase == spec.ATTACK_TARGET:
        return attack_targets(game, p, attack_of(game, s.aux_card, s.aux_index))
    if s.phase == spec.PLACE_ENERGY:
        effect = attack_of(game, s.aux_card, s.aux_index).effect
        return _pokemon_of_type(game, p, spec.BENCH_SLOTS, effect["target_type"]), []
    raise AssertionError(f"no targets for phase {s.phase}")


def answer_choice(game: GameCore, action: int) -> None:
    """Resolve TRAINER_TARGET, ABILITY_TARGET, ATTACK_TARGET, COPY_ATTACK and PLACE_ENERGY."""
    s = game.state
    p = s.decider
    phase = s.phase
    s.phase = spec.MAIN
    if phase == spec.TRAINER_TARGET:
        _answer_trainer_target(game, p, action - spec.CHOOSE_SELF)
        s.aux_card = -1
    elif phase == spec.ABILITY_TARGET:
        _answer_ability_target(game, p, action - spec.CHOOSE_OPP)
        s.aux_index = -1
    elif phase == spec.ATTACK_TARGET:
        target = action - (spec.CHOOSE_OPP if action >= spec.CHOOSE_OPP else spec.CHOOSE_SELF)
        card_index, attack_index = s.aux_card, s.aux_index
        s.aux_card, s.aux_index = -1, -1
        resolve_attack(game, p, card_index, attack_index, target)
    elif phase == spec.COPY_ATTACK:
        k = action - spec.CHOOSE_COPY
        s.aux_card, s.aux_index = -1, -1
        copied = game.player(1 - p).slots[k // 2].top
        if game.can_pay(game.player(p).active, attack_of(game, copied, k % 2).cost):
            start_attack(game, p, copied, k % 2)
    elif phase == spec.PLACE_ENERGY:
        game.player(p).slots[action - spec.CHOOSE_SELF].energy[s.aux_type] += 1
        s.aux_count -= 1
        if s.aux_count > 0:
            s.phase = spec.PLACE_ENERGY
        else:
            s.aux_card, s.aux_index, s.aux_type = -1, -1, -1
    else:  # pragma: no cover
        raise AssertionError(phase)
