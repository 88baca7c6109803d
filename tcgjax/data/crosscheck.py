"""Cross-check the built card database against independent public card databases (facts only).

    python -m tcgjax.data.crosscheck --deckgym database.json --limitless a1-genetic-apex.json \
        [--tcgdex "<tcgdex checkout>/data/Pokémon TCG Pocket"]

- deckgym:   bcollazo/deckgym-core `database.json` (DG)
- limitless: hugoburguete/pokemon-tcg-pocket-card-database `cards/en/a1-genetic-apex.json` (LIM)
- tcgdex:    tcgdex/cards-database, the folder holding `Genetic Apex/` and `Promos-A/` (TDX); its card
             files are TypeScript object literals, evaluated with node.

For each compared fact (HP, type, stage, evolves-from, retreat, weakness, attack names, costs and
printed damage, Ability names, Trainer kind) it prints every card where our value differs from a
source, and exits 1 if our value disagrees with the majority of the sources given. The result of the
last run is summarised in tcgjax/data/corrections.py. This is a development tool; the tests do not
need the sources.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import subprocess
import sys

from tcgjax.cards import Card, load_cards

_NODE_EVAL = r"""
const fs = require('fs'); const path = require('path');
const out = {};
for (const [dir, prefix] of [['Genetic Apex', 'A1'], ['Promos-A', 'P-A']]) {
  const folder = path.join(process.argv[1], dir);
  for (const f of fs.readdirSync(folder)) {
    let src = fs.readFileSync(path.join(folder, f), 'utf8');
    src = src.replace(/^import .*$/mg, '').replace(/const card: Card =/, 'const card =')
             .replace(/export default card/, 'module.exports = card;');
    const m = {exports: {}};
    new Function('module', 'Set', src)(m, {});
    out[prefix + ' ' + f.replace('.ts', '')] = m.exports;
  }
}
process.stdout.write(JSON.stringify(out));
"""

_TYPES = {"Grass": "grass", "Fire": "fire", "Water": "water", "Lightning": "lightning", "Psychic": "psychic",
          "Fighting": "fighting", "Darkness": "darkness", "Metal": "metal", "Dragon": "dragon", "Colorless": "colorless"}


def _damage(text) -> str:
    text = str(text or "").replace("×", "x").strip()
    return text if text not in ("", "0") else ""


def _ours(card: Card) -> dict:
    if not card.is_pokemon:
        return {"name": card.name, "trainer_kind": card.trainer_kind}
    return {
        "name": card.name, "hp": card.hp, "type": card.type, "stage": card.stage,
        "evolves_from": card.evolves_from, "retreat": card.retreat, "weakness": card.weakness,
        "attacks": [(a.name, tuple(a.cost), _damage(f"{a.damage}{a.damage_mode}" if a.damage else "")) for a in card.attacks],
        "ability": card.ability["name"] if card.ability else None,
    }


def _from_deckgym(path: pathlib.Path) -> dict[str, dict]:
    facts = {}
    for entry in json.loads(path.read_text(encoding="utf-8")):
        (kind, card), = entry.items()
        if kind == "Pokemon":
            facts[card["id"]] = {
                "name": card["name"], "hp": card["hp"], "type": _TYPES[card["energy_type"]], "stage": card["stage"],
                "evolves_from": card["evolves_from"], "retreat": len(card["retreat_cost"]),
                "weakness": _TYPES[card["weakness"]] if card["weakness"] else None,
                "attacks": [(a["title"], tuple(_TYPES[t] for t in a["energy_required"]), None) for a in card["attacks"]],
                "ability": card["ability"]["title"] if card["ability"] else None,
                "_damage": [a["fixed_damage"] for a in card["attacks"]],
            }
        else:
            ttype = card.get("trainer_card_type")
            facts[card["id"]] = {"name": card["name"], "trainer_kind": {"Item": "item", "Supporter": "supporter", "Fossil": "item"}.get(ttype, ttype)}
    return facts


def _from_limitless(path: pathlib.Path) -> dict[str, dict]:
    facts = {}
    for card in json.loads(path.read_text(encoding="utf-8")):
        card_id = "A1 " + card["id"].split("-")[1]
        if card["type"] == "Pokemon":
            facts[card_id] = {
                "name": card["name"], "hp": card["health"], "type": _TYPES[card["element"]],
                "stage": {"Basic": 0, "Stage 1": 1, "Stage 2": 2}[card["subtype"]],
                "evolves_from": card.get("evolvesFrom"), "retreat": card["retreatCost"],
                "weakness": _TYPES[card["weakness"]] if card["weakness"] else None,
                "attacks": [(a["name"], tuple(_TYPES[t] for t in a["cost"]), _damage(a.get("damage"))) for a in card["attacks"]],
                "ability": card["abilities"][0]["name"] if card["abilities"] else None,
            }
        else:
            facts[card_id] = {"name": card["name"], "trainer_kind": card["subtype"].lower()}
    return facts


def _from_tcgdex(folder: pathlib.Path) -> dict[str, dict]:
    raw = json.loads(subprocess.run(["node", "-e", _NODE_EVAL, str(folder)], check=True, capture_output=True, text=True).stdout)
    facts = {}
    for card_id, card in raw.items():
        if card["category"] == "Pokemon":
            weak = card.get("weaknesses") or []
            facts[card_id] = {
                "name": card["name"]["en"], "hp": card["hp"], "type": _TYPES[card["types"][0]],
                "stage": {"Basic": 0, "Stage1": 1, "Stage2": 2}[card["stage"]],
                "evolves_from": card["evolveFrom"]["en"] if card.get("evolveFrom") else None,
                "retreat": card.get("retreat", 0),
                "weakness": _TYPES[weak[0]["type"]] if weak else None,
                "attacks": [(a["name"]["en"], tuple(_TYPES[t] for t in a["cost"]), _damage(a.get("damage"))) for a in card.get("attacks", [])],
                "ability": card["abilities"][0]["name"]["en"] if card.get("abilities") else None,
            }
        else:
            facts[card_id] = {"name": card["name"]["en"], "trainer_kind": card["trainerType"].lower()}
    return facts


def compare(sources: dict[str, dict[str, dict]]) -> int:
    database = load_cards()
    problems = 0
    for card in database.cards:
        ours = _ours(card)
        for field, value in ours.items():
            votes = collections.Counter()
            seen = {}
            for source, facts in sources.items():
                if card.id not in facts:
                    continue
                theirs = facts[card.id].get(field)
                if field == "attacks" and source == "DG":
                    # DG stores damage as a number without the printed sign: compare the number only.
                    dg_damage = facts[card.id]["_damage"]
                    value_cmp = [(n, c, int(d.rstrip("+x") or 0)) for n, c, d in value]
                    theirs_cmp = [(n, c, d) for (n, c, _), d in zip(theirs, dg_damage)]
                    agree = value_cmp == theirs_cmp
                else:
                    agree = theirs == value
                votes[agree] += 1
                if not agree:
                    seen[source] = theirs
            if seen:
                verdict = "MAJORITY AGAINST US" if votes[False] > votes[True] else "minority"
                problems += verdict != "minority"
                print(f"{card.id} {card.name} {field}: ours={value!r} {verdict}; " + "; ".join(f"{s}={v!r}" for s, v in seen.items()))
    print(f"{problems} facts where the majority of sources disagrees with the database", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deckgym", type=pathlib.Path)
    parser.add_argument("--limitless", type=pathlib.Path)
    parser.add_argument("--tcgdex", type=pathlib.Path)
    args = parser.parse_args(argv)
    sources = {}
    if args.deckgym:
        sources["DG"] = _from_deckgym(args.deckgym)
    if args.limitless:
        sources["LIM"] = _from_limitless(args.limitless)
    if args.tcgdex:
        sources["TDX"] = _from_tcgdex(args.tcgdex)
    if not sources:
        parser.error("give at least one source")
    return compare(sources)


if __name__ == "__main__":
    raise SystemExit(main())
