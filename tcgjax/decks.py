"""Decks: the Deck type, the construction rules (DECK-1..5), the shipped decks and a random legal
deck sampler.

The shipped decks are the example decks of the shared `decks.csv` after checking them against the
card pool of this database (A1 + Promo-A 001-007). None of the 15 rows is legal as given: every row
uses cards from later sets (A1a, P-A 020), row 7 has Stage 1/2 cards without their earlier stages and
row 14 has four Potions (DECK-2). Each shipped deck names its row and lists its changes; row 8 (an
all-A1a Grass deck) is left out.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Iterable, Sequence

import numpy as np

from tcgjax.cards import ENERGY_TYPES, CardDatabase, load_cards

DECK_SIZE = 20
MAX_COPIES = 2
MAX_ENERGY_TYPES = 3


class DeckError(ValueError):
    """A deck breaks a construction rule."""


@dataclasses.dataclass(frozen=True)
class Deck:
    """20 card indices into the database plus 1-3 Energy type names."""

    cards: tuple[int, ...]
    energy_types: tuple[str, ...]
    name: str = ""

    @classmethod
    def from_ids(cls, counts: Iterable[tuple[str, int]], energy_types: Sequence[str], name: str = "",
                 database: CardDatabase | None = None) -> "Deck":
        database = database or load_cards()
        cards = []
        for card_id, count in counts:
            if card_id not in database.by_id:
                raise DeckError(f"deck {name!r}: unknown card id {card_id!r}")
            cards += [database.by_id[card_id].index] * count
        return cls(tuple(cards), tuple(energy_types), name)


def validate_deck(deck: Deck, database: CardDatabase | None = None) -> None:
    """Raise DeckError with the broken rule unless the deck is legal (DECK-1..4)."""
    database = database or load_cards()
    label = f"deck {deck.name!r}" if deck.name else "deck"
    if len(deck.cards) != DECK_SIZE:
        raise DeckError(f"{label}: has {len(deck.cards)} cards, must have exactly {DECK_SIZE} (DECK-1)")
    for index in deck.cards:
        if not (isinstance(index, (int, np.integer)) and 0 <= index < len(database)):
            raise DeckError(f"{label}: card index {index!r} is not in the database")
    names = collections.Counter(database[i].name for i in deck.cards)
    too_many = {n: c for n, c in names.items() if c > MAX_COPIES}
    if too_many:
        raise DeckError(f"{label}: more than {MAX_COPIES} copies of {too_many} (DECK-2)")
    if not any(database[i].is_basic_pokemon for i in deck.cards):
        raise DeckError(f"{label}: no Basic Pokémon (DECK-3)")
    if not 1 <= len(deck.energy_types) <= MAX_ENERGY_TYPES:
        raise DeckError(f"{label}: {len(deck.energy_types)} Energy types, must be 1 to {MAX_ENERGY_TYPES} (DECK-4)")
    if len(set(deck.energy_types)) != len(deck.energy_types) or any(t not in ENERGY_TYPES for t in deck.energy_types):
        raise DeckError(f"{label}: Energy types {deck.energy_types} must be distinct names from {ENERGY_TYPES} (DECK-4)")


def evolution_lines_complete(deck: Deck, database: CardDatabase | None = None) -> bool:
    """True when every Stage 1/2 card's earlier stage (or fossil) is in the deck: a playability
    check for the shipped decks, not a rule of the game."""
    database = database or load_cards()
    names = {database[i].name for i in deck.cards}
    return all(database[i].evolves_from in names for i in deck.cards if database[i].is_pokemon and database[i].stage > 0)


PA = {"potion": "P-A 001", "x_speed": "P-A 002", "hand_scope": "P-A 003", "pokedex": "P-A 004",
      "poke_ball": "P-A 005", "red_card": "P-A 006", "research": "P-A 007"}

_SHIPPED = [
    ("mewtwo-ex-gardevoir", ("psychic",), "row 0; Mythical Slab x2 -> Potion x2, Leaf -> X Speed",
     [("A1 127", 1), ("A1 130", 2), ("A1 131", 2), ("A1 132", 2), ("A1 129", 2), (PA["potion"], 2), (PA["poke_ball"], 2),
      (PA["red_card"], 1), (PA["x_speed"], 2), ("A1 223", 1), (PA["research"], 2), ("A1 225", 1)]),
    ("greninja-gyarados", ("water",), "row 1; Magikarp A1a -> A1 077, Gyarados ex -> Gyarados A1 078, Druddigon x2 -> X Speed x2, Leaf x2 -> Potion x2",
     [("A1 077", 2), ("A1 087", 2), ("A1 088", 2), ("A1 089", 2), ("A1 078", 2), (PA["poke_ball"], 2), ("A1 220", 2),
      (PA["research"], 2), (PA["x_speed"], 2), (PA["potion"], 2)]),
    ("pikachu-ex-zapdos-ex", ("lightning",), "row 2; Dedenne -> Pikachu A1 094",
     [("A1 105", 2), ("A1 106", 2), ("A1 094", 1), ("A1 096", 2), ("A1 104", 2), (PA["poke_ball"], 2), (PA["potion"], 2),
      (PA["x_speed"], 2), ("A1 223", 1), (PA["research"], 2), ("A1 225", 2)]),
    ("charizard-ex-moltres-ex", ("fire",), "row 3; Chatot -> Moltres A1 046, Mew ex -> Giovanni, Leaf x2 -> Potion x2",
     [("A1 033", 2), ("A1 034", 2), ("A1 046", 1), ("A1 036", 2), ("A1 047", 2), (PA["poke_ball"], 2), (PA["x_speed"], 2),
      (PA["potion"], 2), ("A1 223", 1), (PA["research"], 2), ("A1 225", 2)]),
    ("arcanine-ex-moltres-ex", ("fire",), "row 4; Mew ex -> Moltres A1 046, Budding Expeditioner -> Giovanni, Leaf -> Sabrina",
     [("A1 039", 2), ("A1 041", 2), ("A1 046", 1), ("A1 047", 2), (PA["poke_ball"], 2), (PA["potion"], 2), (PA["red_card"], 1),
      (PA["x_speed"], 2), ("A1 223", 2), (PA["research"], 2), ("A1 225", 2)]),
    ("weezing-muk-arbok", ("darkness",), "row 5; the A1a Venipede line and Tauros -> Grimer/Muk and Ekans/Arbok x2, Leaf x2 -> X Speed",
     [("A1 176", 2), ("A1 177", 2), ("A1 174", 2), ("A1 175", 2), ("A1 164", 2), ("A1 165", 2), (PA["poke_ball"], 2),
      ("A1 222", 2), (PA["research"], 2), ("A1 225", 1), (PA["x_speed"], 1)]),
    ("exeggutor-ex", ("grass",), "row 6; Celebi ex -> Exeggutor, Mew ex -> Tangela, Leaf -> X Speed",
     [("A1 021", 2), ("A1 022", 2), ("A1 023", 2), ("A1 024", 1), (PA["poke_ball"], 2), (PA["potion"], 2), (PA["x_speed"], 2),
      ("A1 219", 2), ("A1 223", 1), (PA["research"], 2), ("A1 225", 2)]),
    ("golem-onix-brock", ("fighting",), "row 7; Machoke x2 (no Machop) -> Graveler x2, Golem A1a -> A1 149, Druddigon x2 -> Onix x2, Marshadow -> Hitmonlee, Leaf x2 -> X Speed x2",
     [("A1 147", 2), ("A1 148", 2), ("A1 149", 2), ("A1 150", 2), ("A1 154", 2), (PA["poke_ball"], 2), (PA["potion"], 1),
      ("A1 224", 2), ("A1 223", 1), (PA["x_speed"], 2), (PA["research"], 2)]),
    ("ninetales-rapidash-blaine", ("fire",), "row 9; Ponyta/Rapidash A1a -> A1 042/043",
     [("A1 037", 2), ("A1 038", 2), ("A1 042", 2), ("A1 043", 2), (PA["poke_ball"], 2), (PA["x_speed"], 2), ("A1 221", 2),
      ("A1 223", 2), (PA["research"], 2), ("A1 225", 2)]),
    ("primeape-aerodactyl", ("fighting",), "row 10; Mankey/Primeape A1a -> A1 141/142, Marshadow -> Hitmonlee, Aerodactyl ex -> Aerodactyl A1 210",
     [("A1 141", 2), ("A1 142", 2), ("A1 154", 2), ("A1 210", 2), (PA["poke_ball"], 2), (PA["x_speed"], 2), ("A1 223", 2),
      ("A1 218", 2), (PA["research"], 2), ("A1 225", 2)]),
    ("farfetchd-hitmonlee", ("fighting",), "row 11; Tauros A1a -> A1 204, Marshadow x2 -> Kangaskhan x2, Mew ex -> Tauros, Leaf -> Potion",
     [("A1 198", 2), ("A1 154", 2), ("A1 204", 2), ("A1 203", 2), (PA["poke_ball"], 2), (PA["potion"], 2), (PA["x_speed"], 2),
      ("A1 223", 2), (PA["research"], 2), ("A1 225", 2)]),
    ("gengar-ex", ("psychic",), "row 12; Haunter P-A 020 -> A1 121",
     [("A1 057", 2), ("A1 120", 2), ("A1 121", 2), ("A1 127", 1), ("A1 128", 1), ("A1 123", 2), (PA["poke_ball"], 2),
      (PA["potion"], 2), (PA["x_speed"], 2), ("A1 223", 1), (PA["research"], 2), ("A1 225", 1)]),
    ("dragonite-weezing", ("water", "lightning"), "row 13; Koffing A1a -> A1 176, Mew ex x2 -> Potion x2, Blue -> Giovanni, Budding Expeditioner -> Sabrina",
     [("A1 176", 2), ("A1 177", 2), ("A1 183", 2), ("A1 184", 2), ("A1 185", 2), (PA["potion"], 2), (PA["poke_ball"], 1),
      (PA["x_speed"], 1), ("A1 223", 1), ("A1 225", 1), ("A1 222", 2), (PA["research"], 2)]),
    ("melmetal-weezing", ("metal",), "row 14; Koffing A1a -> A1 176, Potion x4 -> Potion x2 + X Speed x2 (DECK-2)",
     [("A1 176", 2), ("A1 177", 2), ("A1 203", 1), ("A1 181", 2), ("A1 182", 2), (PA["poke_ball"], 2), (PA["potion"], 2),
      (PA["x_speed"], 2), ("A1 222", 1), (PA["research"], 2), ("A1 225", 2)]),
]

SHIPPED_DECK_NOTES: dict[str, str] = {name: note for name, _, note, _ in _SHIPPED}


def shipped_decks(database: CardDatabase | None = None) -> dict[str, Deck]:
    """The shipped decks by name, validated."""
    database = database or load_cards()
    decks = {}
    for name, energy, _note, counts in _SHIPPED:
        deck = Deck.from_ids(counts, energy, name, database)
        validate_deck(deck, database)
        decks[name] = deck
    return decks


def _payable(card, energy_types: set[str]) -> bool:
    return all(t == "colorless" or t in energy_types for a in card.attacks for t in a.cost)


def sample_deck(rng: np.random.Generator, database: CardDatabase | None = None) -> Deck:
    """A random legal deck built like a player would: 1 or 2 Energy types, 2-4 complete evolution
    lines whose attacks those types can pay (fossil lines included), the rest Trainers. Deterministic
    for a given generator state."""
    database = database or load_cards()
    num_types = 1 if rng.random() < 0.6 else 2
    energy = tuple(str(t) for t in rng.choice(ENERGY_TYPES, size=num_types, replace=False))
    energy_set = set(energy)
    # Evolution lines by the name of their Basic (or fossil); one card per name is enough to
    # choose from because reprints share their text.
    first_by_name = {}
    for card in database.cards:
        first_by_name.setdefault(card.name, card)
    fossil_names = {c.name for c in first_by_name.values() if c.is_fossil}

    def root(card) -> str:
        while card.is_pokemon and card.evolves_from is not None:
            card = first_by_name[card.evolves_from]
        return card.name

    lines: dict[str, list] = collections.defaultdict(list)
    for card in first_by_name.values():
        if card.is_pokemon and _payable(card, energy_set):
            lines[root(card)].append(card)
    # Keep lines whose every stage is payable and present, starting from a Basic or a fossil.
    usable = []
    for base, members in sorted(lines.items()):
        names = {m.name for m in members} | ({base} if base in fossil_names else set())
        if all(m.stage == 0 or m.evolves_from in names for m in members):
            usable.append((base, members))
    basics_available = [b for b, m in usable if b not in fossil_names]
    if not basics_available:
        raise DeckError(f"no Basic Pokémon can attack with {energy}")
    cards: list[int] = []
    order = rng.permutation(len(usable))
    num_lines = int(rng.integers(2, 5))
    chosen = 0
    has_basic = False
    for i in order:
        base, members = usable[i]
        if chosen >= num_lines and has_basic:
            break
        if base in fossil_names and not has_basic and chosen == num_lines - 1:
            continue
        copies = int(rng.integers(1, 3))
        line_cards = ([first_by_name[base].index] * copies if base in fossil_names else [])
        for m in sorted(members, key=lambda c: c.stage):
            line_cards += [m.index] * (copies if m.stage == 0 else int(rng.integers(1, copies + 1)))
        if len(cards) + len(line_cards) > 14:
            continue
        cards += line_cards
        chosen += 1
        has_basic |= base not in fossil_names
    if not has_basic:  # guarantee DECK-3
        cards.append(first_by_name[basics_available[int(rng.integers(len(basics_available)))]].index)
    trainers = [c for c in first_by_name.values() if c.category == "trainer" and not c.is_fossil]
    counts = collections.Counter(database[i].name for i in cards)
    while len(cards) < DECK_SIZE:
        card = trainers[int(rng.integers(len(trainers)))]
        if counts[card.name] < MAX_COPIES:
            counts[card.name] += 1
            cards.append(card.index)
    deck = Deck(tuple(cards), energy, "sampled")
    validate_deck(deck, database)
    return deck
