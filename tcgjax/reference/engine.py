"""The reference engine: the executable form of docs/tcg/rules.md.

`Game` holds a GameState and applies one flat action at a time (`step`), enumerates the legal
actions (`legal_actions`); each method names the rule ids it implements. The rules that run by
themselves (zones, damage, Knock Outs, the turn cycle) are `GameCore`'s (tcgjax.reference.core),
card effects live in `tcgjax.reference.effects`, one function per effect kind. All randomness comes
from `self.rng`, the game's explicit stream (RNG-1), in the order the rules consume it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from tcgjax import spec
from tcgjax.cards import PASSIVE_ABILITY_KINDS, TYPE_INDEX, Card, CardDatabase, load_cards
from tcgjax.decks import Deck, validate_deck
from tcgjax.reference import effects
from tcgjax.reference.core import GameCore
from tcgjax.reference.state import GameState, PlayerState, canonical


class IllegalActionError(ValueError):
    """The action is not legal in the current state."""


class Game(GameCore):
    """One two-player game. Create with `Game.new(decks, seed)`."""

    # ------------------------------------------------------------------ creation (SETUP-1..5)
    @classmethod
    def new(cls, decks: Sequence[Deck], seed: int, *, max_turns: int = spec.DEFAULT_MAX_TURNS,
            opening_hand_rule: int = spec.OPENING_RESHUFFLE, database: CardDatabase | None = None) -> "Game":
        database = database or load_cards()
        if len(decks) != 2:
            raise ValueError("a game needs exactly two decks")
        for deck in decks:
            validate_deck(deck, database)
        if opening_hand_rule not in (spec.OPENING_RESHUFFLE, spec.OPENING_ONE_BASIC):
            raise ValueError(f"unknown opening_hand_rule {opening_hand_rule}")
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        players = [PlayerState(deck=list(int(c) for c in deck.cards),
                               energy_types=tuple(TYPE_INDEX[t] for t in deck.energy_types)) for deck in decks]
        state = GameState(players=players, seed=int(seed) & 0xFFFFFFFF)
        game = cls(state, database, max_turns)
        game._setup(opening_hand_rule)
        return game

    def _setup(self, opening_hand_rule: int) -> None:
        s = self.state
        # SETUP-1: heads, seat 0 goes first.
        s.first_player = 0 if self.rng.coin() else 1
        s.turn_player = s.first_player
        # SETUP-2, SETUP-3: seat 0 then seat 1.
        for player in s.players:
            self._deal_opening_hand(player, opening_hand_rule)
        # SETUP-5: the first "next" Energy, first player first.
        for p in (s.first_player, 1 - s.first_player):
            s.players[p].energy_next = self._roll_energy(s.players[p])
        # SETUP-4: the first player places first.
        s.phase = spec.SETUP
        s.decider = s.first_player
        self._sync_rng()

    def _deal_opening_hand(self, player: PlayerState, rule: int) -> None:
        """SETUP-2/3. Reshuffle until the top 5 hold a Basic; or (rule 1) take one random Basic
        and draw 4 from the shuffled rest."""
        if rule == spec.OPENING_RESHUFFLE:
            while True:
                self.rng.shuffle(player.deck)
                if any(self._is_basic_card(c) for c in player.deck[: spec.OPENING_HAND]):
                    break
            player.hand = player.deck[: spec.OPENING_HAND]
            player.deck = player.deck[spec.OPENING_HAND:]
        else:
            basics = [i for i, c in enumerate(player.deck) if self._is_basic_card(c)]
            chosen = player.deck.pop(basics[self.rng.pick(len(basics))])
            self.rng.shuffle(player.deck)
            player.hand = [chosen] + player.deck[: spec.OPENING_HAND - 1]
            player.deck = player.deck[spec.OPENING_HAND - 1:]

    # ------------------------------------------------------------------ legality
    def retreat_cost(self, p: int) -> int:
        """RETREAT-1, RETREAT-3."""
        mon = self.player(p).active
        return max(0, self.top_card(mon).retreat - self.player(p).retreat_reduction)

    def can_retreat(self, p: int) -> bool:
        """RETREAT-1, RETREAT-4."""
        player = self.player(p)
        mon, fx = player.active, player.active_effects
        if mon is None or player.retreated or not player.bench_slots():
            return False
        if self.top_card(mon).is_fossil or fx.special in (spec.ASLEEP, spec.PARALYZED):
            return False
        if self.is_turn(fx.cant_retreat_turn):
            return False
        return mon.total_energy >= self.retreat_cost(p)

    def can_attack(self, p: int, attack_index: int) -> bool:
        """ATK-1, ATK-2."""
        player = self.player(p)
        mon, fx = player.active, player.active_effects
        if mon is None:
            return False
        card = self.top_card(mon)
        if not card.is_pokemon or attack_index >= len(card.attacks):
            return False
        if fx.special in (spec.ASLEEP, spec.PARALYZED) or self.is_turn(fx.cant_attack_turn):
            return False
        return self.can_pay(mon, card.attacks[attack_index].cost)

    def supporters_blocked(self, p: int) -> bool:
        """TRAINER-3."""
        opp_active = self.player(1 - p).active
        if opp_active is not None:
            ability = self.ability(opp_active)
            if ability is not None and ability["kind"] == "block_opponent_supporters":
                return True
        return self.is_turn(self.player(p).supporter_blocked_turn)

    def can_play_from_hand(self, p: int, card: Card) -> bool:
        player = self.player(p)
        if card.is_pokemon:
            if card.stage == 0:
                return bool(player.empty_bench_slots())  # BENCH-1
            return bool(self.evolution_targets(p, card))
        if card.trainer_kind == "supporter" and (player.supporter_played or self.supporters_blocked(p)):
            return False  # TRAINER-1, TRAINER-3
        return effects.trainer_playable(self, p, card)

    def ability_usable(self, p: int, slot: int) -> bool:
        """ABILITY-1..3."""
        mon = self.player(p).slots[slot]
        if mon is None:
            return False
        card = self.top_card(mon)
        if card.is_fossil:
            return slot != 0 or bool(self.player(p).bench_slots())
        ability = card.ability
        if ability is None or ability["kind"] in PASSIVE_ABILITY_KINDS or mon.ability_used:
            return False
        if ability.get("requires_active") and slot != 0:
            return False
        return effects.ability_usable(self, p, slot, ability)

    def legal_actions(self) -> np.ndarray:
        """Mask over the flat action space for the decider (CHOICE-1)."""
        s = self.state
        mask = np.zeros(spec.NUM_ACTIONS, bool)
        if s.game_over:
            return mask
        p = s.decider
        player = self.player(p)
        if s.phase == spec.SETUP:
            for h, index in enumerate(player.hand):
                card = self.card(index)
                if card.is_basic_pokemon and (player.active is None or player.empty_bench_slots()):
                    mask[spec.PLAY_HAND + h] = True
            mask[spec.END] = player.active is not None
        elif s.phase == spec.MAIN:
            mask[spec.END] = True
            for h, index in enumerate(player.hand):
                mask[spec.PLAY_HAND + h] = self.can_play_from_hand(p, self.card(index))
            if player.energy_current >= 0:
                for slot in player.occupied_slots():
                    mask[spec.ATTACH + slot] = True
            for slot in range(spec.NUM_SLOTS):
                mask[spec.ABILITY + slot] = self.ability_usable(p, slot)
            if self.can_retreat(p):
                for b in player.bench_slots():
                    mask[spec.RETREAT + b - 1] = True
            for a in range(2):
                mask[spec.ATTACK + a] = self.can_attack(p, a)
        elif s.phase in (spec.PROMOTE, spec.SWITCH_OUT):
            for b in player.bench_slots():
                mask[spec.CHOOSE_SELF + b] = True
        elif s.phase == spec.RETREAT_PAY:
            for t, count in enumerate(player.active.energy):
                mask[spec.CHOOSE_ENERGY + t] = count > 0
        elif s.phase == spec.COPY_ATTACK:
            for slot, attack_index in effects.copy_options(self, p):
                mask[spec.CHOOSE_COPY + 2 * slot + attack_index] = True
        else:
            own, opp = effects.pending_targets(self)
            for slot in own:
                mask[spec.CHOOSE_SELF + slot] = True
            for slot in opp:
                mask[spec.CHOOSE_OPP + slot] = True
        return mask

    # ------------------------------------------------------------------ actions
    def step(self, action: int) -> None:
        """Apply one action of the decider. Raises IllegalActionError for an illegal one."""
        s = self.state
        action = int(action)
        if s.game_over:
            raise IllegalActionError("the game is over")
        if not 0 <= action < spec.NUM_ACTIONS or not self.legal_actions()[action]:
            raise IllegalActionError(f"{spec.action_name(action)} is not legal in phase {spec.PHASE_NAMES[s.phase]}")
        if s.phase == spec.SETUP:
            self._setup_action(action)
        elif s.phase == spec.MAIN:
            self._main_action(action)
        else:
            self._answer_choice(action)
        if s.phase == spec.MAIN and not s.game_over:
            self.settle()
        self._sync_rng()

    def _setup_action(self, action: int) -> None:
        """SETUP-4."""
        s = self.state
        p = s.decider
        player = self.player(p)
        if action == spec.END:
            if p == s.first_player:
                s.decider = 1 - p
            else:
                self.start_turn()  # turn 1, the first player's
            return
        card = player.hand.pop(action - spec.PLAY_HAND)
        slot = 0 if player.active is None else player.empty_bench_slots()[0]
        self.put_into_play(p, slot, card)

    def _main_action(self, action: int) -> None:
        s = self.state
        p = s.turn_player
        player = self.player(p)
        if action == spec.END:
            self.end_turn()
        elif action < spec.ATTACH:
            self._play_from_hand(p, action - spec.PLAY_HAND)
        elif action < spec.ABILITY:
            self.attach_energy(p, action - spec.ATTACH)
        elif action < spec.RETREAT:
            slot = action - spec.ABILITY
            if self.top_card(player.slots[slot]).is_fossil:
                self.discard_from_play(p, slot)  # ABILITY-3
            else:
                effects.use_ability(self, p, slot)
        elif action < spec.ATTACK:
            self.retreat(p, action - spec.RETREAT + 1)
        else:
            effects.declare_attack(self, p, action - spec.ATTACK)

    def attach_energy(self, p: int, slot: int) -> None:
        """ENERGY-3."""
        player = self.player(p)
        player.slots[slot].energy[player.energy_current] += 1
        player.energy_current = -1

    def _play_from_hand(self, p: int, hand_slot: int) -> None:
        s = self.state
        player = self.player(p)
        card = self.card(player.hand.pop(hand_slot))
        if card.is_pokemon and card.stage == 0:
            self.put_into_play(p, player.empty_bench_slots()[0], card.index)  # BENCH-1
        elif card.is_pokemon:
            s.phase, s.decider, s.aux_card = spec.EVOLVE_TARGET, p, card.index
        else:
            effects.play_trainer(self, p, card)

    def evolve(self, p: int, slot: int, card: Card) -> None:
        """EVOLVE-3."""
        mon = self.player(p).slots[slot]
        mon.cards.append(card.index)
        mon.turn_played = self.state.turn
        mon.ability_used = False
        if slot == 0:
            self.clear_active_effects(p)

    def retreat(self, p: int, bench_slot: int) -> None:
        """RETREAT-1, RETREAT-2: the cost is paid now, or one Energy at a time if there is a choice."""
        s = self.state
        self.player(p).retreated = True
        s.phase, s.decider, s.aux_index, s.aux_count = spec.RETREAT_PAY, p, bench_slot, self.retreat_cost(p)
        self._continue_retreat_payment(p)

    def _continue_retreat_payment(self, p: int) -> None:
        """Discard automatically while nothing is left to choose: one type present, or exactly as
        much Energy as the cost left. Then switch (RETREAT-5)."""
        s = self.state
        mon = self.player(p).active
        while s.aux_count > 0:
            types_present = [t for t, n in enumerate(mon.energy) if n > 0]
            if len(types_present) == 1:
                mon.energy[types_present[0]] -= s.aux_count
                s.aux_count = 0
            elif mon.total_energy == s.aux_count:
                mon.energy = [0] * len(mon.energy)
                s.aux_count = 0
            else:
                return  # the player chooses (CHOOSE_ENERGY)
        self.swap_active_with_bench(p, s.aux_index)
        s.phase, s.aux_index = spec.MAIN, -1

    def _answer_choice(self, action: int) -> None:
        s = self.state
        p = s.decider
        if s.phase == spec.PROMOTE:
            slots = self.player(p).slots
            slots[0], slots[action - spec.CHOOSE_SELF] = slots[action - spec.CHOOSE_SELF], None
            s.phase = spec.MAIN
        elif s.phase == spec.SWITCH_OUT:
            self.swap_active_with_bench(p, action - spec.CHOOSE_SELF)
            s.phase = spec.MAIN
        elif s.phase == spec.RETREAT_PAY:
            self.player(p).active.energy[action - spec.CHOOSE_ENERGY] -= 1
            s.aux_count -= 1
            self._continue_retreat_payment(p)
        elif s.phase == spec.EVOLVE_TARGET:
            card = self.card(s.aux_card)
            s.phase, s.aux_card = spec.MAIN, -1
            self.evolve(p, action - spec.CHOOSE_SELF, card)
        else:
            effects.answer_choice(self, action)
        if s.phase == spec.MAIN:
            s.decider = s.turn_player

    # ------------------------------------------------------------------ views
    def canonical(self) -> dict[str, np.ndarray]:
        self._sync_rng()
        return canonical(self.state, self.db)

    @property
    def done(self) -> bool:
        return self.state.game_over

    def returns(self) -> tuple[float, float]:
        """+1 / -1 / 0 per seat once the game is over."""
        s = self.state
        if not s.game_over or s.winner < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if s.winner == 0 else (-1.0, 1.0)
