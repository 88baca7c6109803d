"""L2: interactions between rules and cards, on constructed states, on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from .tcg_scenarios import both, card, coins, legal, make_game, mon, side
from tcgjax import spec
from tcgjax.reference.state import ActiveEffects

END = spec.END
PLAY = lambda h: spec.PLAY_HAND + h  # noqa: E731
ABILITY = lambda s: spec.ABILITY + s  # noqa: E731
RETREAT = lambda b: spec.RETREAT + b - 1  # noqa: E731
ATTACK = lambda a: spec.ATTACK + a  # noqa: E731
SELF = lambda s: spec.CHOOSE_SELF + s  # noqa: E731
OPP = lambda s: spec.CHOOSE_OPP + s  # noqa: E731


def me(game):
    return game.state.players[0]


def opp(game):
    return game.state.players[1]


@pytest.mark.rule("RETREAT-5", "STATUS-3", "CHECKUP-2")
def test_retreating_cures_poison_before_the_checkup(runner):
    game = make_game(me=side(active=mon("Squirtle", energy="W", damage=50), bench=[mon("Oddish")],
                             effects=ActiveEffects(poisoned=True, special=spec.CONFUSED)))
    game = both(runner, game, [RETREAT(1), END])
    assert me(game).slots[1].damage == 50, "no Poison damage on the Bench"
    assert me(game).active.damage == 0 and me(game).active_effects == ActiveEffects()


@pytest.mark.rule("STATUS-4", "RETREAT-4", "CHECKUP-4")
def test_asleep_cannot_retreat_until_it_wakes(runner):
    game = make_game(me=side(active=mon("Squirtle", energy="W"), bench=[mon("Oddish")], effects=ActiveEffects(special=spec.ASLEEP)),
                     opp=side(active=mon("Snorlax")))
    assert not legal(runner, game)[RETREAT(1)]
    game = both(runner, coins(game, "HT"), [END])  # my Checkup flip: heads, awake
    game = both(runner, game, [END])
    assert game.state.turn == 7 and legal(runner, game)[RETREAT(1)]


@pytest.mark.rule("CHECKUP-6", "KO-2", "KO-4", "WIN-2")
def test_checkup_knocks_out_both_actives(runner):
    # Both Actives are Knocked Out by Poison at the same Checkup: each player scores; the player who
    # plays next (seat 1) promotes first.
    game = make_game(me=side(active=mon("Pikachu ex", damage=110), bench=[mon("Pidgey")], effects=ActiveEffects(poisoned=True)),
                     opp=side(active=mon("Rattata", damage=30), bench=[mon("Pidgey")], effects=ActiveEffects(poisoned=True)))
    game = both(runner, game, [END])
    assert me(game).points == 1 and opp(game).points == 2
    assert game.state.phase == spec.PROMOTE and game.state.decider == 1
    game = both(runner, game, [SELF(1)])
    assert game.state.phase == spec.PROMOTE and game.state.decider == 0
    game = both(runner, game, [SELF(1)])
    assert game.state.turn == 6 and game.state.turn_player == 1 and game.state.phase == spec.MAIN


@pytest.mark.rule("CHECKUP-6", "WIN-1")
def test_poison_knock_out_of_an_ex_ends_the_game(runner):
    game = make_game(me=side(active=mon("Koffing", "Weezing"), points=1),
                     opp=side(active=mon("Pikachu ex", damage=110), bench=[mon("Pidgey")]))
    game = both(runner, game, [ABILITY(0), END])
    assert game.state.game_over and game.state.winner == 0 and me(game).points == 3


@pytest.mark.rule("EVOLVE-3", "KO-1")
def test_evolving_a_damaged_pokemon_saves_it(runner):
    game = make_game(me=side(active=mon("Bulbasaur", damage=60), hand=["Ivysaur"]),
                     opp=side(active=mon("Weedle", energy="G")))
    game = both(runner, game, [PLAY(0), SELF(0), END])
    assert game.pokemon_name(me(game).active) == "Ivysaur" and me(game).active.damage == 60
    game = both(runner, game, [ATTACK(0)])  # Weedle's Sting: 20 more -> 80 < 90
    assert me(game).active.damage == 80 and me(game).active is not None


@pytest.mark.rule("KO-5", "STATUS-3", "DMG-7")
def test_sabrina_ends_conditions_and_attack_effects(runner):
    fx = ActiveEffects(poisoned=True, special=spec.ASLEEP, cant_retreat_turn=6, reduce_damage_turn=6, reduce_damage_amount=20)
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG"), hand=["Sabrina"]),
                     opp=side(active=mon("Mr. Mime"), bench=[mon("Snorlax")], effects=fx))
    game = both(runner, game, [PLAY(0), SELF(1)])
    assert opp(game).active_effects == ActiveEffects() and game.pokemon_name(opp(game).slots[1]) == "Mr. Mime"
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 40


@pytest.mark.rule("KO-3", "KO-5")
def test_knock_back_on_a_knocked_out_pokemon(runner):
    # The defender is switched to the Bench by the attack, then Knocked Out there: no promotion.
    game = make_game(me=side(active=mon("Clobbopus", "Grapploct", energy="FFF")),
                     opp=side(active=mon("Pidgey", damage=20), bench=[mon("Rattata"), mon("Snorlax")]))
    game = both(runner, game, [ATTACK(0), SELF(2)])
    assert game.pokemon_name(opp(game).active) == "Snorlax" and opp(game).slots[2] is None
    assert me(game).points == 1 and game.state.turn == 6 and game.state.phase == spec.MAIN


@pytest.mark.rule("DMG-5", "KO-5")
def test_dig_blocks_knock_back_and_sleep(runner):
    fx = ActiveEffects(protected_turn=5)
    game = make_game(me=side(active=mon("Clobbopus", "Grapploct", energy="FFF")),
                     opp=side(active=mon("Diglett", "Dugtrio"), bench=[mon("Rattata")], effects=fx))
    game = both(runner, game, [ATTACK(0)])
    assert game.pokemon_name(opp(game).active) == "Dugtrio" and opp(game).active.damage == 0 and game.state.turn == 6


@pytest.mark.rule("KO-2", "WIN-2", "ATK-5")
def test_counterattack_knocks_out_the_attacker_for_the_last_point(runner):
    game = make_game(me=side(active=mon("Pikachu ex", energy="LL", damage=100), bench=[mon("Pidgey")]),
                     opp=side(active=mon("Poliwag", "Poliwhirl", "Poliwrath"), bench=[mon("Rattata")], points=1))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 0, "Circle Circuit with no Benched Lightning Pokémon does no damage"
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG", damage=60), bench=[mon("Pidgey")]),
                     opp=side(active=mon("Poliwag", "Poliwhirl", "Poliwrath"), bench=[mon("Rattata")], points=2))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.game_over and game.state.winner == 1 and opp(game).points == 3


@pytest.mark.rule("WIN-1", "card:coin_shuffle_opponent_active_into_deck")
def test_primal_wingbeat_on_the_last_pokemon_wins(runner):
    game = make_game(me=side(active=mon("Old Amber", "Aerodactyl", energy="GG")), opp=side(active=mon("Snorlax")))
    game = both(runner, coins(game, "H"), [ATTACK(0)])
    assert game.state.game_over and game.state.winner == 0 and me(game).points == 0


@pytest.mark.rule("KO-4", "DMG-4", "ATK-1")
def test_ability_knock_out_then_attack_the_new_active(runner):
    game = make_game(me=side(active=mon("Froakie", "Frogadier", "Greninja", energy="WW")),
                     opp=side(active=mon("Rattata", damage=20), bench=[mon("Snorlax")]))
    game = both(runner, game, [ABILITY(0), OPP(0), SELF(1), ATTACK(0)])
    assert opp(game).active.damage == 60 and me(game).points == 1 and game.state.turn == 6


@pytest.mark.rule("KO-3", "card:random_opponent_hits")
def test_draco_meteor_knocks_out_several(runner):
    from .tcg_scenarios import values_mod
    game = make_game(me=side(active=mon("Dratini", "Dragonair", "Dragonite", energy="WLLL")),
                     opp=side(active=mon("Rattata"), bench=[mon("Pidgey"), mon("Snorlax")]))
    game = both(runner, values_mod(game, [(3, 0), (3, 1), (3, 1), (3, 1)]), [ATTACK(0)])
    assert me(game).points == 2 and game.state.phase == spec.PROMOTE
    assert opp(game).slots[1] is None and opp(game).slots[2].damage == 0
    assert list(np.flatnonzero(legal(runner, game))) == [SELF(2)]


@pytest.mark.rule("TRAINER-1", "ENERGY-4", "ATK-1")
def test_misty_then_attack_in_one_turn(runner):
    game = make_game(me=side(active=mon("Staryu", "Starmie ex"), hand=["Misty"], current="water", energy_types=("water",)),
                     opp=side(active=mon("Snorlax")))
    game = both(runner, coins(game, "HT"), [PLAY(0), SELF(0), spec.ATTACH + 0, ATTACK(0)])
    assert opp(game).active.damage == 90


@pytest.mark.rule("LIMIT-1", "card:opponent_shuffle_hand_draw")
def test_red_card_on_an_empty_deck(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Red Card"]), opp=side(active=mon("Snorlax"), hand=["Potion"], deck=[]))
    game = both(runner, game, [PLAY(0)])
    assert opp(game).hand == [card("Potion")] and opp(game).deck == []


@pytest.mark.rule("TRAINER-3", "DMG-7")
def test_headache_lasts_one_turn(runner):
    game = make_game(me=side(active=mon("Psyduck", energy="W")), opp=side(active=mon("Snorlax"), hand=["Giovanni"]))
    game = both(runner, game, [ATTACK(0)])
    g = opp(game).hand.index(card("Giovanni"))
    assert not legal(runner, game)[PLAY(g)]
    game = both(runner, game, [END, END])
    g = opp(game).hand.index(card("Giovanni"))
    assert game.state.turn == 8 and legal(runner, game)[PLAY(g)]


@pytest.mark.rule("KO-4", "card:return_active_to_hand", "EVOLVE-2")
def test_koga_then_replay_the_basic(runner):
    game = make_game(me=side(active=mon("Koffing", "Weezing", damage=50), bench=[mon("Grimer")], hand=["Koga"]))
    game = both(runner, game, [PLAY(0), SELF(1), PLAY(0)])
    assert game.pokemon_name(me(game).slots[1]) == "Koffing" and me(game).slots[1].damage == 0
    assert not legal(runner, game)[PLAY(0)], "Weezing cannot evolve the Koffing played this turn"
