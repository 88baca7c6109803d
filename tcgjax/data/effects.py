"""Structured encoding of every A1 (and Promo-A 001-007) card effect, written by hand from the card
texts (facts) as read in three public databases: tcgdex (TDX), deckgym-core's database.json (DG) and
the Limitless-derived hugoburguete database (LIM). Keys are (card name, attack name) for attacks and
the card name for Abilities and Trainers; reprints share the entry. Each value is
``{"kind": <effect kind>, **params}``; the kinds and their parameters are defined (and validated) in
``tcgjax.cards.EFFECT_KINDS``. Where the starting data file's text disagrees with TDX+DG+LIM the
note says so; the encoding follows the majority.
"""

from __future__ import annotations

# Attacks with an effect. An attack not listed here has no effect (damage only).
ATTACK_EFFECTS: dict[tuple[str, str], dict] = {
    # --- Grass
    ("Venusaur", "Mega Drain"): {"kind": "heal_self", "amount": 30},
    ("Venusaur ex", "Giant Bloom"): {"kind": "heal_self", "amount": 30},
    ("Caterpie", "Find a Friend"): {"kind": "deck_random_pokemon_of_type_to_hand", "type": "grass"},
    ("Vileplume", "Soothing Scent"): {"kind": "inflict", "status": "asleep"},
    ("Venomoth", "Poison Powder"): {"kind": "inflict", "status": "poisoned"},
    ("Exeggutor", "Stomp"): {"kind": "coin_bonus", "amount": 30},
    ("Exeggutor ex", "Tropical Swing"): {"kind": "coin_bonus", "amount": 40},
    # The starting file says 30; TDX, DG and LIM all say 10.
    ("Tangela", "Absorb"): {"kind": "heal_self", "amount": 10},
    ("Pinsir", "Double Horn"): {"kind": "coins_times_damage", "coins": 2},
    ("Petilil", "Blot"): {"kind": "heal_self", "amount": 10},
    ("Lilligant", "Leaf Supply"): {"kind": "zone_energy_to_own_bench", "type": "grass", "target_type": "grass"},
    ("Skiddo", "Surprise Attack"): {"kind": "coin_or_fail"},
    # --- Fire
    ("Charmander", "Ember"): {"kind": "discard_own_energy", "type": "fire", "count": 1},
    ("Charizard", "Fire Spin"): {"kind": "discard_own_energy", "type": "fire", "count": 2},
    ("Charizard ex", "Crimson Storm"): {"kind": "discard_own_energy", "type": "fire", "count": 2},
    ("Vulpix", "Tail Whip"): {"kind": "coin_defender_cant_attack"},
    ("Ninetales", "Flamethrower"): {"kind": "discard_own_energy", "type": "fire", "count": 1},
    ("Arcanine", "Heat Tackle"): {"kind": "self_damage", "amount": 20},
    ("Arcanine ex", "Inferno Onrush"): {"kind": "self_damage", "amount": 20},
    ("Flareon", "Flamethrower"): {"kind": "discard_own_energy", "type": "fire", "count": 1},
    ("Moltres", "Sky Attack"): {"kind": "coin_or_fail"},
    ("Moltres ex", "Inferno Dance"): {"kind": "coins_zone_energy_to_own_bench", "coins": 3, "type": "fire", "target_type": "fire"},
    ("Centiskorch", "Fire Blast"): {"kind": "discard_own_energy", "type": "fire", "count": 1},
    # --- Water
    ("Blastoise", "Hydro Pump"): {"kind": "extra_energy_bonus", "type": "water", "extra": 2, "amount": 60},
    ("Blastoise ex", "Hydro Bazooka"): {"kind": "extra_energy_bonus", "type": "water", "extra": 2, "amount": 60},
    ("Psyduck", "Headache"): {"kind": "opponent_no_supporter_next_turn"},
    ("Tentacruel", "Poison Tentacles"): {"kind": "inflict", "status": "poisoned"},
    ("Kingler", "KO Crab"): {"kind": "all_heads_bonus", "coins": 2, "amount": 80},
    ("Seadra", "Water Arrow"): {"kind": "snipe_opponent_any", "amount": 50},
    ("Seaking", "Horn Hazard"): {"kind": "coin_or_fail"},
    ("Gyarados", "Hyper Beam"): {"kind": "discard_random_opponent_energy"},
    # The starting file says 60 more for A1 079; TDX, DG and LIM all say 70 (as A1 234 does).
    ("Lapras", "Hydro Pump"): {"kind": "extra_energy_bonus", "type": "water", "extra": 3, "amount": 70},
    ("Vaporeon", "Bubble Drain"): {"kind": "heal_self", "amount": 30},
    ("Omastar", "Ancient Whirlpool"): {"kind": "defender_cant_attack"},
    ("Articuno", "Ice Beam"): {"kind": "coin_inflict", "status": "paralyzed"},
    ("Articuno ex", "Blizzard"): {"kind": "damage_each_opponent_bench", "amount": 10},
    ("Bruxish", "Second Strike"): {"kind": "bonus_if_opponent_damaged", "amount": 60},
    ("Frosmoth", "Powder Snow"): {"kind": "inflict", "status": "asleep"},
    # --- Lightning
    ("Raichu", "Thunderbolt"): {"kind": "discard_all_own_energy"},
    ("Pikachu ex", "Circle Circuit"): {"kind": "times_own_bench", "type": "lightning"},
    ("Electabuzz", "Thunder Punch"): {"kind": "coin_bonus_else_self_damage", "amount": 40, "self_damage": 20},
    ("Jolteon", "Pin Missile"): {"kind": "coins_times_damage", "coins": 4},
    ("Zapdos", "Raging Thunder"): {"kind": "damage_own_bench_one", "amount": 30},
    ("Zapdos ex", "Thundering Hurricane"): {"kind": "coins_times_damage", "coins": 4},
    ("Zebstrika", "Thunder Spear"): {"kind": "snipe_opponent_any", "amount": 30},
    ("Eelektross", "Thunder Fang"): {"kind": "coin_inflict", "status": "paralyzed"},
    ("Heliolisk", "Quick Attack"): {"kind": "coin_bonus", "amount": 40},
    ("Pincurchin", "Thunder Shock"): {"kind": "coin_inflict", "status": "paralyzed"},
    # --- Psychic
    ("Abra", "Teleport"): {"kind": "switch_self_with_bench"},
    ("Alakazam", "Psychic"): {"kind": "bonus_per_opponent_energy", "amount": 30},
    ("Gengar", "Bother"): {"kind": "opponent_no_supporter_next_turn"},
    ("Mr. Mime", "Barrier Attack"): {"kind": "reduce_damage_next_turn", "amount": 20},
    ("Jynx", "Psychic"): {"kind": "bonus_per_opponent_energy", "amount": 20},
    ("Mewtwo", "Power Blast"): {"kind": "discard_own_energy", "type": "psychic", "count": 2},
    ("Mewtwo ex", "Psydrive"): {"kind": "discard_own_energy", "type": "psychic", "count": 2},
    ("Golurk", "Double Lariat"): {"kind": "coins_times_damage", "coins": 2},
    ("Mew", "Psy Report"): {"kind": "reveal_opponent_hand"},
    # --- Fighting
    ("Dugtrio", "Dig"): {"kind": "coin_protect_next_turn"},
    ("Primeape", "Fight Back"): {"kind": "bonus_if_self_damaged", "amount": 60},
    # Missing from the starting file; TDX, DG, LIM agree.
    ("Golem", "Double-Edge"): {"kind": "self_damage", "amount": 50},
    ("Cubone", "Growl"): {"kind": "defender_attacks_weaker", "amount": 20},
    ("Marowak ex", "Bonemerang"): {"kind": "coins_times_damage", "coins": 2},
    ("Hitmonlee", "Stretch Kick"): {"kind": "snipe_opponent_bench", "amount": 30},
    ("Kabutops", "Leech Life"): {"kind": "heal_self_by_damage_dealt"},
    ("Grapploct", "Knock Back"): {"kind": "switch_out_opponent_active"},
    # --- Darkness
    ("Arbok", "Corner"): {"kind": "defender_cant_retreat"},
    ("Nidoran♀", "Call for Family"): {"kind": "deck_random_named_to_bench", "card_name": "Nidoran♂"},
    ("Nidoqueen", "Lovestrike"): {"kind": "bonus_per_own_bench_named", "card_name": "Nidoking", "amount": 50},
    ("Nidoking", "Poison Horn"): {"kind": "inflict", "status": "poisoned"},
    ("Grimer", "Poison Gas"): {"kind": "inflict", "status": "poisoned"},
    ("Muk", "Venoshock"): {"kind": "bonus_if_opponent_poisoned", "amount": 50},
    # --- Metal
    ("Mawile", "Crunch"): {"kind": "coin_discard_random_opponent_energy"},
    ("Meltan", "Amass"): {"kind": "zone_energy_to_self", "type": "metal"},
    # --- Dragon
    ("Dragonite", "Draco Meteor"): {"kind": "random_opponent_hits", "times": 4, "amount": 50},
    # --- Colorless
    ("Fearow", "Drill Run"): {"kind": "coin_discard_random_opponent_energy"},
    ("Wigglytuff ex", "Sleepy Song"): {"kind": "inflict", "status": "asleep"},
    ("Meowth", "Pay Day"): {"kind": "draw", "count": 1},
    ("Persian", "Shadow Claw"): {"kind": "coin_discard_random_opponent_hand_card"},
    ("Lickitung", "Continuous Lick"): {"kind": "flip_until_tails_times_damage"},
    ("Kangaskhan", "Dizzy Punch"): {"kind": "coins_times_damage", "coins": 2},
    ("Ditto", "Copy Anything"): {"kind": "copy_opponent_attack"},
    ("Aerodactyl", "Primal Wingbeat"): {"kind": "coin_shuffle_opponent_active_into_deck"},
    ("Cinccino", "Do the Wave"): {"kind": "times_own_bench", "type": "any"},
}

# Abilities, by card name.
ABILITIES: dict[str, dict] = {
    "Butterfree": {"name": "Powder Heal", "kind": "heal_all_own", "amount": 20},
    "Victreebel": {"name": "Fragrance Trap", "kind": "pull_opponent_bench_basic", "requires_active": True},
    "Poliwrath": {"name": "Counterattack", "kind": "counterattack", "amount": 20},
    "Cloyster": {"name": "Shell Armor", "kind": "reduce_incoming", "amount": 10},
    "Greninja": {"name": "Water Shuriken", "kind": "damage_opponent_any", "amount": 20},
    "Magneton": {"name": "Volt Charge", "kind": "zone_energy_to_self", "type": "lightning"},
    "Gengar ex": {"name": "Shadowy Spellbind", "kind": "block_opponent_supporters"},
    "Hypno": {"name": "Sleep Pendulum", "kind": "coin_opponent_asleep"},
    "Gardevoir": {"name": "Psy Shadow", "kind": "zone_energy_to_active_of_type", "type": "psychic"},
    "Weezing": {"name": "Gas Leak", "kind": "poison_opponent_active", "requires_active": True},
    "Melmetal": {"name": "Hard Coat", "kind": "reduce_incoming", "amount": 20},
    "Pidgeot": {"name": "Drive Off", "kind": "switch_out_opponent_active"},
    "Porygon": {"name": "Data Scan", "kind": "look_top_of_deck", "count": 1},
}

# Trainer cards, by card name.
TRAINERS: dict[str, dict] = {
    # Promo-A basics.
    "Potion": {"kind": "heal_target", "amount": 20, "target_type": "any"},
    "X Speed": {"kind": "retreat_reduction", "amount": 1},
    "Hand Scope": {"kind": "reveal_opponent_hand"},
    "Pokédex": {"kind": "look_top_of_deck", "count": 3},
    "Poké Ball": {"kind": "deck_random_basic_to_hand"},
    "Red Card": {"kind": "opponent_shuffle_hand_draw", "count": 3},
    "Professor's Research": {"kind": "draw", "count": 2},
    # A1 fossils: Items played as a 40-HP Basic Colorless Pokémon (EVOLVE-1, ABILITY-3).
    "Helix Fossil": {"kind": "fossil", "hp": 40},
    "Dome Fossil": {"kind": "fossil", "hp": 40},
    "Old Amber": {"kind": "fossil", "hp": 40},
    # A1 Supporters.
    "Erika": {"kind": "heal_target", "amount": 50, "target_type": "grass"},
    "Misty": {"kind": "flip_until_tails_energy_to_target", "type": "water", "target_type": "water"},
    "Blaine": {"kind": "named_attack_bonus", "amount": 30, "names": ["Ninetales", "Rapidash", "Magmar"]},
    "Koga": {"kind": "return_active_to_hand", "names": ["Muk", "Weezing"]},
    "Giovanni": {"kind": "attack_bonus", "amount": 10},
    "Brock": {"kind": "zone_energy_to_named", "type": "fighting", "names": ["Golem", "Onix"]},
    "Sabrina": {"kind": "switch_out_opponent_active"},
    "Lt. Surge": {"kind": "move_bench_energy_to_active", "type": "lightning", "names": ["Raichu", "Electrode", "Electabuzz"]},
}
