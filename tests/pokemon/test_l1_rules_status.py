"""L1 per rule, status conditions and their Gen 1 quirks: one scripted battle per rule, played in
pokejax and in Showdown at the seeds where Showdown shows the rule at work (``rules.check_rule``),
full state and PRNG state compared after every decision, and the protocol log must show the rule.

State compared every decision includes the sleep counter, the Toxic counter, the paralysis and
burn stat penalties (modified stats), confusion turns and flinch, so each rule's numbers are
checked, not only that it happened.
"""

from __future__ import annotations

import pytest

from .rules import M, Rule, S, check_rule

SLOW_FIXED_SEEDS = 24   # the slow suite also plays every rule at this many fixed seeds

P1, P2 = r"p1a: [^|\n]+", r"p2a: [^|\n]+"

RULES = {
    # sleep: the counter is drawn at infliction, the sleeper cannot move, waking takes its turn
    "sleep": Rule(
        (("Parasect", ("spore", "slash"), 100),),
        (("Snorlax", ("bodyslam", "earthquake"), 100),),
        ((M(0), M(0)),) + ((M(1), M(0)),) * 8,
        {"asleep": rf"^\|-status\|{P2}\|slp", "cant move": rf"^\|cant\|{P2}\|slp",
         "wakes": rf"^\|-curestatus\|{P2}\|slp"},
    ),
    # Rest: full heal, self-inflicted two-turn sleep, then the user wakes
    "rest": Rule(
        (("Tauros", ("bodyslam", "earthquake"), 100),),
        (("Snorlax", ("rest", "bodyslam"), 100),),
        ((M(0), M(1)), (M(0), M(1)), (M(0), M(0))) + ((M(0), M(1)),) * 4,
        {"rest": rf"^\|-status\|{P2}\|slp\|\[from\] move: Rest", "cant move": rf"^\|cant\|{P2}\|slp",
         "wakes": rf"^\|-curestatus\|{P2}\|slp"},
    ),
    # freeze: 10% from Ice Beam, no thaw with time, a Fire move's hit thaws (Freeze Clause on)
    "freeze": Rule(
        (("Jynx", ("icebeam", "ember", "psychic", "lovelykiss"), 100),),
        (("Chansey", ("seismictoss", "softboiled"), 100),),
        ((M(0), M(0)),) * 4 + ((M(1), M(1)), (M(0), M(0)), (M(1), M(0))),
        {"frozen": rf"^\|-status\|{P2}\|frz", "cant move": rf"^\|cant\|{P2}\|frz",
         "thawed by fire": rf"^\|-curestatus\|{P2}\|frz"},
    ),
    # paralysis: speed quartered (and re-applied by the foe's stat changes: the Gen 1 quirk), full para
    "paralysis": Rule(
        (("Jolteon", ("thunderwave", "thunderbolt", "agility", "doublekick"), 100),),
        (("Tauros", ("bodyslam", "earthquake", "hyperbeam", "blizzard"), 100),),
        ((M(0), M(0)), (M(2), M(0)), (M(1), M(0)), (M(2), M(0)), (M(3), M(0)), (M(1), M(0))),
        {"paralyzed": rf"^\|-status\|{P2}\|par", "fully paralyzed": rf"^\|cant\|{P2}\|par",
         "foe's boost after": rf"^\|-status\|{P2}\|par(?:.*\n)*\|-boost\|{P1}\|spe"},
    ),
    # burn: attack halved, 1/16 residual
    "burn": Rule(
        (("Charizard", ("fireblast", "flamethrower", "ember", "slash"), 100),),
        (("Snorlax", ("bodyslam", "rest"), 100),),
        ((M(0), M(0)), (M(0), M(0)), (M(1), M(0)), (M(1), M(0)), (M(2), M(0))),
        {"burned": rf"^\|-status\|{P2}\|brn", "residual": rf"^\|-damage\|{P2}\|[^|]+\|\[from\] brn"},
    ),
    # poison: 1/16 residual; Poison types are immune
    "poison": Rule(
        (("Venusaur", ("poisonpowder", "razorleaf", "growth", "sleeppowder"), 100),),
        (("Tauros", ("bodyslam", "earthquake"), 100), ("Nidoking", ("earthquake", "thunderbolt"), 100)),
        ((M(0), M(0)), (M(1), M(0)), (M(1), S(1)), (M(0), M(0)), (M(1), M(0))),
        {"poisoned": rf"^\|-status\|{P2}\|psn", "residual": rf"^\|-damage\|{P2}\|[^|]+\|\[from\] psn",
         "poison type immune": r"^\|-immune\|p2a: Nidoking"},
    ),
    # Toxic: growing counter, shared with Leech Seed's drain (Gen 1), reset to plain poison by a switch
    "toxic": Rule(
        (("Venusaur", ("toxic", "leechseed", "growth", "razorleaf"), 100),),
        (("Snorlax", ("bodyslam", "rest"), 100), ("Chansey", ("seismictoss", "softboiled"), 100)),
        ((M(0), M(0)), (M(1), M(0)), (M(2), M(0)), (M(2), S(1)), (M(2), S(0)), (M(3), M(0)), (M(3), M(0))),
        {"badly poisoned": r"^\|-status\|p2a: Snorlax\|tox",
         "seeded while badly poisoned": r"^\|-status\|p2a: Snorlax\|tox(?:.*\n)*\|-damage\|p2a: Snorlax\|[^|]+\|\[from\] Leech Seed",
         "switched out and back": r"^\|-status\|p2a: Snorlax\|tox(?:.*\n)*\|switch\|p2a: Chansey(?:.*\n)*\|switch\|p2a: Snorlax(?:.*\n)*\|-damage\|p2a: Snorlax\|[^|]+\|\[from\] psn"},
    ),
    # confusion: 2-5 turns, 50% self-hit with typeless 40-power damage, ends
    "confusion": Rule(
        (("Gengar", ("confuseray", "nightshade", "hypnosis", "thunderbolt"), 100),),
        (("Tauros", ("bodyslam", "earthquake"), 100),),
        ((M(0), M(0)),) + ((M(1), M(0)),) * 6,
        {"confused": rf"^\|-start\|{P2}\|confusion", "self hit": rf"^\|-damage\|{P2}\|[^|]+\|\[from\] confusion",
         "snaps out": rf"^\|-end\|{P2}\|confusion"},
    ),
    # flinch: only when the user moves first
    "flinch": Rule(
        (("Persian", ("headbutt", "slash", "bubblebeam", "bite"), 100),),
        (("Snorlax", ("bodyslam", "earthquake"), 100),),
        ((M(0), M(0)),) * 4 + ((M(3), M(0)),) * 2,
        {"flinched": rf"^\|cant\|{P2}\|flinch"},
    ),
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_status_rule_identical(showdown, name):
    check_rule(showdown, RULES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULES))
def test_status_rule_identical_many_seeds(showdown, name):
    check_rule(showdown, RULES[name], fixed=SLOW_FIXED_SEEDS)
