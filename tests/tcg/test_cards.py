"""The card database: counts, references, costs, effect vocabulary, and the documented fact fixes."""

from __future__ import annotations

import collections
import copy
import json
import os
import pathlib

import pytest

from tcgjax import cards as cardlib
from tcgjax.cards import CardDataError, database_from_json, load_cards, validate_database

# The generator's inputs are not in the repository (tcgjax/data/build_cards.py says why); name a copy
# of them in PARITYGYM_TCG_FACTS to check that the committed database is what the generator builds.
FACTS = pathlib.Path(os.environ["PARITYGYM_TCG_FACTS"]) if os.environ.get("PARITYGYM_TCG_FACTS") else None


@pytest.fixture(scope="module")
def db():
    return load_cards()


@pytest.fixture(scope="module")
def document():
    return json.loads(cardlib.DATABASE_PATH.read_text(encoding="utf-8"))


@pytest.mark.rule("DECK-5")
def test_counts(db):
    assert len(db) == 293
    assert sum(c.id.startswith("A1 ") for c in db.cards) == 286
    assert [c.id for c in db.cards if c.id.startswith("P-A")] == [f"P-A {n:03d}" for n in range(1, 8)]
    pokemon = [c for c in db.cards if c.is_pokemon]
    assert len(pokemon) == 267
    assert collections.Counter(c.stage for c in pokemon) == {0: 133, 1: 94, 2: 40}
    trainers = [c for c in db.cards if not c.is_pokemon]
    assert collections.Counter(c.trainer_kind for c in trainers) == {"item": 3 + 6, "supporter": 16 + 1}
    assert sum(c.is_fossil for c in trainers) == 3
    assert sum(c.ex for c in pokemon) == len([c for c in pokemon if c.name.endswith(" ex")]) > 0


def test_references_resolve(db):
    by_name = {c.name: c for c in db.cards}
    for card in db.cards:
        if card.is_pokemon and card.evolves_from:
            earlier = by_name[card.evolves_from]
            if earlier.is_pokemon:
                assert earlier.stage == card.stage - 1, card
            else:  # fossil lines: Omanyte, Kabuto, Aerodactyl
                assert earlier.is_fossil and card.stage == 1, card
        for attack in card.attacks:
            assert 1 <= len(attack.cost) <= 5
            assert all(t in cardlib.TYPES and t != "dragon" for t in attack.cost)
    assert {by_name[n].name for n in ("Omanyte", "Kabuto", "Aerodactyl")} and \
        [by_name[n].evolves_from for n in ("Omanyte", "Kabuto", "Aerodactyl")] == ["Helix Fossil", "Dome Fossil", "Old Amber"]


def test_every_effect_kind_is_known_and_used(db):
    used_attack = {a.effect["kind"] for c in db.cards for a in c.attacks if a.effect}
    used_ability = {c.ability["kind"] for c in db.cards if c.ability}
    used_trainer = {c.effect["kind"] for c in db.cards if c.effect}
    assert used_attack == set(cardlib.ATTACK_EFFECT_KINDS)
    assert used_ability == set(cardlib.ABILITY_KINDS)
    assert used_trainer == set(cardlib.TRAINER_KINDS)


@pytest.mark.parametrize("corrupt, message", [
    (lambda d: d["cards"][0]["attacks"][0].update(effect={"kind": "teleport_everything"}), "unknown effect kind"),
    (lambda d: d["cards"][0]["attacks"][0].update(cost=["grass", "plasma"]), "cost"),
    (lambda d: d["cards"][1].update(evolves_from="Missingno"), "unknown"),
    (lambda d: d["cards"][0].update(hp=75), "HP"),
    (lambda d: d["cards"][2]["attacks"][0]["effect"].update(amount=-30), "amount"),
    (lambda d: d["cards"][-1].update(effect={"kind": "draw", "count": 2, "extra": 1}), "parameters"),
    (lambda d: d["cards"].append(copy.deepcopy(d["cards"][0])), "duplicate"),
])
def test_validator_rejects_broken_data(document, corrupt, message):
    broken = copy.deepcopy(document)
    corrupt(broken)
    with pytest.raises(CardDataError, match=message):
        validate_database(database_from_json(broken))


def test_documented_fact_fixes(db):
    """Spot checks of values that the starting file has wrong (tcgjax/data/corrections.py, RULES-FACTS §8, §10)."""
    card = db.by_id
    assert card["A1 134"].hp == 90 and card["A1 173"].hp == 70 and card["A1 181"].hp == 60
    assert card["A1 040"].retreat == 2 and card["A1 104"].retreat == 1 and card["A1 136"].retreat == 4
    assert card["A1 002"].attacks[0].damage == 60 and card["A1 183"].attacks[0].damage == 40
    assert card["A1 149"].attacks[0].effect == {"kind": "self_damage", "amount": 50}
    assert card["A1 024"].attacks[0].effect["amount"] == 10  # Tangela heals 10
    assert card["A1 079"].attacks[0].effect["amount"] == 70  # Lapras +70
    assert card["A1 032"].attacks[0].cost == ("grass", "colorless", "colorless")
    assert card["A1 166"].name == "Nidoran♀" and card["A1 167"].evolves_from == "Nidoran♀"
    # Printed weaknesses that differ from the card's type-based default.
    for card_id, weakness in [("A1 186", "lightning"), ("A1 046", "lightning"), ("A1 103", "lightning"),
                              ("A1 092", "metal"), ("A1 146", "psychic"), ("A1 147", "grass"), ("A1 185", None)]:
        assert card[card_id].weakness == weakness, card_id


@pytest.mark.skipif(FACTS is None, reason="PARITYGYM_TCG_FACTS does not name the starting card facts")
def test_generated_database_matches_build_script(document):
    from tcgjax.data.build_cards import build
    assert build(FACTS) == document


def test_every_rule_and_effect_kind_has_a_test():
    from tests.tcg import coverage
    found = coverage.tests_by_marker()
    missing_rules = [r for r in coverage.rule_ids() if r not in coverage.NOT_MODELLED and not found.get(r)]
    assert not missing_rules, f"rules without a test: {missing_rules}"
    kinds = set(cardlib.ATTACK_EFFECT_KINDS) | set(cardlib.ABILITY_KINDS) | set(cardlib.TRAINER_KINDS)
    assert not [k for k in kinds if not found.get(f"card:{k}")]
