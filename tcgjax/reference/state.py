"""Game state of the reference engine: plain objects a person can read, plus `canonical()`, the
array form that both engines must produce identically after every action (the parity contract)."""

from __future__ import annotations

import dataclasses

import numpy as np

from tcgjax import spec
from tcgjax.cards import NUM_ENERGY_TYPES, Card, CardDatabase


@dataclasses.dataclass
class PokemonInPlay:
    """A stack in play: its cards bottom (Basic or fossil) to top, damage and Energy."""

    cards: list[int]
    damage: int = 0
    energy: list[int] = dataclasses.field(default_factory=lambda: [0] * NUM_ENERGY_TYPES)
    turn_played: int = 0  # turn it was put into play or last evolved (EVOLVE-2)
    ability_used: bool = False

    @property
    def top(self) -> int:
        return self.cards[-1]

    @property
    def total_energy(self) -> int:
        return sum(self.energy)


@dataclasses.dataclass
class ActiveEffects:
    """Special Conditions and attack effects on a player's Active Pokémon (STATUS-1, DMG-7).
    The `*_turn` fields hold the turn number during which the effect applies (0: none)."""

    poisoned: bool = False
    burned: bool = False
    special: int = spec.NO_SPECIAL  # asleep / paralyzed / confused (STATUS-2)
    cant_attack_turn: int = 0
    cant_retreat_turn: int = 0
    protected_turn: int = 0  # Dig
    reduce_damage_turn: int = 0  # Barrier Attack
    reduce_damage_amount: int = 0
    attack_minus_turn: int = 0  # Growl on this Pokémon's attacks
    attack_minus_amount: int = 0


@dataclasses.dataclass
class PlayerState:
    deck: list[int]  # index 0 is the top
    energy_types: tuple[int, ...]
    hand: list[int] = dataclasses.field(default_factory=list)
    discard: list[int] = dataclasses.field(default_factory=list)  # in order of arrival
    slots: list[PokemonInPlay | None] = dataclasses.field(default_factory=lambda: [None] * spec.NUM_SLOTS)
    active_effects: ActiveEffects = dataclasses.field(default_factory=ActiveEffects)
    points: int = 0
    energy_current: int = -1
    energy_next: int = -1
    supporter_played: bool = False
    retreated: bool = False
    retreat_reduction: int = 0  # X Speed (RETREAT-3)
    attack_bonus: int = 0  # Giovanni
    named_attack_bonus: int = 0  # Blaine
    supporter_blocked_turn: int = 0  # Psyduck, Gengar

    @property
    def active(self) -> PokemonInPlay | None:
        return self.slots[0]

    def bench_slots(self) -> list[int]:
        return [s for s in spec.BENCH_SLOTS if self.slots[s] is not None]

    def empty_bench_slots(self) -> list[int]:
        return [s for s in spec.BENCH_SLOTS if self.slots[s] is None]

    def occupied_slots(self) -> list[int]:
        return [s for s in range(spec.NUM_SLOTS) if self.slots[s] is not None]

    def has_pokemon_in_play(self) -> bool:
        return any(slot is not None for slot in self.slots)


@dataclasses.dataclass
class GameState:
    players: list[PlayerState]
    seed: int
    rng_counter: int = 0
    turn: int = 0
    turn_player: int = 0
    first_player: int = 0
    phase: int = spec.SETUP
    decider: int = 0
    aux_card: int = -1
    aux_index: int = -1
    aux_count: int = 0
    aux_type: int = -1
    in_attack: bool = False
    counter_damage: int = 0
    turn_ending: bool = False
    checkup_done: bool = False
    game_over: bool = False
    winner: int = -1  # -1 with game_over: a draw
    truncated: bool = False


def canonical(state: GameState, database: CardDatabase) -> dict[str, np.ndarray]:
    """The array form of a state. `tcgjax.game.canonical` returns the same keys, shapes and values
    for the JAX state; tests compare the two after every action."""
    num_cards = len(database)
    two = range(2)

    def padded(values: list[int], size: int) -> list[int]:
        return list(values) + [-1] * (size - len(values))

    out: dict[str, np.ndarray] = {}
    scalars = dict(
        seed=state.seed, rng_counter=state.rng_counter, turn=state.turn, turn_player=state.turn_player,
        first_player=state.first_player, phase=state.phase, decider=state.decider, aux_card=state.aux_card,
        aux_index=state.aux_index, aux_count=state.aux_count, aux_type=state.aux_type,
        in_attack=int(state.in_attack), counter_damage=state.counter_damage, turn_ending=int(state.turn_ending),
        checkup_done=int(state.checkup_done), game_over=int(state.game_over), winner=state.winner,
        truncated=int(state.truncated),
    )
    for key, value in scalars.items():
        out[key] = np.asarray(value, np.int64)
    ps = state.players
    out["deck"] = np.array([padded(p.deck, spec.DECK_SIZE) for p in ps], np.int64)
    out["deck_size"] = np.array([len(p.deck) for p in ps], np.int64)
    out["hand"] = np.array([padded(p.hand, spec.HAND_CAPACITY) for p in ps], np.int64)
    out["hand_size"] = np.array([len(p.hand) for p in ps], np.int64)
    discard = np.zeros((2, num_cards), np.int64)
    for i in two:
        for card in ps[i].discard:
            discard[i, card] += 1
    out["discard"] = discard
    out["discard_size"] = np.array([len(p.discard) for p in ps], np.int64)
    out["energy_types"] = np.array([padded(list(p.energy_types), 3) for p in ps], np.int64)
    for key in ("points", "energy_current", "energy_next", "retreat_reduction", "attack_bonus",
                "named_attack_bonus", "supporter_blocked_turn"):
        out[key] = np.array([getattr(p, key) for p in ps], np.int64)
    for key in ("supporter_played", "retreated"):
        out[key] = np.array([int(getattr(p, key)) for p in ps], np.int64)
    stack = np.full((2, spec.NUM_SLOTS, spec.STACK_DEPTH), -1, np.int64)
    card = np.full((2, spec.NUM_SLOTS), -1, np.int64)
    damage = np.zeros((2, spec.NUM_SLOTS), np.int64)
    energy = np.zeros((2, spec.NUM_SLOTS, NUM_ENERGY_TYPES), np.int64)
    turn_played = np.zeros((2, spec.NUM_SLOTS), np.int64)
    ability_used = np.zeros((2, spec.NUM_SLOTS), np.int64)
    for i in two:
        for s, mon in enumerate(ps[i].slots):
            if mon is None:
                continue
            stack[i, s, : len(mon.cards)] = mon.cards
            card[i, s] = mon.top
            damage[i, s] = mon.damage
            energy[i, s] = mon.energy
            turn_played[i, s] = mon.turn_played
            ability_used[i, s] = int(mon.ability_used)
    out.update(stack=stack, card=card, damage=damage, energy=energy, turn_played=turn_played, ability_used=ability_used)
    for key in ("poisoned", "burned", "special", "cant_attack_turn", "cant_retreat_turn", "protected_turn",
                "reduce_damage_turn", "reduce_damage_amount", "attack_minus_turn", "attack_minus_amount"):
        out[key] = np.array([int(getattr(p.active_effects, key)) for p in ps], np.int64)
    return out


def card_hp(card: Card) -> int:
    """HP of a card in play: a fossil is a 40-HP Pokémon (its effect says so)."""
    return card.effect["hp"] if card.is_fossil else card.hp
