"""The rules of the reference engine that are not card effects or action handling: zones, damage,
Knock Outs, winning, the turn cycle, the Checkup and the end of an attack (`settle`), plus the
payment and evolution checks the card effects share with the legal-action mask.

`GameCore` holds the state; `tcgjax.reference.effects` works on it, and `tcgjax.reference.engine`'s
`Game` adds creation, legality and the actions on top. Each method names the rule ids it
implements; `tcgjax.game.core` mirrors these methods in JAX.
"""

from __future__ import annotations

import functools
from typing import Sequence

from tcgjax import spec
from tcgjax.cards import COLORLESS, TYPE_INDEX, Card, CardDatabase
from tcgjax.reference.state import ActiveEffects, GameState, PlayerState, PokemonInPlay, card_hp
from tcgjax.rng import RandomStream


@functools.lru_cache(maxsize=None)
def named_bonus_names(database: CardDatabase) -> tuple[str, ...]:
    """Names helped by the (single) named attack bonus Supporter, Blaine."""
    found = {tuple(c.effect["names"]) for c in database.cards if c.effect and c.effect["kind"] == "named_attack_bonus"}
    if len(found) > 1:
        raise NotImplementedError("more than one named attack bonus Supporter needs per-card state")
    return found.pop() if found else ()


class GameCore:
    """A game's state and the rules that change it apart from the players' actions."""

    def __init__(self, state: GameState, database: CardDatabase, max_turns: int = spec.DEFAULT_MAX_TURNS) -> None:
        self.state = state
        self.db = database
        self.max_turns = max_turns
        self.rng = RandomStream(state.seed, state.rng_counter)

    # ------------------------------------------------------------------ small helpers
    def card(self, index: int) -> Card:
        return self.db[index]

    def _is_basic_card(self, index: int) -> bool:
        return self.db[index].is_basic_pokemon

    def _sync_rng(self) -> None:
        self.state.rng_counter = self.rng.counter

    def player(self, p: int) -> PlayerState:
        return self.state.players[p]

    def top_card(self, mon: PokemonInPlay) -> Card:
        return self.db[mon.top]

    def hp(self, mon: PokemonInPlay) -> int:
        return card_hp(self.top_card(mon))

    def pokemon_type(self, mon: PokemonInPlay) -> int:
        card = self.top_card(mon)
        return COLORLESS if card.is_fossil else TYPE_INDEX[card.type]

    def pokemon_name(self, mon: PokemonInPlay) -> str:
        return self.top_card(mon).name

    def ability(self, mon: PokemonInPlay) -> dict | None:
        return self.top_card(mon).ability

    def _roll_energy(self, player: PlayerState) -> int:
        """ENERGY-2."""
        return player.energy_types[self.rng.pick(len(player.energy_types))]

    def is_turn(self, turn: int) -> bool:
        return turn != 0 and turn == self.state.turn

    # ------------------------------------------------------------------ zones
    def draw(self, p: int, count: int) -> None:
        """TURN-2 and draw effects: one card at a time from the top; LIMIT-1, LIMIT-2."""
        player = self.player(p)
        for _ in range(count):
            if not player.deck or len(player.hand) >= spec.HAND_DRAW_LIMIT:
                return
            player.hand.append(player.deck.pop(0))

    def put_into_play(self, p: int, slot: int, card: int) -> None:
        """BENCH-1/2 (and setup)."""
        self.player(p).slots[slot] = PokemonInPlay(cards=[card], turn_played=self.state.turn)

    def clear_active_effects(self, p: int) -> None:
        """STATUS-3, DMG-7: conditions and attack effects end when the Active changes."""
        self.player(p).active_effects = ActiveEffects()

    def swap_active_with_bench(self, p: int, bench_slot: int) -> None:
        """RETREAT-5, KO-5: the Active goes to the Bench slot and loses its conditions."""
        slots = self.player(p).slots
        slots[0], slots[bench_slot] = slots[bench_slot], slots[0]
        self.clear_active_effects(p)

    def remove_from_play(self, p: int, slot: int) -> PokemonInPlay:
        player = self.player(p)
        mon = player.slots[slot]
        player.slots[slot] = None
        if slot == 0:
            self.clear_active_effects(p)
        return mon

    def discard_from_play(self, p: int, slot: int) -> None:
        """KO-1 and fossil discards: the stack goes to the discard pile, bottom card first."""
        mon = self.remove_from_play(p, slot)
        self.player(p).discard.extend(mon.cards)

    # ------------------------------------------------------------------ damage (DMG-1..6)
    def attack_damage_to_active(self, attacker_p: int, base: int) -> int:
        """DMG-1, DMG-2, DMG-5: damage an attack of the Active of `attacker_p` does to the opponent's
        Active, for a base that already includes the attack's own bonuses."""
        me, opp = self.player(attacker_p), self.player(1 - attacker_p)
        attacker, defender = me.active, opp.active
        if defender is None or self.is_turn(opp.active_effects.protected_turn) or base <= 0:
            return 0
        damage = base + me.attack_bonus
        if self.pokemon_name(attacker) in named_bonus_names(self.db):
            damage += me.named_attack_bonus
        if self.is_turn(me.active_effects.attack_minus_turn):
            damage -= me.active_effects.attack_minus_amount
        if damage <= 0:
            return 0
        weakness = self.top_card(defender).weakness
        if weakness is not None and TYPE_INDEX[weakness] == self.pokemon_type(attacker):
            damage += spec.WEAKNESS_BONUS
        damage -= self.incoming_reduction(1 - attacker_p, 0)
        return max(0, damage)

    def incoming_reduction(self, p: int, slot: int) -> int:
        """DMG-1 step 5: Shell Armor, Hard Coat (any slot) and Barrier Attack (the Active)."""
        mon = self.player(p).slots[slot]
        reduction = 0
        ability = self.ability(mon)
        if ability is not None and ability["kind"] == "reduce_incoming":
            reduction += ability["amount"]
        if slot == 0 and self.is_turn(self.player(p).active_effects.reduce_damage_turn):
            reduction += self.player(p).active_effects.reduce_damage_amount
        return reduction

    def attack_damage_to_bench(self, target_p: int, slot: int, base: int) -> int:
        """DMG-3: no Weakness, no attacker-side modifiers; defender Abilities still reduce."""
        if base <= 0:
            return 0
        return max(0, base - self.incoming_reduction(target_p, slot))

    def add_damage(self, p: int, slot: int, amount: int) -> None:
        self.player(p).slots[slot].damage += amount

    def heal(self, mon: PokemonInPlay, amount: int) -> None:
        """DMG-6: never below 0 damage."""
        mon.damage = max(0, mon.damage - amount)

    # ------------------------------------------------------------------ Knock Outs, winning (KO, WIN)
    def resolve_knockouts(self) -> None:
        """KO-1, KO-2, KO-3, then WIN-1/2. Seat 0 before seat 1, slot 0 to 3."""
        for p in (0, 1):
            player = self.player(p)
            for slot in range(spec.NUM_SLOTS):
                mon = player.slots[slot]
                if mon is not None and mon.damage >= self.hp(mon):
                    points = 2 if self.top_card(mon).ex else 1
                    self.discard_from_play(p, slot)
                    self.player(1 - p).points += points
        self.check_win()

    def check_win(self) -> None:
        """WIN-1, WIN-2: count each player's win conditions."""
        s = self.state
        if s.game_over:
            return
        conditions = []
        for p in (0, 1):
            met = int(self.player(p).points >= spec.POINTS_TO_WIN)
            met += int(not self.player(1 - p).has_pokemon_in_play())
            conditions.append(met)
        if max(conditions) == 0:
            return
        s.game_over = True
        s.phase = spec.GAME_OVER
        s.winner = -1 if conditions[0] == conditions[1] else int(conditions[1] > conditions[0])

    def needs_promotion(self, p: int) -> bool:
        player = self.player(p)
        return player.active is None and bool(player.bench_slots())

    # ------------------------------------------------------------------ turn flow (TURN, CHECKUP)
    def start_turn(self) -> None:
        """TURN-1, TURN-2, TURN-3 (ENERGY-1), TURN-5."""
        s = self.state
        s.turn += 1
        s.turn_player = s.first_player if s.turn == 1 else 1 - s.turn_player
        s.turn_ending = False
        s.checkup_done = False
        for player in s.players:
            player.supporter_played = False
            player.retreated = False
            player.retreat_reduction = 0
            player.attack_bonus = 0
            player.named_attack_bonus = 0
            for mon in player.slots:
                if mon is not None:
                    mon.ability_used = False
        me = self.player(s.turn_player)
        self.draw(s.turn_player, 1)
        if s.turn > 1:
            me.energy_current = me.energy_next
            me.energy_next = self._roll_energy(me)
        s.phase = spec.MAIN
        s.decider = s.turn_player

    def end_turn(self) -> None:
        """TURN-4, TURN-5: the turn's unattached Energy is lost."""
        s = self.state
        self.player(s.turn_player).energy_current = -1
        s.turn_ending = True

    def checkup(self) -> None:
        """CHECKUP-1..5; Knock Outs after (CHECKUP-6) are done by the caller."""
        s = self.state
        order = (s.turn_player, 1 - s.turn_player)
        for p in order:
            mon, fx = self.player(p).active, self.player(p).active_effects
            if mon is not None and fx.poisoned:
                mon.damage += spec.POISON_DAMAGE
        for p in order:
            mon, fx = self.player(p).active, self.player(p).active_effects
            if mon is not None and fx.burned:
                mon.damage += spec.BURN_DAMAGE
                if self.rng.coin():
                    fx.burned = False
        for p in order:
            mon, fx = self.player(p).active, self.player(p).active_effects
            if mon is not None and fx.special == spec.ASLEEP and self.rng.coin():
                fx.special = spec.NO_SPECIAL
        for p in order:
            mon, fx = self.player(p).active, self.player(p).active_effects
            if mon is not None and fx.special == spec.PARALYZED and p == s.turn_player:
                fx.special = spec.NO_SPECIAL

    def finish_attack(self) -> None:
        """Counterattack damage to the attacking (Active) Pokémon, then the turn ends (ATK-1)."""
        s = self.state
        me = self.player(s.turn_player)
        if s.counter_damage and me.active is not None:
            me.active.damage += s.counter_damage
        s.counter_damage = 0
        s.in_attack = False
        self.end_turn()

    def settle(self) -> None:
        """Everything that happens by itself once no choice is pending: the end of an attack,
        Knock Outs, the end of the turn with its Checkup and turn limit, promotions, the next turn."""
        s = self.state
        if s.in_attack:
            self.finish_attack()
        self.resolve_knockouts()
        if s.game_over:
            return
        if s.turn_ending and not s.checkup_done:
            self.checkup()
            s.checkup_done = True
            self.resolve_knockouts()
            if s.game_over:
                return
            if s.turn >= self.max_turns:  # WIN-3
                s.game_over, s.truncated, s.winner, s.phase = True, True, -1, spec.GAME_OVER
                return
        # KO-4: the player who plays next promotes first.
        for p in (1 - s.turn_player, s.turn_player):
            if self.needs_promotion(p):
                s.phase, s.decider = spec.PROMOTE, p
                return
        if s.turn_ending:
            self.start_turn()
        else:
            s.phase, s.decider = spec.MAIN, s.turn_player

    # ------------------------------------------------------------------ checks the card effects share
    def can_pay(self, mon: PokemonInPlay, cost: Sequence[str]) -> bool:
        """ATK-1: typed symbols need their type, Colorless any Energy."""
        need = [0] * len(mon.energy)
        colorless = 0
        for symbol in cost:
            if symbol == "colorless":
                colorless += 1
            else:
                need[TYPE_INDEX[symbol]] += 1
        if any(have < n for have, n in zip(mon.energy, need)):
            return False
        return mon.total_energy >= sum(need) + colorless

    def evolution_targets(self, p: int, card: Card) -> list[int]:
        """EVOLVE-1, EVOLVE-2."""
        if self.state.turn <= 2:
            return []
        targets = []
        for slot, mon in enumerate(self.player(p).slots):
            if mon is not None and self.pokemon_name(mon) == card.evolves_from and mon.turn_played < self.state.turn:
                targets.append(slot)
        return targets
