"""L1: each rule of docs/tcg/rules.md on constructed states, on both engines.

Every test asserts what the rule says (expected values written from the spec) on the reference game,
and `both()` asserts that the JAX engine produced the identical state and legal mask after every
action.
"""

from __future__ import annotations

import numpy as np
import pytest

from .tcg_scenarios import both, card, coins, legal, make_game, mon, side, values_mod
from tcgjax import spec
from tcgjax.cards import TYPE_INDEX
from tcgjax.decks import shipped_decks
from tcgjax.reference import Game, IllegalActionError
from tcgjax.reference.state import ActiveEffects
from tcgjax.verify import deck_arrays, jax_canonical

END = spec.END
PLAY = lambda h: spec.PLAY_HAND + h  # noqa: E731
ATTACH = lambda s: spec.ATTACH + s  # noqa: E731
ABILITY = lambda s: spec.ABILITY + s  # noqa: E731
RETREAT = lambda b: spec.RETREAT + b - 1  # noqa: E731
ATTACK = lambda a: spec.ATTACK + a  # noqa: E731
SELF = lambda s: spec.CHOOSE_SELF + s  # noqa: E731
OPP = lambda s: spec.CHOOSE_OPP + s  # noqa: E731
ENERGY = lambda t: spec.CHOOSE_ENERGY + TYPE_INDEX[t]  # noqa: E731
FIRE, WATER, LIGHTNING, GRASS, PSYCHIC = (TYPE_INDEX[t] for t in ("fire", "water", "lightning", "grass", "psychic"))


def me(game):
    return game.state.players[0]


def opp(game):
    return game.state.players[1]


# ============================================================================ SETUP

@pytest.mark.rule("SETUP-1", "SETUP-2", "SETUP-3", "SETUP-5", "RNG-1", "RNG-3")
@pytest.mark.parametrize("rule", [spec.OPENING_RESHUFFLE, spec.OPENING_ONE_BASIC])
def test_new_game_on_both_engines(runner, rule):
    decks = list(shipped_decks().values())
    seeds = list(range(1000, 1016))
    pairs = [(decks[i % len(decks)], decks[(3 * i + 1) % len(decks)]) for i in range(16)]
    arrays = [deck_arrays(p) for p in pairs]
    jax_states = runner.new_games(np.array(seeds, np.uint32), np.stack([a[0] for a in arrays]),
                                  np.stack([a[1] for a in arrays]), opening_hand_rule=rule)
    firsts = set()
    import jax
    jax_states = jax.device_get(jax_states)
    for g, (pair, seed) in enumerate(zip(pairs, seeds)):
        game = Game.new(pair, seed, opening_hand_rule=rule)
        ref = game.canonical()
        ours = jax_canonical(jax_states, g)
        for name, value in ref.items():
            assert np.array_equal(value, ours[name]), (seed, name)
        s = game.state
        firsts.add(s.first_player)
        assert s.phase == spec.SETUP and s.decider == s.first_player and s.turn == 0
        for p, player in enumerate(s.players):
            assert len(player.hand) == 5 and len(player.deck) == 15
            assert sorted(player.hand + player.deck) == sorted(pair[p].cards)
            assert any(game.card(c).is_basic_pokemon for c in player.hand)
            if rule == spec.OPENING_ONE_BASIC:
                assert game.card(player.hand[0]).is_basic_pokemon
            assert player.energy_next in player.energy_types and player.energy_current == -1
    assert firsts == {0, 1}


@pytest.mark.rule("SETUP-4", "TURN-1", "TURN-2", "ENERGY-1", "INFO-2")
def test_setup_placement_then_turn_one(runner):
    decks = list(shipped_decks().values())
    game = Game.new([decks[2], decks[5]], 77)
    first = game.state.first_player
    hand = game.state.players[first].hand
    basics = [h for h, c in enumerate(hand) if game.card(c).is_basic_pokemon]
    mask = legal(runner, game)
    assert not mask[END], "END needs an Active first"
    assert [h for h in range(spec.HAND_CAPACITY) if mask[PLAY(h)]] == basics
    actions = [PLAY(basics[0]), END]
    game = both(runner, game, actions)
    placed = game.state.players[first]
    assert placed.active is not None and game.state.decider == 1 - first and game.state.phase == spec.SETUP
    second = game.state.players[1 - first]
    basics2 = [h for h, c in enumerate(second.hand) if game.card(c).is_basic_pokemon]
    hand_before = len(placed.hand)
    actions = [PLAY(h) for h in reversed(basics2[:2])] + [END]
    game = both(runner, game, actions)
    assert second.active is not None and len(second.bench_slots()) == min(1, len(basics2) - 1)
    s = game.state
    assert s.turn == 1 and s.turn_player == first and s.phase == spec.MAIN
    assert len(placed.hand) == hand_before + 1, "the first player draws on turn 1 (TURN-2)"
    assert placed.energy_current == -1, "no Energy on the first player's turn 1 (ENERGY-1)"


@pytest.mark.rule("SETUP-4", "DECK-3")
def test_fossils_cannot_be_placed_in_setup(runner):
    decks = shipped_decks()
    game = Game.new([decks["primeape-aerodactyl"], decks["gengar-ex"]], 5)
    s = game.state
    player = s.players[s.first_player]
    player.hand = [card("Old Amber"), card("Mankey"), card("Old Amber")]
    mask = legal(runner, game)
    assert not mask[PLAY(0)] and mask[PLAY(1)] and not mask[PLAY(2)]


# ============================================================================ TURN, ENERGY

@pytest.mark.rule("TURN-2", "TURN-4", "TURN-5", "ENERGY-1", "ENERGY-2", "ENERGY-3")
def test_turn_cycle_energy_and_reset(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), current="fire", energy_types=("fire",)),
                     opp=side(active=mon("Squirtle"), energy_types=("water", "psychic"), next_energy="psychic"))
    me(game).supporter_played = True
    me(game).retreat_reduction = 2
    opp_hand = len(opp(game).hand)
    game = both(runner, game, [END])
    s = game.state
    assert s.turn == 6 and s.turn_player == 1 and s.decider == 1
    assert me(game).energy_current == -1, "unused Energy is lost (TURN-5)"
    assert not me(game).supporter_played and me(game).retreat_reduction == 0
    assert len(opp(game).hand) == opp_hand + 1
    assert opp(game).energy_current == PSYCHIC, "next becomes current (ENERGY-1)"
    assert opp(game).energy_next in (WATER, PSYCHIC)


@pytest.mark.rule("ENERGY-3", "TURN-3")
def test_attach_once_per_turn_to_any_pokemon(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), bench=[mon("Oddish")], current="grass", energy_types=("grass",)))
    mask = legal(runner, game)
    assert mask[ATTACH(0)] and mask[ATTACH(1)] and not mask[ATTACH(2)]
    game = both(runner, game, [ATTACH(1)])
    assert me(game).slots[1].energy[GRASS] == 1 and me(game).energy_current == -1
    assert not legal(runner, game)[ATTACH(0)]


@pytest.mark.rule("ENERGY-2")
def test_energy_roll_is_uniform_over_the_decks_types():
    decks = shipped_decks()
    counts = np.zeros(8, int)
    for seed in range(300):
        game = Game.new([decks["dragonite-weezing"], decks["dragonite-weezing"]], seed)
        counts[game.state.players[0].energy_next] += 1
    assert counts[WATER] > 100 and counts[LIGHTNING] > 100 and counts.sum() == counts[WATER] + counts[LIGHTNING]


# ============================================================================ BENCH, EVOLVE

@pytest.mark.rule("BENCH-1", "BENCH-2")
def test_bench_fills_lowest_slot_and_marks_new(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), bench=[None, mon("Oddish")], hand=["Weedle", "Caterpie", "Pidgey"]))
    game = both(runner, game, [PLAY(0)])
    assert game.pokemon_name(me(game).slots[1]) == "Weedle" and me(game).slots[1].turn_played == 5
    game = both(runner, game, [PLAY(0)])
    assert game.pokemon_name(me(game).slots[3]) == "Caterpie"
    assert me(game).hand == [card("Pidgey")] and not legal(runner, game)[PLAY(0)], "the Bench is full"


@pytest.mark.rule("EVOLVE-1", "EVOLVE-2", "EVOLVE-3")
def test_evolution_targets_and_effects(runner):
    fx = ActiveEffects(poisoned=True, special=spec.ASLEEP, cant_attack_turn=5)
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG", damage=30), bench=[mon("Bulbasaur", turn_played=5), mon("Oddish")],
                             hand=["Ivysaur", "Gloom", "Venusaur"], effects=fx))
    mask = legal(runner, game)
    assert mask[PLAY(0)] and mask[PLAY(1)] and not mask[PLAY(2)], "Venusaur needs an Ivysaur in play"
    game = both(runner, game, [PLAY(0)])
    assert game.state.phase == spec.EVOLVE_TARGET
    mask = legal(runner, game)
    assert mask[SELF(0)] and not mask[SELF(1)], "not onto a Pokémon put into play this turn (EVOLVE-2)"
    game = both(runner, game, [SELF(0)])
    active = me(game).active
    assert game.pokemon_name(active) == "Ivysaur" and active.damage == 30 and active.energy[GRASS] == 2
    assert me(game).active_effects == ActiveEffects(), "evolving clears conditions and effects (EVOLVE-3)"
    assert active.turn_played == 5
    me(game).hand = [card("Venusaur")]
    assert not legal(runner, game)[PLAY(0)], "Basic to Stage 2 in one turn is impossible"


@pytest.mark.rule("EVOLVE-2")
@pytest.mark.parametrize("turn", [1, 2])
def test_no_evolution_on_a_players_first_turn(runner, turn):
    game = make_game(me=side(active=mon("Bulbasaur", turn_played=0), hand=["Ivysaur"]), turn=turn)
    assert not legal(runner, game)[PLAY(0)]


@pytest.mark.rule("EVOLVE-2", "RETREAT-1")
def test_a_pokemon_moved_to_active_this_turn_may_evolve(runner):
    game = make_game(me=side(active=mon("Oddish", energy="G"), bench=[mon("Bulbasaur")], hand=["Ivysaur"]))
    game = both(runner, game, [RETREAT(1), PLAY(0), SELF(0)])
    assert game.pokemon_name(me(game).active) == "Ivysaur"


@pytest.mark.rule("EVOLVE-1")
def test_fossil_evolves_into_its_pokemon(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), bench=[mon("Helix Fossil")], hand=["Omanyte", "Kabuto"]))
    mask = legal(runner, game)
    assert mask[PLAY(0)] and not mask[PLAY(1)]
    game = both(runner, game, [PLAY(0), SELF(1)])
    assert me(game).slots[1].cards == [card("Helix Fossil"), card("Omanyte")]


# ============================================================================ TRAINER

@pytest.mark.rule("TRAINER-1")
def test_one_supporter_many_items(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Professor's Research", "Giovanni", "X Speed", "X Speed"]))
    game = both(runner, game, [PLAY(0)])
    assert me(game).supporter_played and card("Professor's Research") in me(game).discard
    mask = legal(runner, game)
    giovanni = me(game).hand.index(card("Giovanni"))
    assert not mask[PLAY(giovanni)]
    speeds = [h for h, c in enumerate(me(game).hand) if c == card("X Speed")]
    game = both(runner, game, [PLAY(speeds[1]), PLAY(speeds[0])])
    assert me(game).retreat_reduction == 2


@pytest.mark.rule("TRAINER-1", "TURN-1")
def test_supporter_on_turn_one(runner):
    game = make_game(me=side(active=mon("Bulbasaur", turn_played=0), hand=["Giovanni"]), turn=1)
    game = both(runner, game, [PLAY(0)])
    assert me(game).attack_bonus == 10


@pytest.mark.rule("TRAINER-2")
def test_healing_needs_a_damaged_target(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), bench=[mon("Squirtle", damage=30)], hand=["Potion", "Erika"]))
    mask = legal(runner, game)
    assert mask[PLAY(0)] and not mask[PLAY(1)], "Erika needs a damaged Grass Pokémon"
    game = both(runner, game, [PLAY(0)])
    assert game.state.phase == spec.TRAINER_TARGET
    mask = legal(runner, game)
    assert mask[SELF(1)] and not mask[SELF(0)] and not mask[END]
    game = both(runner, game, [SELF(1)])
    assert me(game).slots[1].damage == 10


@pytest.mark.rule("TRAINER-3")
def test_supporters_blocked(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Giovanni", "Potion"], supporter_blocked_turn=5),
                     opp=side(active=mon("Squirtle")))
    assert not legal(runner, game)[PLAY(0)]
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Giovanni"]), opp=side(active=mon("Gastly", "Haunter", "Gengar ex")))
    assert not legal(runner, game)[PLAY(0)]
    opp(game).slots[1] = opp(game).slots[0]
    opp(game).slots[0] = mon("Squirtle")
    assert legal(runner, game)[PLAY(0)], "Shadowy Spellbind works only from the Active spot"


# ============================================================================ ABILITY

@pytest.mark.rule("ABILITY-1")
def test_ability_once_per_turn_per_pokemon(runner):
    game = make_game(me=side(active=mon("Magnemite", "Magneton"), bench=[mon("Magnemite", "Magneton")], energy_types=("lightning",)))
    me(game).active_effects = ActiveEffects(special=spec.ASLEEP)
    game = both(runner, game, [ABILITY(0), ABILITY(1)])
    assert me(game).slots[0].energy[LIGHTNING] == 1 and me(game).slots[1].energy[LIGHTNING] == 1
    mask = legal(runner, game)
    assert not mask[ABILITY(0)] and not mask[ABILITY(1)]
    game = both(runner, game, [END, END])
    assert game.state.turn == 7 and legal(runner, game)[ABILITY(0)]


@pytest.mark.rule("ABILITY-1", "ABILITY-2")
def test_active_only_and_passive_abilities(runner):
    game = make_game(me=side(active=mon("Shellder", "Cloyster"), bench=[mon("Koffing", "Weezing")]))
    mask = legal(runner, game)
    assert not mask[ABILITY(0)], "Shell Armor is passive"
    assert not mask[ABILITY(1)], "Gas Leak needs the Active spot"


@pytest.mark.rule("ABILITY-3", "KO-2")
def test_fossil_discard(runner):
    game = make_game(me=side(active=mon("Old Amber"), bench=[mon("Dome Fossil")]), opp=side(active=mon("Squirtle")))
    mask = legal(runner, game)
    assert mask[ABILITY(0)] and mask[ABILITY(1)]
    game = both(runner, game, [ABILITY(1)])
    assert me(game).slots[1] is None and card("Dome Fossil") in me(game).discard and opp(game).points == 0
    assert not legal(runner, game)[ABILITY(0)], "an Active fossil with no Bench cannot be discarded"


# ============================================================================ RETREAT

@pytest.mark.rule("RETREAT-1", "RETREAT-5", "STATUS-1", "STATUS-3")
def test_retreat_pays_and_switches_once(runner):
    fx = ActiveEffects(poisoned=True, burned=True, special=spec.CONFUSED)
    game = make_game(me=side(active=mon("Squirtle", energy="WW"), bench=[mon("Bulbasaur"), mon("Oddish")], effects=fx))
    game = both(runner, game, [RETREAT(2)])
    assert game.pokemon_name(me(game).active) == "Oddish" and me(game).slots[2].energy[WATER] == 1
    assert me(game).active_effects == ActiveEffects() and me(game).retreated
    mask = legal(runner, game)
    assert not any(mask[RETREAT(b)] for b in (1, 2, 3))


@pytest.mark.rule("RETREAT-2", "CHOICE-1", "CHOICE-2")
def test_retreat_energy_choice(runner):
    game = make_game(me=side(active=mon("Bulbasaur", "Ivysaur", energy="GWL"), bench=[mon("Oddish")]))
    game = both(runner, game, [RETREAT(1)])
    assert game.state.phase == spec.RETREAT_PAY and game.state.aux_count == 2
    mask = legal(runner, game)
    assert list(np.flatnonzero(mask)) == [ENERGY("grass"), ENERGY("water"), ENERGY("lightning")]
    game = both(runner, game, [ENERGY("water")])
    assert game.state.phase == spec.RETREAT_PAY
    game = both(runner, game, [ENERGY("grass")])
    assert game.state.phase == spec.MAIN and me(game).slots[1].energy == [0, 0, 0, 1, 0, 0, 0, 0]


@pytest.mark.rule("RETREAT-3", "RETREAT-4", "card:retreat_reduction")
def test_retreat_cost_and_blockers(runner):
    game = make_game(me=side(active=mon("Bulbasaur", "Ivysaur"), bench=[mon("Oddish")], hand=["X Speed", "X Speed"]))
    assert not legal(runner, game)[RETREAT(1)]
    game = both(runner, game, [PLAY(0), PLAY(0), RETREAT(1)])
    assert game.pokemon_name(me(game).active) == "Oddish"
    for fx in (ActiveEffects(special=spec.ASLEEP), ActiveEffects(special=spec.PARALYZED), ActiveEffects(cant_retreat_turn=5)):
        game = make_game(me=side(active=mon("Squirtle", energy="WW"), bench=[mon("Oddish")], effects=fx))
        assert not legal(runner, game)[RETREAT(1)]
    game = make_game(me=side(active=mon("Squirtle", energy="WW"), bench=[mon("Oddish")], effects=ActiveEffects(special=spec.CONFUSED)))
    assert legal(runner, game)[RETREAT(1)]
    game = make_game(me=side(active=mon("Old Amber", energy="WWWW"), bench=[mon("Oddish")], retreat_reduction=4))
    assert not legal(runner, game)[RETREAT(1)], "a fossil can never retreat"


# ============================================================================ ATK

@pytest.mark.rule("ATK-1")
@pytest.mark.parametrize("energy, ok", [("GG", True), ("GW", True), ("WW", False), ("G", False)])
def test_attack_cost(runner, energy, ok):
    game = make_game(me=side(active=mon("Bulbasaur", energy=energy)))  # Vine Whip: Grass + Colorless
    assert legal(runner, game)[ATTACK(0)] == ok
    assert not legal(runner, game)[ATTACK(1)], "Bulbasaur has one attack"


@pytest.mark.rule("ATK-1", "TURN-4", "ENERGY-5")
def test_attack_damages_keeps_energy_and_ends_turn(runner):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG")), opp=side(active=mon("Squirtle")))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 40 and me(game).active.energy[GRASS] == 2
    assert game.state.turn == 6 and game.state.turn_player == 1


@pytest.mark.rule("ATK-2")
@pytest.mark.parametrize("fx", [ActiveEffects(special=spec.ASLEEP), ActiveEffects(special=spec.PARALYZED),
                                ActiveEffects(cant_attack_turn=5)])
def test_cannot_attack(runner, fx):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG"), effects=fx))
    assert not legal(runner, game)[ATTACK(0)]


@pytest.mark.rule("ATK-2")
def test_attack_on_turn_one_with_energy(runner):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG", turn_played=0)), turn=1)
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 40


@pytest.mark.rule("ATK-3", "STATUS-4")
@pytest.mark.parametrize("flip, damage", [("T", 0), ("H", 40)])
def test_confusion(runner, flip, damage):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG"), effects=ActiveEffects(special=spec.CONFUSED)),
                     opp=side(active=mon("Squirtle")))
    game = both(runner, coins(game, flip), [ATTACK(0)])
    assert opp(game).active.damage == damage and game.state.turn == 6


@pytest.mark.rule("ATK-4")
def test_target_attack_without_target_still_resolves(runner):
    game = make_game(me=side(active=mon("Hitmonlee", energy="F")), opp=side(active=mon("Squirtle")))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.turn == 6 and opp(game).active.damage == 0


# ============================================================================ DMG

@pytest.mark.rule("DMG-1", "DMG-2")
def test_damage_order_bonus_weakness_reduction(runner):
    # Charmander (Fire, 30) + Giovanni vs Melmetal (weak to Fire, Hard Coat -20): 30 + 10 + 20 - 20 = 40.
    game = make_game(me=side(active=mon("Charmander", energy="R"), hand=["Giovanni"]), opp=side(active=mon("Meltan", "Melmetal")))
    game = both(runner, game, [PLAY(0), ATTACK(0)])
    assert opp(game).active.damage == 40


@pytest.mark.rule("DMG-1")
def test_zero_damage_stops_before_weakness(runner):
    # Growl -20 on Pikachu's 20-damage Gnaw leaves 0: no Weakness is added although Onix... (Pikachu vs weak-to-Lightning Pidgey)
    game = make_game(me=side(active=mon("Pikachu", energy="L"), effects=ActiveEffects(attack_minus_turn=5, attack_minus_amount=20)),
                     opp=side(active=mon("Pidgey")))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 0
    game = make_game(me=side(active=mon("Pikachu", energy="L")), opp=side(active=mon("Pidgey")))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 40, "20 + Weakness 20"


@pytest.mark.rule("DMG-2", "DMG-3")
def test_no_weakness_on_the_bench_but_abilities_reduce(runner):
    game = make_game(me=side(active=mon("Horsea", "Seadra", energy="WWW")),
                     opp=side(active=mon("Squirtle"), bench=[mon("Charmander"), mon("Shellder", "Cloyster")]))
    game = both(runner, game, [ATTACK(0), OPP(1)])
    assert opp(game).slots[1].damage == 50, "no Weakness on the Bench"
    game = make_game(me=side(active=mon("Horsea", "Seadra", energy="WWW")),
                     opp=side(active=mon("Squirtle"), bench=[mon("Charmander"), mon("Shellder", "Cloyster")]))
    game = both(runner, game, [ATTACK(0), OPP(2)])
    assert opp(game).slots[2].damage == 40, "Shell Armor on the Bench"
    game = make_game(me=side(active=mon("Horsea", "Seadra", energy="WWW")), opp=side(active=mon("Charmander", "Charmeleon")))
    game = both(runner, game, [ATTACK(0), OPP(0)])
    assert opp(game).active.damage == 70, "Weakness on the Active"


@pytest.mark.rule("DMG-4")
def test_ability_damage_has_no_modifiers(runner):
    game = make_game(me=side(active=mon("Froakie", "Frogadier", "Greninja"), hand=["Giovanni"]), opp=side(active=mon("Charmander")))
    game = both(runner, game, [PLAY(0), ABILITY(0), OPP(0)])
    assert opp(game).active.damage == 20


@pytest.mark.rule("DMG-5", "DMG-7")
def test_dig_protection(runner):
    fx = ActiveEffects(protected_turn=5)
    game = make_game(me=side(active=mon("Grimer", energy="D")), opp=side(active=mon("Diglett", "Dugtrio"), effects=fx))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active.damage == 0 and not opp(game).active_effects.poisoned


@pytest.mark.rule("DMG-6")
def test_heal_floor(runner):
    game = make_game(me=side(active=mon("Bulbasaur", damage=10), hand=["Potion"]))
    game = both(runner, game, [PLAY(0), SELF(0)])
    assert me(game).active.damage == 0


@pytest.mark.rule("DMG-7")
def test_next_turn_effects_apply_once_and_end_on_bench(runner):
    # Arbok's Corner on turn 5: the defender cannot retreat on turn 6 only.
    game = make_game(me=side(active=mon("Ekans", "Arbok", energy="DD")),
                     opp=side(active=mon("Squirtle", "Wartortle", energy="W"), bench=[mon("Oddish")]))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.turn == 6 and not legal(runner, game)[RETREAT(1)]
    game = both(runner, game, [END, END])
    assert game.state.turn == 8 and legal(runner, game)[RETREAT(1)]


# ============================================================================ STATUS, CHECKUP

@pytest.mark.rule("STATUS-2")
def test_status_stacking(runner):
    game = make_game(me=side(active=mon("Oddish", "Gloom", "Vileplume", energy="GGG")),
                     opp=side(active=mon("Snorlax"), effects=ActiveEffects(poisoned=True, special=spec.PARALYZED)))
    game = both(runner, coins(game, "T"), [ATTACK(0)])  # tails: still Asleep after the Checkup
    fx = opp(game).active_effects
    assert fx.poisoned and fx.special == spec.ASLEEP, "Asleep replaces Paralyzed; Poisoned stays"
    assert opp(game).active.damage == 80 + 10


@pytest.mark.rule("CHECKUP-1", "CHECKUP-2", "CHECKUP-6")
def test_checkup_poison_both_then_knock_outs(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), effects=ActiveEffects(poisoned=True)),
                     opp=side(active=mon("Squirtle", damage=50), bench=[mon("Oddish")],
                              effects=ActiveEffects(poisoned=True, special=spec.ASLEEP)))
    counter = game.state.rng_counter
    game = both(runner, game, [END])
    assert me(game).active.damage == 10
    assert opp(game).active is None and me(game).points == 1, "Squirtle (60 HP) is Knocked Out by Poison"
    # The Asleep coin was still flipped: Knock Outs are checked after all conditions (CHECKUP-6).
    assert game.state.rng_counter == counter + 1
    assert game.state.phase == spec.PROMOTE and game.state.decider == 1


@pytest.mark.rule("CHECKUP-4")
@pytest.mark.parametrize("flip, awake", [("T", False), ("H", True)])
def test_sleep_coin(runner, flip, awake):
    game = make_game(me=side(active=mon("Bulbasaur")),
                     opp=side(active=mon("Squirtle"), bench=[mon("Oddish")], effects=ActiveEffects(special=spec.ASLEEP)))
    game = both(runner, coins(game, flip), [END])
    assert (opp(game).active_effects.special == spec.NO_SPECIAL) == awake


@pytest.mark.rule("CHECKUP-3")
@pytest.mark.parametrize("flip, cured", [("T", False), ("H", True)])
def test_burn(runner, flip, cured):
    game = make_game(me=side(active=mon("Bulbasaur"), effects=ActiveEffects(burned=True)), opp=side(active=mon("Squirtle")))
    game = both(runner, coins(game, flip), [END])
    assert me(game).active.damage == 20 and me(game).active_effects.burned != cured


@pytest.mark.rule("CHECKUP-5", "STATUS-4")
def test_paralysis_lasts_one_owner_turn(runner):
    # Pincurchin paralyzes on heads during turn 5; the defender misses turn 6 and is free on turn 8.
    game = make_game(me=side(active=mon("Pincurchin", energy="LL")), opp=side(active=mon("Onix", energy="FFF")))
    game = both(runner, coins(game, "H"), [ATTACK(0)])
    assert game.state.turn == 6 and opp(game).active_effects.special == spec.PARALYZED
    assert not legal(runner, game)[ATTACK(0)]
    game = both(runner, game, [END])
    assert opp(game).active_effects.special == spec.NO_SPECIAL
    game = both(runner, game, [END])
    assert game.state.turn == 8 and legal(runner, game)[ATTACK(0)]


# ============================================================================ KO, WIN

@pytest.mark.rule("KO-1", "KO-2", "KO-4", "ENERGY-5")
def test_knock_out_points_discard_and_promotion(runner):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG")),
                     opp=side(active=mon("Ralts", energy="PP", damage=30), bench=[mon("Squirtle"), mon("Oddish")]))
    game = both(runner, game, [ATTACK(0)])
    assert opp(game).active is None and card("Ralts") in opp(game).discard and me(game).points == 1
    assert game.state.phase == spec.PROMOTE and game.state.decider == 1
    mask = legal(runner, game)
    assert list(np.flatnonzero(mask)) == [SELF(1), SELF(2)]
    game = both(runner, game, [SELF(2)])
    assert game.pokemon_name(opp(game).active) == "Oddish" and opp(game).slots[2] is None
    assert game.state.turn == 6 and game.state.phase == spec.MAIN


@pytest.mark.rule("KO-2", "WIN-1", "WIN-2")
def test_ex_scores_two_and_three_points_win(runner):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG"), points=1),
                     opp=side(active=mon("Pikachu ex", damage=90), bench=[mon("Squirtle")]))
    game = both(runner, game, [ATTACK(0)])
    assert me(game).points == 3 and game.state.game_over and game.state.winner == 0
    assert game.returns() == (1.0, -1.0) and not legal(runner, game).any()


@pytest.mark.rule("WIN-1", "KO-4")
def test_no_pokemon_left_loses(runner):
    game = make_game(me=side(active=mon("Bulbasaur", energy="GG")), opp=side(active=mon("Ralts", damage=30)))
    game = both(runner, game, [ATTACK(0)])
    assert game.state.game_over and game.state.winner == 0 and me(game).points == 1


@pytest.mark.rule("WIN-2", "KO-3", "ATK-5")
def test_simultaneous_knock_outs_count_conditions(runner):
    # Arcanine's 20 self-damage knocks itself out while knocking out the defender: both reach 3 points,
    # both keep a Bench -> draw. Without a Bench for the defender, the attacker wins on 2 conditions.
    for opp_bench, winner in (([mon("Squirtle")], -1), ([], 0)):
        game = make_game(me=side(active=mon("Growlithe", "Arcanine", energy="RRR", damage=120), bench=[mon("Ponyta")], points=2),
                         opp=side(active=mon("Bulbasaur"), bench=opp_bench, points=2))
        game = both(runner, game, [ATTACK(0)])
        assert game.state.game_over and game.state.winner == winner


@pytest.mark.rule("WIN-3")
def test_turn_limit_is_a_draw(runner):
    game = make_game(me=side(active=mon("Bulbasaur")), turn=30, max_turns=30)
    start = game.canonical()
    game.step(END)
    assert game.state.game_over and game.state.truncated and game.state.winner == -1
    # the JAX runner is compiled with the default limit of 30 turns
    [(_, states)] = runner.replay(None, [[END]], starts=[start])
    assert states[0]["truncated"] == 1 and states[0]["winner"] == -1


@pytest.mark.rule("KO-5")
def test_sabrina_opponent_chooses(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Sabrina"]),
                     opp=side(active=mon("Squirtle", damage=10), bench=[mon("Oddish"), mon("Weedle")],
                              effects=ActiveEffects(poisoned=True)))
    game = both(runner, game, [PLAY(0)])
    assert game.state.phase == spec.SWITCH_OUT and game.state.decider == 1
    game = both(runner, game, [SELF(2)])
    assert game.pokemon_name(opp(game).active) == "Weedle" and game.pokemon_name(opp(game).slots[2]) == "Squirtle"
    assert opp(game).active_effects == ActiveEffects() and game.state.decider == 0
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Sabrina"]), opp=side(active=mon("Squirtle")))
    assert not legal(runner, game)[PLAY(0)]


# ============================================================================ LIMIT

@pytest.mark.rule("LIMIT-1")
def test_hand_limit_blocks_draws(runner):
    game = make_game(opp=side(active=mon("Squirtle"), hand=["Potion"] * 10))
    deck_before = list(opp(game).deck)
    game = both(runner, game, [END])
    assert len(opp(game).hand) == 10 and opp(game).deck == deck_before
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Professor's Research"] + ["Potion"] * 9))
    game = both(runner, game, [PLAY(0)])
    assert len(me(game).hand) == 10


@pytest.mark.rule("LIMIT-2")
def test_empty_deck_is_not_a_loss(runner):
    game = make_game(opp=side(active=mon("Squirtle"), deck=[]))
    game = both(runner, game, [END])
    assert not game.state.game_over and game.state.turn == 6 and len(opp(game).deck) == 0


# ============================================================================ RNG

@pytest.mark.rule("RNG-1", "RNG-2")
def test_stream_python_equals_jax():
    import jax.numpy as jnp

    from tcgjax.rng import stream_value, stream_value_jax
    seeds = np.array([0, 1, 12345, 2**32 - 1, 987654321], np.uint32)
    index = np.arange(0, 5000, 7)
    ours = np.asarray(stream_value_jax(jnp.asarray(seeds)[:, None], jnp.asarray(index)[None, :]))
    expected = np.array([[stream_value(int(s), int(i)) for i in index] for s in seeds], np.uint32)
    assert np.array_equal(ours, expected)
    assert 0.45 < (expected % 2).mean() < 0.55
    from tcgjax.rng import RandomStream
    stream = RandomStream(12345, 10)
    assert stream.coin() == (stream_value(12345, 10) % 2 == 1)
    assert stream.pick(7) == stream_value(12345, 11) % 7 and stream.counter == 12


@pytest.mark.rule("RNG-3")
def test_shuffle_matches(runner):
    import jax.numpy as jnp

    from tcgjax.game.core import shuffled
    from tcgjax.rng import RandomStream
    for n in (0, 1, 2, 7, 20):
        items = list(range(100, 100 + n))
        stream = RandomStream(99, 5)
        stream.shuffle(items)
        row = jnp.array(list(range(100, 100 + n)) + [-1] * (20 - n), jnp.int32)
        assert list(np.asarray(shuffled(jnp.uint32(99), 5, row, n))[:n]) == items
        assert stream.counter == 5 + max(n - 1, 0)


@pytest.mark.rule("RNG-4", "card:deck_random_basic_to_hand")
def test_poke_ball_picks_uniformly_and_keeps_order(runner):
    deck = ["Potion", "Squirtle", "X Speed", "Oddish", "Weedle", "Potion"]
    for k, name in enumerate(["Squirtle", "Oddish", "Weedle"]):
        game = make_game(me=side(active=mon("Bulbasaur"), hand=["Poké Ball"], deck=deck))
        game = both(runner, values_mod(game, [(3, k)]), [PLAY(0)])
        assert me(game).hand == [card(name)]
        assert me(game).deck == [card(n) for n in deck if n != name]


@pytest.mark.rule("RNG-5", "ENERGY-4", "card:flip_until_tails_energy_to_target")
def test_flip_until_tails_uncapped(runner):
    game = make_game(me=side(active=mon("Squirtle"), hand=["Misty"], current="water", energy_types=("water",)))
    game = both(runner, coins(game, "HHHHHHHT"), [PLAY(0), SELF(0)])
    assert me(game).active.energy[WATER] == 7 and me(game).energy_current == WATER


@pytest.mark.rule("CHOICE-1")
def test_illegal_actions(runner):
    game = make_game(me=side(active=mon("Bulbasaur"), hand=["Potion"]))
    with pytest.raises(IllegalActionError, match="not legal"):
        game.step(ATTACK(0))
    with pytest.raises(IllegalActionError):
        game.step(spec.NUM_ACTIONS)
    start = game.canonical()
    [(_, states)] = runner.replay(None, [[ATTACK(0), spec.NUM_ACTIONS + 3, -7]], starts=[start])
    for state in states:
        for name, value in start.items():
            assert np.array_equal(value, state[name]), name
