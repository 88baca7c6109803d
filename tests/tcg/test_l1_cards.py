"""L1: every effect kind of the card database (attacks, Abilities, Trainers) on constructed states,
on both engines. `covers(kind)` tags a test with `rule("card:<kind>")`; the last test checks that
every kind of tcgjax.cards has at least one test here or in test_l1_rules.py."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from .tcg_scenarios import both, card, coins, legal, make_game, mon, side, values_mod
from tcgjax import spec
from tcgjax.cards import ABILITY_KINDS, ATTACK_EFFECT_KINDS, TRAINER_KINDS, TYPE_INDEX
from tcgjax.reference.state import ActiveEffects

END = spec.END
PLAY = lambda h: spec.PLAY_HAND + h  # noqa: E731
ABILITY = lambda s: spec.ABILITY + s  # noqa: E731
RETREAT = lambda b: spec.RETREAT + b - 1  # noqa: E731
ATTACK = lambda a: spec.ATTACK + a  # noqa: E731
SELF = lambda s: spec.CHOOSE_SELF + s  # noqa: E731
OPP = lambda s: spec.CHOOSE_OPP + s  # noqa: E731
COPY = lambda s, a: spec.CHOOSE_COPY + 2 * s + a  # noqa: E731
T = {name: TYPE_INDEX[name] for name in ("grass", "fire", "water", "lightning", "psychic", "fighting", "darkness", "metal")}


def covers(*kinds: str):
    return pytest.mark.rule(*(f"card:{k}" for k in kinds))


def me(game):
    return game.state.players[0]


def opp(game):
    return game.state.players[1]


def attack(runner, my_active, opp_active=None, attack_index=0, flips="", my_bench=(), opp_bench=(), extra=(), **kw):
    """Seat 0 attacks with `attack_index`; returns the reference game after the actions."""
    game = make_game(me=side(active=my_active, bench=list(my_bench), **kw.pop("me", {})),
                     opp=side(active=opp_active or mon("Snorlax"), bench=list(opp_bench), **kw.pop("opp", {})))
    if flips:
        game = coins(game, flips)
    return both(runner, game, [ATTACK(attack_index)] + list(extra))


# ============================================================================ attacks

@covers("heal_self")
def test_heal_self(runner):
    game = attack(runner, mon("Bulbasaur", "Ivysaur", "Venusaur", energy="GGGG", damage=50))
    assert opp(game).active.damage == 80 and me(game).active.damage == 20


@covers("deck_random_pokemon_of_type_to_hand")
@pytest.mark.parametrize("k, found", [(0, "Oddish"), (1, "Bulbasaur")])
def test_find_a_friend(runner, k, found):
    game = make_game(me=side(active=mon("Caterpie", energy="G"), deck=["Potion", "Oddish", "Squirtle", "Bulbasaur"]))
    game = both(runner, values_mod(game, [(2, k)]), [ATTACK(0)])
    assert me(game).hand[-1] == card(found) and card(found) not in me(game).deck[:3]


@covers("inflict")
def test_inflict_poison_then_checkup(runner):
    game = attack(runner, mon("Venonat", "Venomoth", energy="G"))
    assert opp(game).active_effects.poisoned and opp(game).active.damage == 30 + 10


@covers("coin_inflict")
@pytest.mark.parametrize("flip, paralyzed", [("H", True), ("T", False)])
def test_coin_paralysis(runner, flip, paralyzed):
    game = attack(runner, mon("Articuno", energy="WWW"), flips=flip)
    assert opp(game).active.damage == 60
    assert (opp(game).active_effects.special == spec.PARALYZED) == paralyzed


@covers("coin_bonus")
@pytest.mark.parametrize("flip, damage", [("H", 60), ("T", 30)])
def test_coin_bonus(runner, flip, damage):
    game = attack(runner, mon("Exeggcute", "Exeggutor", energy="G"), flips=flip)
    assert opp(game).active.damage == damage


@covers("coin_bonus_else_self_damage")
@pytest.mark.parametrize("flip, dealt, taken", [("H", 80, 0), ("T", 40, 20)])
def test_thunder_punch(runner, flip, dealt, taken):
    game = attack(runner, mon("Electabuzz", energy="LL"), flips=flip)
    assert opp(game).active.damage == dealt and me(game).active.damage == taken


@covers("coins_times_damage")
@pytest.mark.parametrize("flips, damage", [("HH", 100), ("HT", 50), ("TT", 0)])
def test_coins_times_damage(runner, flips, damage):
    game = attack(runner, mon("Pinsir", energy="GG"), flips=flips)
    assert opp(game).active.damage == damage


@covers("coin_or_fail")
@pytest.mark.parametrize("flip, damage", [("H", 40), ("T", 0)])
def test_coin_or_fail(runner, flip, damage):
    game = attack(runner, mon("Skiddo", energy="G"), flips=flip)
    assert opp(game).active.damage == damage and game.state.turn == 6


@covers("flip_until_tails_times_damage")
def test_flip_until_tails(runner):
    game = attack(runner, mon("Lickitung", energy="GGG"), flips="HHT")
    assert opp(game).active.damage == 120


@covers("all_heads_bonus")
@pytest.mark.parametrize("flips, damage", [("HH", 160), ("HT", 80), ("TH", 80)])
def test_ko_crab(runner, flips, damage):
    game = attack(runner, mon("Krabby", "Kingler", energy="WWW"), mon("Machop", "Machoke", "Machamp ex"), flips=flips)
    assert opp(game).active.damage == damage


@covers("discard_own_energy")
def test_discard_own_energy(runner):
    game = attack(runner, mon("Charmander", energy="RRW"))
    assert me(game).active.energy[T["fire"]] == 1 and me(game).active.energy[T["water"]] == 1
    game = attack(runner, mon("Mewtwo", energy="PPPW"))
    assert me(game).active.energy[T["psychic"]] == 1 and opp(game).active.damage == 120


@covers("discard_all_own_energy")
def test_discard_all_energy(runner):
    game = attack(runner, mon("Pikachu", "Raichu", energy="LLLW"))
    assert me(game).active.total_energy == 0 and opp(game).active.damage == 140


@covers("zone_energy_to_own_bench")
def test_leaf_supply(runner):
    game = make_game(me=side(active=mon("Petilil", "Lilligant", energy="GG"), bench=[mon("Squirtle"), mon("Bulbasaur")]))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.phase == spec.ATTACK_TARGET
    mask = legal(runner, game)
    assert list(np.flatnonzero(mask)) == [SELF(2)]
    game = both(runner, game, [SELF(2)])
    assert me(game).slots[2].energy[T["grass"]] == 1 and opp(game).active.damage == 50


@covers("coins_zone_energy_to_own_bench")
@pytest.mark.rule("CHOICE-2")
def test_inferno_dance(runner):
    game = make_game(me=side(active=mon("Moltres ex", energy="R"), bench=[mon("Charmander"), mon("Squirtle"), mon("Vulpix")]))
    game = both(runner, coins(game, "HTH"), [ATTACK(0)])
    assert game.state.phase == spec.PLACE_ENERGY and game.state.aux_count == 2
    assert list(np.flatnonzero(legal(runner, game))) == [SELF(1), SELF(3)]
    game = both(runner, game, [SELF(3), SELF(3)])
    assert me(game).slots[3].energy[T["fire"]] == 2 and game.state.turn == 6
    game = make_game(me=side(active=mon("Moltres ex", energy="R"), bench=[mon("Squirtle")]))
    game = both(runner, coins(game, "HHH"), [ATTACK(0)])
    assert game.state.turn == 6, "no Benched Fire Pokémon: the Energy is lost"


@covers("zone_energy_to_self")
def test_amass(runner):
    game = attack(runner, mon("Meltan", energy="M"))
    assert me(game).active.energy[T["metal"]] == 2 and opp(game).active.damage == 0


@covers("coin_defender_cant_attack", "defender_cant_attack")
@pytest.mark.parametrize("attacker, flips, blocked", [(mon("Vulpix", energy="R"), "H", True), (mon("Vulpix", energy="R"), "T", False),
                                                       (mon("Omanyte", "Omastar", energy="WWW"), "", True)])
def test_defender_cant_attack(runner, attacker, flips, blocked):
    game = attack(runner, attacker, mon("Bulbasaur", "Ivysaur", energy="GGG"), flips=flips)
    assert game.state.turn == 6 and legal(runner, game)[ATTACK(0)] != blocked


@covers("self_damage")
def test_self_damage(runner):
    game = attack(runner, mon("Growlithe", "Arcanine", energy="RRR"))
    assert opp(game).active.damage == 100 and me(game).active.damage == 20


@covers("extra_energy_bonus")
@pytest.mark.parametrize("attacker, damage", [
    (mon("Squirtle", "Wartortle", "Blastoise", energy="WWWWW"), 140), (mon("Squirtle", "Wartortle", "Blastoise", energy="WWWWR"), 140),
    (mon("Squirtle", "Wartortle", "Blastoise", energy="WWWL"), 80), (mon("Lapras", energy="WWWW"), 90), (mon("Lapras", energy="WWWR"), 20)])
def test_extra_water(runner, attacker, damage):
    game = attack(runner, attacker)
    assert opp(game).active.damage == damage


@covers("opponent_no_supporter_next_turn")
def test_headache(runner):
    game = attack(runner, mon("Psyduck", energy="W"), opp={"hand": ["Giovanni", "Potion"]})
    assert game.state.turn == 6
    hand = opp(game).hand
    assert not legal(runner, game)[PLAY(hand.index(card("Giovanni")))]


@covers("snipe_opponent_any")
def test_thunder_spear_targets(runner):
    game = make_game(me=side(active=mon("Blitzle", "Zebstrika", energy="L")), opp=side(active=mon("Snorlax"), bench=[mon("Pidgey")]))
    game = both(runner, game, [ATTACK(0)])
    assert list(np.flatnonzero(legal(runner, game))) == [OPP(0), OPP(1)]
    game = both(runner, game, [OPP(1)])
    assert opp(game).slots[1].damage == 30 and opp(game).active.damage == 0, "no Weakness on the Bench"


@covers("snipe_opponent_bench")
def test_stretch_kick(runner):
    game = make_game(me=side(active=mon("Hitmonlee", energy="F")), opp=side(active=mon("Snorlax"), bench=[None, mon("Pidgey")]))
    game = both(runner, game, [ATTACK(0)])
    assert list(np.flatnonzero(legal(runner, game))) == [OPP(2)]
    game = both(runner, game, [OPP(2)])
    assert opp(game).slots[2].damage == 30


@covers("discard_random_opponent_energy")
@pytest.mark.parametrize("k, left", [(0, "WW"), (1, "GW"), (2, "GW")])
def test_hyper_beam(runner, k, left):
    game = make_game(me=side(active=mon("Magikarp", "Gyarados", energy="WWWW")), opp=side(active=mon("Snorlax", energy="GWW")))
    game = both(runner, values_mod(game, [(3, k)]), [ATTACK(0)])
    expected = [0] * 8
    for letter in left:
        expected[T[{"G": "grass", "W": "water"}[letter]]] += 1
    assert opp(game).active.energy == expected


@covers("coin_discard_random_opponent_energy")
@pytest.mark.parametrize("flip, left", [("H", 0), ("T", 1)])
def test_crunch(runner, flip, left):
    game = make_game(me=side(active=mon("Mawile", energy="M")), opp=side(active=mon("Snorlax", energy="G")))
    game = both(runner, coins(game, flip), [ATTACK(0)])
    assert opp(game).active.total_energy == left and opp(game).active.damage == 20


@covers("damage_each_opponent_bench")
def test_blizzard(runner):
    game = attack(runner, mon("Articuno ex", energy="WWW"), attack_index=1,
                  opp_bench=[mon("Pidgey"), mon("Shellder", "Cloyster"), mon("Rattata", damage=30)])
    assert opp(game).active.damage == 80 and opp(game).slots[1].damage == 10 and opp(game).slots[2].damage == 0
    assert opp(game).slots[3] is None and me(game).points == 1, "Rattata (40 HP) is Knocked Out on the Bench"


@covers("bonus_if_opponent_damaged")
@pytest.mark.parametrize("damaged, damage", [(0, 10), (10, 70)])
def test_second_strike(runner, damaged, damage):
    game = attack(runner, mon("Bruxish", energy="WW"), mon("Snorlax", damage=damaged))
    assert opp(game).active.damage == damaged + damage


@covers("damage_own_bench_one")
def test_raging_thunder(runner):
    game = make_game(me=side(active=mon("Zapdos", energy="LLL"), bench=[mon("Pikachu"), mon("Meltan", "Melmetal")]),
                     opp=side(active=mon("Snorlax")))
    game = both(runner, game, [ATTACK(0), SELF(2)])
    assert me(game).slots[2].damage == 10 and opp(game).active.damage == 100, "Hard Coat on the own Bench too"
    game = attack(runner, mon("Zapdos", energy="LLL"))
    assert opp(game).active.damage == 100 and game.state.turn == 6, "no Bench: no self hit"


@covers("times_own_bench")
def test_times_own_bench(runner):
    game = attack(runner, mon("Pikachu ex", energy="LL"), my_bench=[mon("Pikachu"), mon("Squirtle"), mon("Magnemite")])
    assert opp(game).active.damage == 60
    game = attack(runner, mon("Minccino", "Cinccino", energy="GGG"), my_bench=[mon("Pikachu"), mon("Squirtle"), mon("Old Amber")])
    assert opp(game).active.damage == 90
    game = attack(runner, mon("Pikachu ex", energy="LL"))
    assert opp(game).active.damage == 0


@covers("bonus_per_opponent_energy")
def test_psychic(runner):
    game = attack(runner, mon("Jynx", energy="PP"), mon("Snorlax", energy="GGW"))
    assert opp(game).active.damage == 30 + 3 * 20


@covers("reduce_damage_next_turn")
def test_barrier_attack(runner):
    game = make_game(me=side(active=mon("Mr. Mime", energy="PP")), opp=side(active=mon("Bulbasaur", "Ivysaur", energy="GGG")))
    game = both(runner, game, [ATTACK(0), ATTACK(0)])
    assert me(game).active.damage == 60 - 20 and opp(game).active.damage == 30


@covers("coin_protect_next_turn")
@pytest.mark.parametrize("flip, taken", [("H", 0), ("T", 40 + 20)])
def test_dig(runner, flip, taken):
    game = make_game(me=side(active=mon("Diglett", "Dugtrio", energy="F")), opp=side(active=mon("Bulbasaur", energy="GG")))
    game = both(runner, coins(game, flip), [ATTACK(0), ATTACK(0)])
    assert me(game).active.damage == taken


@covers("bonus_if_self_damaged")
@pytest.mark.parametrize("damaged, dealt", [(0, 40), (10, 100)])
def test_fight_back(runner, damaged, dealt):
    game = attack(runner, mon("Mankey", "Primeape", energy="FF", damage=damaged))
    assert opp(game).active.damage == dealt + 20  # Snorlax is weak to Fighting


@covers("defender_attacks_weaker")
def test_growl(runner):
    game = make_game(me=side(active=mon("Cubone", energy="F")), opp=side(active=mon("Bulbasaur", energy="GG")))
    game = both(runner, game, [ATTACK(0), ATTACK(0)])
    assert me(game).active.damage == 40 - 20 + 20, "Vine Whip 40 - 20, then Weakness (Cubone is weak to Grass)"


@covers("heal_self_by_damage_dealt")
def test_leech_life(runner):
    game = attack(runner, mon("Dome Fossil", "Kabuto", "Kabutops", energy="F", damage=80), mon("Snorlax"))
    assert opp(game).active.damage == 70 and me(game).active.damage == 10


@covers("switch_out_opponent_active")
def test_knock_back(runner):
    game = make_game(me=side(active=mon("Clobbopus", "Grapploct", energy="FFF")),
                     opp=side(active=mon("Snorlax"), bench=[mon("Pidgey"), mon("Rattata")]))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.phase == spec.SWITCH_OUT and game.state.decider == 1
    game = both(runner, game, [SELF(2)])
    assert game.pokemon_name(opp(game).active) == "Rattata" and opp(game).slots[2].damage == 90
    assert game.state.turn == 6 and game.state.turn_player == 1


@covers("defender_cant_retreat")
def test_corner(runner):
    game = attack(runner, mon("Ekans", "Arbok", energy="DD"), mon("Snorlax", energy="GGGG"), opp_bench=[mon("Pidgey")])
    assert game.state.turn == 6 and not legal(runner, game)[RETREAT(1)]


@covers("deck_random_named_to_bench")
def test_call_for_family(runner):
    game = make_game(me=side(active=mon("Nidoran♀", energy="D"), bench=[mon("Pidgey")], deck=["Potion", "Nidoran♂", "Nidoran♂", "Squirtle"]))
    game = both(runner, values_mod(game, [(2, 1)]), [ATTACK(0)])
    assert game.pokemon_name(me(game).slots[2]) == "Nidoran♂" and me(game).deck == [card(n) for n in ("Potion", "Nidoran♂", "Squirtle")]
    assert me(game).slots[2].turn_played == 5


@covers("bonus_per_own_bench_named")
def test_lovestrike(runner):
    game = attack(runner, mon("Nidoran♀", "Nidorina", "Nidoqueen", energy="DDD"),
                  my_bench=[mon("Nidoran♂", "Nidorino", "Nidoking"), mon("Nidoran♂")])
    assert opp(game).active.damage == 80 + 50


@covers("bonus_if_opponent_poisoned")
@pytest.mark.parametrize("poisoned, damage", [(True, 120 + 10), (False, 70)])
def test_venoshock(runner, poisoned, damage):
    game = attack(runner, mon("Grimer", "Muk", energy="DDD"), opp={"effects": ActiveEffects(poisoned=poisoned)})
    assert opp(game).active.damage == damage


@covers("random_opponent_hits")
def test_draco_meteor(runner):
    game = make_game(me=side(active=mon("Dratini", "Dragonair", "Dragonite", energy="WLLL")),
                     opp=side(active=mon("Snorlax"), bench=[None, mon("Onix")]))
    game = both(runner, values_mod(game, [(2, 0), (2, 1), (2, 1), (2, 0)]), [ATTACK(0)])
    assert opp(game).active.damage == 100 and opp(game).slots[2].damage == 100


@covers("draw")
def test_pay_day(runner):
    game = make_game(me=side(active=mon("Meowth", energy="G"), deck=["Potion", "Squirtle"]))
    game = both(runner, game, [ATTACK(0)])
    assert me(game).hand == [card("Potion")] and me(game).deck == [card("Squirtle")]


@covers("coin_discard_random_opponent_hand_card")
def test_shadow_claw(runner):
    game = make_game(me=side(active=mon("Meowth", "Persian", energy="GG")), opp=side(active=mon("Snorlax"), hand=["Potion", "Giovanni", "Misty"]))
    game = both(runner, coins(game, "H"), [ATTACK(0)])
    assert len(opp(game).discard) == 1 and len(opp(game).hand) == 2 + 1  # one discarded, one drawn on turn 6


@covers("copy_opponent_attack")
@pytest.mark.rule("CHOICE-2", "ATK-4")
def test_copy_anything(runner):
    game = make_game(me=side(active=mon("Ditto", energy="GW")),
                     opp=side(active=mon("Bulbasaur"), bench=[mon("Horsea", "Seadra"), mon("Mewtwo ex")]))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.phase == spec.COPY_ATTACK
    assert list(np.flatnonzero(legal(runner, game))) == [COPY(0, 0), COPY(1, 0), COPY(2, 0), COPY(2, 1)]
    game = both(runner, game, [COPY(0, 0)])
    assert opp(game).active.damage == 40 and game.state.turn == 6
    game = make_game(me=side(active=mon("Ditto", energy="GW")), opp=side(active=mon("Mewtwo ex")))
    game = both(runner, game, [ATTACK(0), COPY(0, 1)])
    assert opp(game).active.damage == 0 and game.state.turn == 6, "not enough Energy: nothing happens"
    game = make_game(me=side(active=mon("Ditto", energy="WWW")), opp=side(active=mon("Snorlax"), bench=[mon("Horsea", "Seadra")]))
    game = both(runner, game, [ATTACK(0), COPY(1, 0)])
    assert game.state.phase == spec.ATTACK_TARGET
    game = both(runner, game, [OPP(1)])
    assert opp(game).slots[1].damage == 50


@covers("coin_shuffle_opponent_active_into_deck")
def test_primal_wingbeat(runner):
    game = make_game(me=side(active=mon("Old Amber", "Aerodactyl", energy="GG")),
                     opp=side(active=mon("Bulbasaur", "Ivysaur", energy="GG"), bench=[mon("Pidgey")]))
    deck_before = len(opp(game).deck)
    game = both(runner, coins(game, "H"), [ATTACK(0)])
    assert opp(game).active is None and len(opp(game).deck) == deck_before + 2
    assert game.state.phase == spec.PROMOTE and game.state.decider == 1 and me(game).points == 0


@covers("switch_self_with_bench")
def test_teleport(runner):
    game = make_game(me=side(active=mon("Abra", energy="P"), bench=[mon("Pidgey")], effects=ActiveEffects(poisoned=True)))
    game = both(runner, game, [ATTACK(0), SELF(1)])
    assert game.pokemon_name(me(game).active) == "Pidgey" and me(game).active.damage == 0


@covers("reveal_opponent_hand")
def test_psy_report(runner):
    game = attack(runner, mon("Mew", energy="P"))
    assert opp(game).active.damage == 20


# ============================================================================ Abilities

@covers("heal_all_own")
def test_powder_heal(runner):
    game = make_game(me=side(active=mon("Caterpie", "Metapod", "Butterfree", damage=30), bench=[mon("Pidgey", damage=10), mon("Rattata")]))
    game = both(runner, game, [ABILITY(0)])
    assert me(game).active.damage == 10 and me(game).slots[1].damage == 0 and me(game).active.ability_used


@covers("pull_opponent_bench_basic")
def test_fragrance_trap(runner):
    game = make_game(me=side(active=mon("Bellsprout", "Weepinbell", "Victreebel")),
                     opp=side(active=mon("Snorlax", energy="W"), bench=[mon("Pidgey"), mon("Squirtle", "Wartortle")]))
    assert not legal(runner, game)[ABILITY(1)]
    game = both(runner, game, [ABILITY(0)])
    assert list(np.flatnonzero(legal(runner, game))) == [OPP(1)]
    game = both(runner, game, [OPP(1)])
    assert game.pokemon_name(opp(game).active) == "Pidgey" and game.pokemon_name(opp(game).slots[1]) == "Snorlax"


@covers("counterattack")
def test_counterattack(runner):
    game = attack(runner, mon("Bulbasaur", energy="GG"), mon("Poliwag", "Poliwhirl", "Poliwrath"))
    assert opp(game).active.damage == 40 and me(game).active.damage == 20
    game = attack(runner, mon("Hitmonlee", energy="F"), mon("Poliwag", "Poliwhirl", "Poliwrath"), opp_bench=[mon("Pidgey")], extra=[OPP(1)])
    assert me(game).active.damage == 0, "Bench damage to another Pokémon does not trigger it"


@covers("reduce_incoming")
def test_shell_armor(runner):
    game = attack(runner, mon("Bulbasaur", energy="GG"), mon("Shellder", "Cloyster"))
    assert opp(game).active.damage == 30


@covers("damage_opponent_any")
def test_water_shuriken_knock_out_mid_turn(runner):
    game = make_game(me=side(active=mon("Froakie", "Frogadier", "Greninja")), opp=side(active=mon("Rattata", damage=20), bench=[mon("Pidgey")]))
    game = both(runner, game, [ABILITY(0), OPP(0)])
    assert me(game).points == 1 and game.state.phase == spec.PROMOTE and game.state.decider == 1
    game = both(runner, game, [SELF(1)])
    assert game.state.phase == spec.MAIN and game.state.decider == 0 and game.state.turn == 5


@covers("zone_energy_to_self", "look_top_of_deck")
def test_volt_charge_and_data_scan(runner):
    game = make_game(me=side(active=mon("Magnemite", "Magneton"), bench=[mon("Porygon")]))
    before = game.canonical()
    game = both(runner, game, [ABILITY(0), ABILITY(1)])
    assert me(game).active.energy[T["lightning"]] == 1 and me(game).slots[1].ability_used
    after = game.canonical()
    assert [k for k in before if not np.array_equal(before[k], after[k])] == ["energy", "ability_used"]


@covers("block_opponent_supporters")
def test_shadowy_spellbind(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Professor's Research", "Potion"]),
                     opp=side(active=mon("Gastly", "Haunter", "Gengar ex")))
    mask = legal(runner, game)
    assert not mask[PLAY(0)] and not mask[ABILITY(0)]


@covers("coin_opponent_asleep")
@pytest.mark.parametrize("flip, asleep", [("H", True), ("T", False)])
def test_sleep_pendulum(runner, flip, asleep):
    game = make_game(me=side(active=mon("Drowzee", "Hypno")))
    game = both(runner, coins(game, flip), [ABILITY(0)])
    assert (opp(game).active_effects.special == spec.ASLEEP) == asleep


@covers("zone_energy_to_active_of_type")
def test_psy_shadow(runner):
    game = make_game(me=side(active=mon("Ralts"), bench=[mon("Ralts", "Kirlia", "Gardevoir")]))
    game = both(runner, game, [ABILITY(1)])
    assert me(game).active.energy[T["psychic"]] == 1
    game = make_game(me=side(active=mon("Bulbasaur"), bench=[mon("Ralts", "Kirlia", "Gardevoir")]))
    assert not legal(runner, game)[ABILITY(1)]


@covers("poison_opponent_active")
def test_gas_leak(runner):
    game = make_game(me=side(active=mon("Koffing", "Weezing")))
    game = both(runner, game, [ABILITY(0), END])
    assert opp(game).active_effects.poisoned and opp(game).active.damage == 10


@covers("switch_out_opponent_active")
def test_drive_off(runner):
    game = make_game(me=side(active=mon("Pidgey", "Pidgeotto", "Pidgeot")), opp=side(active=mon("Snorlax"), bench=[mon("Rattata")]))
    game = both(runner, game, [ABILITY(0), SELF(1)])
    assert game.pokemon_name(opp(game).active) == "Rattata" and game.state.decider == 0


# ============================================================================ Trainers

@covers("heal_target")
def test_erika(runner):
    game = make_game(me=side(active=mon("Bulbasaur", damage=60), bench=[mon("Squirtle", damage=30)], hand=["Erika"]))
    game = both(runner, game, [PLAY(0)])
    assert list(np.flatnonzero(legal(runner, game))) == [SELF(0)]
    game = both(runner, game, [SELF(0)])
    assert me(game).active.damage == 10


@covers("reveal_opponent_hand", "look_top_of_deck")
@pytest.mark.rule("INFO-3")
def test_information_items(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Hand Scope", "Pokédex"]))
    before = game.canonical()
    game = both(runner, game, [PLAY(0), PLAY(0)])
    after = game.canonical()
    assert sorted(k for k in before if not np.array_equal(before[k], after[k])) == ["discard", "discard_size", "hand", "hand_size"]


@covers("opponent_shuffle_hand_draw")
def test_red_card(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Red Card"]),
                     opp=side(active=mon("Snorlax"), hand=["Potion", "Misty", "Erika", "Koga"], deck=["Pidgey"] * 2))
    counter = game.state.rng_counter
    game = both(runner, game, [PLAY(0)])
    assert len(opp(game).hand) == 3 and len(opp(game).deck) == 3
    assert sorted(opp(game).hand + opp(game).deck) == sorted(card(n) for n in ("Potion", "Misty", "Erika", "Koga", "Pidgey", "Pidgey"))
    assert game.state.rng_counter == counter + 5


@covers("draw")
def test_professors_research(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Professor's Research"], deck=["Potion"]))
    game = both(runner, game, [PLAY(0)])
    assert me(game).hand == [card("Potion")] and me(game).deck == []


@covers("fossil")
def test_fossil_in_play(runner):
    game = make_game(me=side(active=mon("Squirtle"), hand=["Helix Fossil"]),
                     opp=side(active=mon("Bulbasaur", "Ivysaur", energy="GGG")))
    game = both(runner, game, [PLAY(0)])
    assert me(game).slots[1].cards == [card("Helix Fossil")] and card("Helix Fossil") not in me(game).discard
    me(game).slots[0], me(game).slots[1] = me(game).slots[1], me(game).slots[0]
    assert not legal(runner, game)[ATTACK(0)], "a fossil has no attacks"
    game = both(runner, game, [END, ATTACK(0)])
    assert me(game).slots[0] is None and opp(game).points == 1, "a Knocked Out fossil gives 1 point"


@covers("named_attack_bonus")
@pytest.mark.parametrize("attacker, damage", [(mon("Vulpix", "Ninetales", energy="RR"), 90 + 30), (mon("Charmander", energy="R"), 30)])
def test_blaine(runner, attacker, damage):
    game = make_game(me=side(active=attacker, hand=["Blaine"]), opp=side(active=mon("Snorlax")))
    game = both(runner, game, [PLAY(0), ATTACK(0)])
    assert opp(game).active.damage == damage


@covers("return_active_to_hand")
def test_koga(runner):
    game = make_game(me=side(active=mon("Koffing", "Weezing", energy="DD", damage=30), bench=[mon("Grimer")], hand=["Koga"]))
    game = both(runner, game, [PLAY(0)])
    assert me(game).hand == [card("Koffing"), card("Weezing")] and game.state.phase == spec.PROMOTE
    game = both(runner, game, [SELF(1)])
    assert game.pokemon_name(me(game).active) == "Grimer" and game.state.phase == spec.MAIN
    game = make_game(me=side(active=mon("Koffing", "Weezing"), hand=["Koga"]))
    assert not legal(runner, game)[PLAY(0)], "no Bench to promote"


@covers("attack_bonus")
def test_giovanni_not_on_bench(runner):
    game = make_game(me=side(active=mon("Hitmonlee", energy="F"), hand=["Giovanni"]), opp=side(active=mon("Snorlax"), bench=[mon("Pidgey")]))
    game = both(runner, game, [PLAY(0), ATTACK(0), OPP(1)])
    assert opp(game).slots[1].damage == 30


@covers("zone_energy_to_named")
def test_brock(runner):
    game = make_game(me=side(active=mon("Geodude"), bench=[mon("Onix")], hand=["Brock"], current="fighting", energy_types=("fighting",)))
    game = both(runner, game, [PLAY(0)])
    assert list(np.flatnonzero(legal(runner, game))) == [SELF(1)]
    game = both(runner, game, [SELF(1)])
    assert me(game).slots[1].energy[T["fighting"]] == 1 and me(game).energy_current == T["fighting"]


@covers("move_bench_energy_to_active")
def test_lt_surge(runner):
    game = make_game(me=side(active=mon("Pikachu", "Raichu", energy="L"), bench=[mon("Pikachu", energy="LLW"), mon("Voltorb", energy="L")],
                             hand=["Lt. Surge"]))
    game = both(runner, game, [PLAY(0)])
    assert me(game).active.energy[T["lightning"]] == 4 and me(game).slots[1].energy[T["water"]] == 1
    assert me(game).slots[1].energy[T["lightning"]] == 0
    game = make_game(me=side(active=mon("Pikachu"), hand=["Lt. Surge"]))
    assert not legal(runner, game)[PLAY(0)]


# ============================================================================ coverage of every kind

def test_every_effect_kind_has_a_test():
    here = pathlib.Path(__file__).parent
    text = "".join(p.read_text(encoding="utf-8") for p in here.glob("test_l1_*.py"))
    tested = set(re.findall(r'covers\(([^)]*)\)', text))
    names = {n.strip().strip('"') for group in tested for n in group.split(",")} | set(re.findall(r'"card:(\w+)"', text))
    missing = (set(ATTACK_EFFECT_KINDS) | set(ABILITY_KINDS) | set(TRAINER_KINDS)) - names
    assert not missing, f"effect kinds without an L1 test: {sorted(missing)}"
