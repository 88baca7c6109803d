"""L1 corner cases of Gen 1 that the random battles rarely reach: type immunities against
moves that ignore type elsewhere, Substitute against Counter, Explosion, Hyper Beam, Dream Eater
and confusion, a lock broken by paralysis, Mirror Move and Metronome calling charge moves, the
Leech Seed / Toxic counter, the paralysis and burn drops reapplied on a stat change.

Same method as the other rule files (``rules.check_rule``): Showdown alone finds the seeds where
each expected protocol line appears, both engines play them and the fixed seeds with the full
state and PRNG state compared after every decision.
"""

from __future__ import annotations

import pytest

from .rules import M, Rule, S, check_rule

ANY = r"(?:.*\n)*"   # any lines in between

RULES = {
    # Bide's stored damage against a Ghost, and Bide absorbing a fixed-damage move
    "bide_vs_ghost": Rule(
        (("Chansey", ("bide", "seismictoss"), 100),),
        (("Gengar", ("nightshade", "psychic"), 100), ("Tauros", ("bodyslam",), 100)),
        ((M(0), M(0)), (M(0), M(0)), (M(0), M(0)), (M(0), M(1)), (M(0), S(1)), (M(0), M(0)), (M(0), M(0))),
        {"bide released": r"^\|-end\|p1a: Chansey\|Bide",
         "bide at a ghost": r"^\|-end\|p1a: Chansey\|Bide\n(?:\|split\|p2\n)?\|-damage\|p2a: Gengar"},
    ),
    # Counter after a hit on the user's Substitute, and after a Normal move on the user
    "counter_vs_substitute": Rule(
        (("Hitmonchan", ("substitute", "counter", "submission"), 100),),
        (("Tauros", ("bodyslam", "hyperbeam", "earthquake"), 100),),
        ((M(0), M(2)), (M(1), M(0)), (M(1), M(0)), (M(0), M(0)), (M(1), M(1)), (M(1), M(0))),
        {"sub broken then counter": r"^\|-end\|p1a: Hitmonchan\|Substitute\n\|move\|p1a: Hitmonchan\|Counter",
         "counter": r"^\|move\|p1a: Hitmonchan\|Counter\|"},
    ),
    # Explosion / Self-Destruct: into a Substitute, into a Ghost
    "explosion_corner_cases": Rule(
        (("Golem", ("explosion", "selfdestruct", "earthquake"), 100), ("Electrode", ("selfdestruct", "thunderbolt"), 100)),
        (("Alakazam", ("substitute", "psychic"), 100), ("Gengar", ("nightshade", "hypnosis"), 100)),
        ((M(2), M(0)), (M(0), M(1)), (S(1), M(1)), (M(0), S(1)), (M(0), M(0)), (M(0), M(0))),
        {"explosion into substitute": r"^\|move\|p1a: Golem\|Explosion\|p2a: Alakazam" + ANY + r"\|-end\|p2a: Alakazam\|Substitute",
         "self-destruct at a ghost": r"^\|move\|p1a: Electrode\|Self-Destruct\|p2a: Gengar"},
    ),
    # Hyper Beam that breaks a Substitute needs no recharge
    "hyper_beam_breaks_substitute": Rule(
        (("Tauros", ("hyperbeam", "bodyslam"), 100),),
        (("Alakazam", ("substitute", "psychic", "recover"), 100),),
        ((M(0), M(0)), (M(0), M(2)), (M(0), M(0)), (M(0), M(0)), (M(0), M(1))),
        {"sub broken, no recharge": r"^\|move\|p1a: Tauros\|Hyper Beam\|p2a: Alakazam\n(?:(?!\|-mustrecharge).*\n)*?\|-end\|p2a: Alakazam\|Substitute"},
    ),
    # Dream Eater fails on an awake target, drains a sleeping one, fails against a Substitute
    "dream_eater": Rule(
        (("Hypno", ("dreameater", "hypnosis", "psychic"), 100),),
        (("Snorlax", ("substitute", "bodyslam"), 100), ("Tauros", ("bodyslam",), 100)),
        ((M(0), M(1)), (M(1), M(1)), (M(0), M(1)), (M(0), M(0)), (M(1), M(1)), (M(0), M(1)), (M(0), S(1))),
        {"fails awake": r"^\|move\|p1a: Hypno\|Dream Eater\|p2a: Snorlax\n\|-immune\|",
         "drains": r"^\|-heal\|p1a: Hypno\|\d+/\d+\|\[from\] drain"},
    ),
    # a confused user hitting itself while the foe is behind a Substitute (the cartridge damaged
    # the Substitute; whatever Showdown does, pokejax must do the same)
    "confusion_vs_substitute": Rule(
        (("Tauros", ("bodyslam", "earthquake"), 100),),
        (("Gengar", ("confuseray", "substitute", "nightshade"), 100),),
        ((M(0), M(0)), (M(0), M(1)), (M(0), M(2)), (M(1), M(2)), (M(0), M(2)), (M(1), M(2))),
        {"self hit while foe has a sub": r"^\|-start\|p2a: Gengar\|Substitute\n(?:(?!\|-end\|p2a: Gengar\|Substitute).*\n)*?"
         r"\|-activate\|p1a: Tauros\|confusion\n(?!\|move)"},
    ),
    # Thrash interrupted by full paralysis
    "lock_broken_by_paralysis": Rule(
        (("Dodrio", ("thrash", "drillpeck"), 100),),
        (("Jolteon", ("thunderwave", "thunderbolt", "doublekick"), 100),),
        ((M(0), M(0)), (M(0), M(2)), (M(0), M(2)), (M(0), M(2)), (M(0), M(2)), (M(0), M(2))),
        {"fully paralyzed during thrash": r"^\|move\|p1a: Dodrio\|Thrash" + ANY + r"\|cant\|p1a: Dodrio\|par"},
    ),
    # Mirror Move and Metronome calling a charge move
    "called_charge_moves": Rule(
        (("Pidgeot", ("mirrormove", "quickattack"), 100), ("Clefable", ("metronome",), 100)),
        (("Charizard", ("fly", "skyattack", "solarbeam", "slash"), 100),),
        ((M(1), M(0)), (M(0), M(0)), (M(0), M(1)), (M(0), M(1)), (S(1), M(2)), (M(0), M(2)), (M(0), M(3)),
         (M(0), M(3)), (M(0), M(3))),
        {"mirror move calls a charge move": r"^\|move\|p1a: Pidgeot\|Mirror Move" + ANY + r"\|-prepare\|p1a: Pidgeot\|(Fly|Sky Attack)",
         "metronome": r"^\|move\|p1a: Clefable\|Metronome"},
    ),
    # Leech Seed's drain grows with the Toxic counter (Gen 1)
    "leech_seed_with_toxic": Rule(
        (("Venusaur", ("toxic", "leechseed", "razorleaf"), 100),),
        (("Snorlax", ("amnesia", "rest"), 100),),
        ((M(0), M(0)), (M(1), M(0)), (M(2), M(0)), (M(2), M(0)), (M(2), M(0))),
        {"toxic and seed": r"^\|-status\|p2a: Snorlax\|tox" + ANY + r"\|-start\|p2a: Snorlax\|move: Leech Seed"},
    ),
    # stat-stage moves reapply the paralysis speed drop / burn attack drop (Gen 1)
    "status_drop_reapplied": Rule(
        (("Jolteon", ("thunderwave", "agility", "doublekick"), 100),),
        (("Tauros", ("bodyslam", "tailwhip", "growl"), 100),),
        ((M(0), M(0)), (M(1), M(1)), (M(1), M(2)), (M(2), M(0)), (M(2), M(1))),
        {"paralyzed then boosted": r"^\|-status\|p2a: Tauros\|par" + ANY + r"\|-boost\|p1a: Jolteon\|spe"},
    ),
    # type immunities (Seismic Toss ignores them in Gen 1, and hits a Ghost), Night Shade at a Normal, Leech Seed at a Grass,
    # Thunder Wave at a Ground, Toxic at a Poison type
    "immunities": Rule(
        (("Machamp", ("seismictoss", "leechseed", "thunderwave", "toxic"), 100),),
        (("Gengar", ("nightshade", "hypnosis"), 100), ("Venusaur", ("razorleaf",), 100),
         ("Dugtrio", ("earthquake",), 100), ("Snorlax", ("bodyslam",), 100)),
        ((M(0), M(0)), (M(3), M(0)), (M(1), S(1)), (M(2), S(2)), (M(0), S(3)), (M(0), M(0))),
        {"seismic toss hits a ghost": r"^\|move\|p1a: Machamp\|Seismic Toss\|p2a: Gengar\n(?:\|split\|p2\n)?\|-damage\|p2a: Gengar",
         "toxic at a poison type": r"^\|move\|p1a: Machamp\|Toxic\|p2a: Gengar\n\|-immune\|",
         "leech seed at a grass type": r"^\|move\|p1a: Machamp\|Leech Seed\|p2a: Venusaur\n\|-immune\|",
         "thunder wave at a ground type": r"^\|move\|p1a: Machamp\|Thunder Wave\|p2a: Dugtrio\n\|-immune\|"},
    ),
    # Super Fang and Night Shade against the types they would not normally hit
    "typeless_damage": Rule(
        (("Raticate", ("superfang", "hyperfang"), 100),),
        (("Gengar", ("nightshade", "hypnosis"), 100), ("Snorlax", ("bodyslam",), 100)),
        ((M(0), M(0)), (M(0), S(1)), (M(0), M(0)), (M(1), M(0))),
        {"super fang at a ghost": r"^\|move\|p1a: Raticate\|Super Fang\|p2a: Gengar",
         "night shade at a normal type": r"^\|move\|p2a: Gengar\|Night Shade\|p1a: Raticate"},
    ),
    # sleep counter kept while switched out; Toxic becomes poison on switching out
    "status_across_switches": Rule(
        (("Snorlax", ("bodyslam", "rest"), 100), ("Tauros", ("bodyslam",), 100)),
        (("Jynx", ("lovelykiss", "blizzard"), 100), ("Venusaur", ("toxic", "razorleaf"), 100)),
        ((M(0), M(0)), (S(1), M(1)), (S(1), M(0)), (M(0), S(1)), (S(1), M(0)), (M(0), M(1)), (S(1), M(1)),
         (M(0), M(1)), (M(0), M(1))),
        {"asleep switched out": r"^\|-status\|p1a: Snorlax\|slp" + ANY + r"\|switch\|p1a: Tauros",
         "toxic switched out": r"^\|-status\|p1a: [^|]+\|tox" + ANY + r"\|switch\|p1a: "},
    ),
    # a frozen Pokémon thawed by a Fire move's hit
    "thaw_by_fire": Rule(
        (("Jynx", ("icebeam", "ember", "blizzard"), 100),),
        (("Snorlax", ("bodyslam", "rest"), 100),),
        ((M(0), M(0)), (M(0), M(0)), (M(2), M(0)), (M(2), M(0)), (M(1), M(0)), (M(1), M(0)), (M(1), M(0))),
        {"frozen then thawed": r"^\|-status\|p2a: Snorlax\|frz" + ANY + r"\|move\|p1a: Jynx\|Ember" + ANY
         + r"\|-curestatus\|p2a: Snorlax\|frz"},
    ),
    # Substitute fails with a quarter of max HP or less, and while one is up; Rest fails at full HP
    # and when max HP - HP + 1 is a multiple of 256 (Gen 1's recovery glitch)
    "failing_self_moves": Rule(
        (("Alakazam", ("substitute", "recover"), 100), ("Snorlax", ("rest", "bodyslam"), 100)),
        (("Tauros", ("bodyslam", "tailwhip"), 100),),
        ((M(0), M(1)), (M(0), M(1)), (M(0), M(0)), (M(0), M(0)), (M(0), M(0)), (M(0), M(0)), (M(0), M(1)),
         (S(1), M(1)), (M(0), M(1)), (M(0), M(0))),
        {"sub while a sub is up": r"^\|move\|p1a: Alakazam\|Substitute\|p1a: Alakazam\n\|-fail\|p1a: Alakazam\|move: Substitute",
         "sub too weak": r"^\|-fail\|p1a: Alakazam\|move: Substitute\|\[weak\]",
         "rest at full hp": r"^\|move\|p1a: Snorlax\|Rest\|p1a: Snorlax\n\|-fail\|",
         "recovery glitch": r"^\|-hint\|In Gen 1, recovery moves fail if"},
    ),
    # Disable against a transformed Pokémon and against Rage
    "disable_corner_cases": Rule(
        (("Ditto", ("transform",), 100), ("Primeape", ("rage", "karatechop"), 100)),
        (("Hypno", ("disable", "psychic", "hypnosis"), 100),),
        ((M(0), M(1)), (M(0), M(0)), (M(1), M(1)), (M(0), M(1)), (S(1), M(1)), (M(0), M(1)), (M(0), M(0)),
         (M(0), M(1)), (M(0), M(1))),
        {"transformed then disabled": r"^\|-transform\|p1a: Ditto" + ANY + r"\|-start\|p1a: Ditto\|Disable",
         "rage then disabled": r"^\|move\|p1a: Primeape\|Rage" + ANY + r"\|-start\|p1a: Primeape\|Disable"},
    ),
    # Mimic copying a move, then Metronome
    "mimic_then_metronome": Rule(
        (("Clefable", ("mimic", "metronome", "bodyslam"), 100),),
        (("Tauros", ("bodyslam", "earthquake", "blizzard", "hyperbeam"), 100),),
        ((M(0), M(0)), (M(0), M(1)), (M(1), M(2)), (M(1), M(0)), (M(2), M(0))),
        {"mimic": r"^\|-start\|p1a: Clefable\|Mimic", "metronome": r"^\|move\|p1a: Clefable\|Metronome"},
    ),
    # a critical hit through Reflect
    "crit_through_reflect": Rule(
        (("Starmie", ("reflect", "surf", "recover"), 100),),
        (("Persian", ("slash", "bubblebeam"), 100),),
        ((M(0), M(0)), (M(1), M(0)), (M(2), M(0)), (M(1), M(0)), (M(1), M(0))),
        {"crit behind reflect": r"^\|-start\|p1a: Starmie\|Reflect" + ANY + r"\|move\|p2a: Persian\|Slash\|p1a: Starmie\n\|-crit\|"},
    ),
    # Counter against Seismic Toss (a Fighting move)
    "counter_seismic_toss": Rule(
        (("Hitmonchan", ("counter", "submission"), 100),),
        (("Machamp", ("seismictoss", "submission"), 100),),
        ((M(0), M(0)), (M(0), M(0)), (M(0), M(1)), (M(1), M(0))),
        {"counter after seismic toss": r"^\|move\|p2a: Machamp\|Seismic Toss" + ANY + r"\|move\|p1a: Hitmonchan\|Counter\|p2a: Machamp\n(?:\|split\|p2\n)?\|-damage\|p2a"},
    ),
    # Sleep Clause Mod: a second sleep move against the team fails while one foe sleeps
    "sleep_clause": Rule(
        (("Jynx", ("lovelykiss", "psychic"), 100),),
        (("Snorlax", ("bodyslam",), 100), ("Tauros", ("bodyslam",), 100)),
        ((M(0), M(0)), (M(0), M(0)), (M(0), S(1)), (M(0), M(0)), (M(0), M(0)), (M(1), M(0))),
        {"clause": r"^\|move\|p1a: Jynx\|Lovely Kiss\|p2a: Tauros\n(?:.*\n)??\|-message\|.*[Ss]leep [Cc]lause"},
    ),
    # a missed Hyper Beam needs no recharge; Leech Seed fails against a Substitute
    "miss_and_sub_blocks": Rule(
        (("Tauros", ("hyperbeam", "bodyslam"), 100), ("Venusaur", ("leechseed", "razorleaf"), 100)),
        (("Gengar", ("substitute", "nightshade", "confuseray"), 100),),
        ((M(0), M(0)), (S(1), M(1)), (M(0), M(0)), (M(0), M(1)), (M(0), M(1))),
        {"seed at a sub": r"^\|move\|p1a: Venusaur\|Leech Seed\|p2a: Gengar\n(?!\|-start)"},
    ),
    # Transform of a transformed target; Metronome calling Transform or Mimic
    "transform_corner_cases": Rule(
        (("Ditto", ("transform",), 100), ("Clefable", ("metronome",), 100)),
        (("Mew", ("transform", "psychic", "softboiled"), 100),),
        ((M(0), M(1)), (M(0), M(0)), (M(0), M(1)), (S(1), M(2)), (M(0), M(1)), (M(0), M(1)), (M(0), M(1)),
         (M(0), M(1)), (M(0), M(1)), (M(0), M(1)), (M(0), M(1)), (M(0), M(2))),
        {"transform of a transformed target": r"^\|-transform\|p1a: Ditto\|p2a: Mew" + ANY + r"\|-transform\|p2a: Mew\|p1a: Ditto",
         "metronome calls transform or mimic": r"^\|move\|p1a: Clefable\|(?:Transform|Mimic)\|"},
    ),
    # the trapper switching out frees the trapped foe
    "trapper_switches": Rule(
        (("Dragonite", ("wrap", "bodyslam"), 100), ("Snorlax", ("bodyslam",), 100)),
        (("Tauros", ("bodyslam", "earthquake"), 100),),
        ((M(0), M(0)), (M(0), M(0)), (S(1), M(0)), (M(0), M(0)), (S(1), M(1)), (M(0), M(0))),
        {"trapper switched out": r"^\|move\|p1a: Dragonite\|Wrap" + ANY + r"\|switch\|p1a: Snorlax" + ANY + r"\|move\|p2a: Tauros\|"},
    ),
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_corner_rule_identical(showdown, name):
    check_rule(showdown, RULES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULES))
def test_corner_rule_identical_many_seeds(showdown, name):
    check_rule(showdown, RULES[name], fixed=24)
