"""Deck construction rules, shipped decks and the random legal deck sampler."""

from __future__ import annotations

import numpy as np
import pytest

from tcgjax.cards import load_cards
from tcgjax.decks import Deck, DeckError, evolution_lines_complete, sample_deck, shipped_decks, validate_deck


@pytest.fixture(scope="module")
def decks():
    return shipped_decks()


def test_shipped_decks_are_legal_and_playable(decks):
    assert len(decks) == 14
    for deck in decks.values():
        validate_deck(deck)
        assert evolution_lines_complete(deck), deck.name


def _deck(ids_counts, types=("fire",)):
    return Deck.from_ids(ids_counts, types)


@pytest.mark.rule("DECK-1")
def test_deck_size(decks):
    deck = decks["charizard-ex-moltres-ex"]
    with pytest.raises(DeckError, match="exactly 20"):
        validate_deck(Deck(deck.cards[:19], deck.energy_types))
    with pytest.raises(DeckError, match="exactly 20"):
        validate_deck(Deck(deck.cards + deck.cards[:1], deck.energy_types))


@pytest.mark.rule("DECK-2")
def test_two_copies_per_name_counting_reprints():
    # A1 129 and A1 262 are both "Mewtwo ex": three together break the limit.
    base = [("A1 129", 2), ("A1 262", 1), ("P-A 005", 2), ("P-A 001", 2), ("P-A 002", 2), ("P-A 007", 2),
            ("A1 225", 2), ("A1 223", 2), ("A1 127", 2), ("A1 130", 2), ("A1 131", 1)]
    with pytest.raises(DeckError, match="copies"):
        validate_deck(_deck(base, ("psychic",)))
    # "Pikachu" and "Pikachu ex" are different names.
    ok = [("A1 094", 2), ("A1 096", 2), ("P-A 005", 2), ("P-A 001", 2), ("P-A 002", 2), ("P-A 007", 2),
          ("A1 225", 2), ("A1 223", 2), ("A1 105", 2), ("A1 106", 2)]
    validate_deck(_deck(ok, ("lightning",)))


@pytest.mark.rule("DECK-3")
def test_needs_a_basic_and_fossils_do_not_count():
    no_basic = [("A1 216", 2), ("A1 217", 2), ("A1 218", 2), ("P-A 001", 2), ("P-A 002", 2), ("P-A 003", 2),
                ("P-A 004", 2), ("P-A 005", 2), ("P-A 006", 2), ("P-A 007", 2)]
    with pytest.raises(DeckError, match="no Basic"):
        validate_deck(_deck(no_basic, ("water",)))


@pytest.mark.rule("DECK-4")
@pytest.mark.parametrize("types", [(), ("fire", "water", "grass", "metal"), ("colorless",), ("dragon",), ("fire", "fire")])
def test_energy_types(decks, types):
    with pytest.raises(DeckError, match="DECK-4"):
        validate_deck(Deck(decks["gengar-ex"].cards, types))


def test_unknown_cards_are_rejected():
    with pytest.raises(DeckError, match="unknown card id"):
        Deck.from_ids([("A1a 001", 20)], ("grass",))
    with pytest.raises(DeckError, match="not in the database"):
        validate_deck(Deck((999,) * 20, ("grass",)))


def test_sampler_is_legal_varied_and_deterministic():
    db = load_cards()
    rng = np.random.default_rng(7)
    samples = [sample_deck(rng) for _ in range(300)]
    for deck in samples:
        validate_deck(deck)
        assert evolution_lines_complete(deck)
    assert len({d.energy_types for d in samples}) > 10
    assert len({db[i].name for d in samples for i in d.cards}) > 150
    again = np.random.default_rng(7)
    assert [sample_deck(again) for _ in range(20)] == samples[:20]
