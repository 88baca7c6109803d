"""Documented corrections to the starting card facts (the `--facts` folder of build_cards.py).

Every entry was found by `tcgjax/data/crosscheck.py`, which compares the starting file with three
public databases read for facts only:

- TDX: tcgdex/cards-database @ d9083b73, `data/Pokémon TCG Pocket/Genetic Apex/NNN.ts`
- DG:  bcollazo/deckgym-core @ 88a8b82, `database.json`
- LIM: hugoburguete/pokemon-tcg-pocket-card-database @ ce218bd, `cards/en/a1-genetic-apex.json`
       (scraped from Limitless TCG)

A value is corrected when the starting file disagrees with the majority of TDX, DG and LIM. Where the
three disagree among themselves the majority wins and the row in KNOWN_DISAGREEMENTS records it.

`field` is a path into the card record of the starting file: "hp", "retreat_cost", "card_name",
"evolves_from", ("moves", i, key) or ("moves", "append").
"""

from __future__ import annotations

ALL3 = "TDX, DG, LIM agree"

CORRECTIONS: list[dict] = [
    # HP
    {"card": "A1 134", "field": "hp", "old": "60", "new": "90", "why": f"Swoobat HP; {ALL3}"},
    {"card": "A1 173", "field": "hp", "old": "40", "new": "70", "why": f"Golbat HP; {ALL3}"},
    {"card": "A1 242", "field": "hp", "old": "40", "new": "70", "why": f"Golbat HP; {ALL3}"},
    {"card": "A1 180", "field": "hp", "old": "70", "new": "90", "why": f"Bisharp HP; {ALL3}"},
    {"card": "A1 181", "field": "hp", "old": "70", "new": "60", "why": f"Meltan HP; {ALL3}"},
    # Retreat cost
    {"card": "A1 040", "field": "retreat_cost", "old": "1", "new": "2", "why": f"Arcanine retreat; {ALL3}"},
    {"card": "A1 104", "field": "retreat_cost", "old": "2", "new": "1", "why": f"Zapdos ex retreat; {ALL3}"},
    {"card": "A1 260", "field": "retreat_cost", "old": "2", "new": "1", "why": f"Zapdos ex retreat; {ALL3}"},
    {"card": "A1 276", "field": "retreat_cost", "old": "2", "new": "1", "why": f"Zapdos ex retreat; {ALL3}"},
    {"card": "A1 136", "field": "retreat_cost", "old": "2", "new": "4", "why": f"Golurk retreat; {ALL3}"},
    # Attack damage, cost and name
    {"card": "A1 002", "field": ("moves", 0, "damage"), "old": "40", "new": "60", "why": f"Ivysaur Razor Leaf; {ALL3}"},
    {"card": "A1 018", "field": ("moves", 0, "damage"), "old": "30", "new": "20", "why": f"Bellsprout Vine Whip; {ALL3}"},
    {"card": "A1 183", "field": ("moves", 0, "damage"), "old": "70", "new": "40", "why": f"Dratini Ram; {ALL3}"},
    {"card": "A1 154", "field": ("moves", 0, "damage"), "old": "80", "new": "", "why": f"Hitmonlee Stretch Kick only hits the Bench; {ALL3}"},
    {"card": "A1 234", "field": ("moves", 0, "damage"), "old": "20", "new": "20+", "why": f"Lapras Hydro Pump has a bonus; {ALL3}"},
    {"card": "A1 032", "field": ("moves", 0, "energy"), "old": ["Grass"], "new": ["Grass", "Colorless", "Colorless"], "why": f"Gogoat Razor Leaf cost; {ALL3}"},
    {"card": "A1 088", "field": ("moves", 0, "name"), "old": "Water Drop", "new": "Water Drip", "why": f"Frogadier attack name; {ALL3}"},
    {"card": "A1 103", "field": ("moves", 0, "name"), "old": "Raging Thgunder", "new": "Raging Thunder", "why": f"typo; {ALL3}"},
    # Attacks missing from the starting file
    {"card": "A1 121", "field": ("moves", "append"), "old": None, "new": {"name": "Will-O-Wisp", "energy": ["Psychic"], "damage": "30"}, "why": f"Haunter; {ALL3}"},
    {"card": "A1 139", "field": ("moves", "append"), "old": None, "new": {"name": "Mud-Slap", "energy": ["Fighting"], "damage": "20"}, "why": f"Diglett; {ALL3}"},
    {"card": "A1 238", "field": ("moves", "append"), "old": None, "new": {"name": "Mud-Slap", "energy": ["Fighting"], "damage": "20"}, "why": f"Diglett; {ALL3}"},
    {"card": "A1 149", "field": ("moves", "append"), "old": None, "new": {"name": "Double-Edge", "energy": ["Fighting", "Colorless", "Colorless", "Colorless"], "damage": "150"}, "why": f"Golem; {ALL3}"},
    # Names (the limit of DECK-2 and evolution both go by name)
    {"card": "A1 166", "field": "card_name", "old": "Nidoran F", "new": "Nidoran♀", "why": "spelling used by Nidorina's evolves-from; TDX, LIM"},
    {"card": "A1 169", "field": "card_name", "old": "Nidoran M", "new": "Nidoran♂", "why": "spelling used by Nidorino's evolves-from; TDX, LIM"},
    {"card": "P-A 004", "field": "card_name", "old": "Pokedex", "new": "Pokédex", "why": "spelling; TDX"},
    {"card": "P-A 005", "field": "card_name", "old": "Poke Ball", "new": "Poké Ball", "why": "spelling; TDX"},
]

# Empty evolves-from on evolution cards (RULES-FACTS §10); TDX, DG and LIM agree on every value.
_EVOLVES_FROM = {
    "A1 013": "Gloom", "A1 022": "Exeggcute", "A1 023": "Exeggcute", "A1 030": "Petilil",
    "A1 045": "Eevee", "A1 061": "Poliwhirl", "A1 080": "Eevee", "A1 095": "Pikachu",
    "A1 102": "Eevee", "A1 119": "Slowpoke", "A1 132": "Kirlia", "A1 152": "Cubone",
    "A1 153": "Cubone", "A1 177": "Koffing", "A1 243": "Koffing", "A1 252": "Exeggcute",
    "A1 264": "Cubone",
}
CORRECTIONS += [
    {"card": card, "field": "evolves_from", "old": "", "new": name, "why": f"missing evolves-from; {ALL3}"}
    for card, name in _EVOLVES_FROM.items()
]

# Facts where TDX, DG and LIM do not all agree; the majority (which is also the starting file) is kept.
KNOWN_DISAGREEMENTS: list[dict] = [
    {"card": "A1 055", "fact": "Blastoise Hydro Pump cost", "kept": "Water Water Colorless", "majority": "DG, LIM, file", "minority": "TDX: Water Colorless"},
    {"card": "A1 071", "fact": "Seadra Water Arrow cost", "kept": "Water Water Water", "majority": "DG, LIM, file", "minority": "TDX: Water Water Colorless"},
    {"card": "A1 112", "fact": "Pincurchin Thunder Shock damage", "kept": "30", "majority": "DG, LIM, file", "minority": "TDX: 40"},
]

# Weakness: the printed weakness of every card listed in weakness-corrections.json (61 cards, 40 in
# A1) replaces the file's type-derived value; build_cards.py reads that file directly. The crosscheck
# confirms all A1 weaknesses against TDX, DG and LIM.
