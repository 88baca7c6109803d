"""Build tcgjax/data/cards_a1.json from the shared card facts, the documented corrections and the
hand-written effect encoding.

    python -m tcgjax.data.build_cards --facts DIR

DIR is a copy of the starting card facts: the MIT-licensed card data of the public repository
`sethkarten/tcg` (cards-with-attacks.json) plus the printed-weakness file below. They are not kept in
this repository (their licence adds terms of its own); the built database and its corrections are.
Inputs (read-only):
  <facts>/cards-with-attacks.json   card numbers, names, HP, types, stages, costs, damage
  <facts>/weakness-corrections.json printed weakness where the file's value is wrong
Inputs in this folder:
  corrections.py  every other fact changed, with the databases that agree on the new value
  effects.py      the structured effect of every attack, Ability and Trainer

The output holds the 286 Genetic Apex cards and Promo-A 001-007 (DECK-5), in that order. Also
writes docs/tcg/cards.md (one line per card, with its effect in words).
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import sys

from tcgjax import cards as cardlib
from tcgjax.data.corrections import CORRECTIONS
from tcgjax.data.effects import ABILITIES, ATTACK_EFFECTS, TRAINERS

OUTPUT = cardlib.DATABASE_PATH
CARDS_DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tcg" / "cards.md"
PROMO_BASICS = [f"P-A {n:03d}" for n in range(1, 8)]

_TYPE_NAMES = {"Grass": "grass", "Fire": "fire", "Water": "water", "Lightning": "lightning", "Psychic": "psychic",
               "Fighting": "fighting", "Darkness": "darkness", "Metal": "metal", "Dragon": "dragon",
               "Colorless": "colorless"}
_STAGES = {"Basic": 0, "Stage 1": 1, "Stage 2": 2}


def _apply_corrections(records: dict[str, dict]) -> None:
    for fix in CORRECTIONS:
        record = records[fix["card"]]
        field = fix["field"]
        if isinstance(field, tuple) and field[1] == "append":
            if record["moves"]:
                raise SystemExit(f"{fix['card']}: expected no attacks before adding {fix['new']['name']}")
            record["moves"].append(dict(fix["new"], description=""))
            continue
        if isinstance(field, tuple):
            holder, key = record["moves"][field[1]], field[2]
        else:
            holder, key = record, field
        if holder[key] != fix["old"]:
            raise SystemExit(f"{fix['card']} {field}: found {holder[key]!r}, correction expects {fix['old']!r}")
        holder[key] = fix["new"]


def _parse_damage(text: str) -> tuple[int, str]:
    text = text.strip().replace("×", "x")
    if not text:
        return 0, ""
    mode = text[-1] if text[-1] in "+x" else ""
    return int(text.rstrip("+x")), mode


def _pokemon(record: dict, weakness: str) -> dict:
    name = record["card_name"]
    attacks = []
    for move in record["moves"]:
        damage, mode = _parse_damage(move["damage"])
        attacks.append({
            "name": move["name"],
            "cost": [_TYPE_NAMES[t] for t in move["energy"]],
            "damage": damage,
            "damage_mode": mode,
            "effect": copy.deepcopy(ATTACK_EFFECTS.get((name, move["name"]))),
        })
    ability = None
    if record["ability"] or name in ABILITIES:
        printed = [a["name"] for a in record["ability"]]
        if printed != [ABILITIES[name]["name"]]:
            raise SystemExit(f"{record['#']} {name}: ability {printed} vs encoding {ABILITIES.get(name)}")
        ability = copy.deepcopy(ABILITIES[name])
    return {
        "id": record["#"],
        "name": name,
        "category": "pokemon",
        "stage": _STAGES[record["stage"]],
        "type": _TYPE_NAMES[record["type"]],
        "hp": int(record["hp"]),
        "evolves_from": record["evolves_from"] or None,
        "ex": name.endswith(" ex"),
        "weakness": _TYPE_NAMES[weakness] if weakness else None,
        "retreat": int(record["retreat_cost"] or 0),
        "attacks": attacks,
        "ability": ability,
    }


def _trainer(record: dict) -> dict:
    name = record["card_name"]
    return {
        "id": record["#"],
        "name": name,
        "category": "trainer",
        "trainer_kind": {"Item": "item", "Supporter": "supporter"}[record["type"]],
        "effect": copy.deepcopy(TRAINERS[name]),
    }


def build(facts_dir: pathlib.Path) -> dict:
    source = json.loads((facts_dir / "cards-with-attacks.json").read_text(encoding="utf-8"))
    weakness_fix = json.loads((facts_dir / "weakness-corrections.json").read_text(encoding="utf-8"))
    records = {r["#"]: copy.deepcopy(r) for r in source}
    _apply_corrections(records)
    wanted = [f"A1 {n:03d}" for n in range(1, 287)] + PROMO_BASICS
    cards = []
    used_attack_effects, used_abilities = set(), set()
    for card_id in wanted:
        record = records[card_id]
        if record["stage"] in _STAGES:
            weakness = weakness_fix.get(card_id, {}).get("weakness", record["weakness"])
            card = _pokemon(record, weakness)
            used_attack_effects.update((card["name"], a["name"]) for a in card["attacks"] if a["effect"])
            if card["ability"]:
                used_abilities.add(card["name"])
        else:
            card = _trainer(record)
        cards.append(card)
    unused = set(ATTACK_EFFECTS) - used_attack_effects
    if unused or set(ABILITIES) - used_abilities:
        raise SystemExit(f"effect encodings that match no card: {sorted(unused)} {sorted(set(ABILITIES) - used_abilities)}")
    document = {"format": cardlib.DATABASE_FORMAT, "cards": cards}
    cardlib.validate_database(cardlib.database_from_json(document))
    return document


def describe_effect(effect: dict | None) -> str:
    """One line in words for docs/tcg/cards.md."""
    if effect is None:
        return ""
    params = ", ".join(f"{k}={v}" for k, v in effect.items() if k not in ("kind", "name"))
    return f"`{effect['kind']}`" + (f" ({params})" if params else "")


def write_cards_doc(document: dict, path: pathlib.Path) -> None:
    lines = [
        "# Card database: Genetic Apex (A1) + Promo-A 001–007",
        "",
        "Generated by `python -m tcgjax.data.build_cards` from the starting card facts (`--facts`), `tcgjax/data/corrections.py`",
        "and `tcgjax/data/effects.py`. Effect kinds are defined in `tcgjax/cards.py`; their rules are",
        "implemented by `tcgjax.reference.effects` and `tcgjax.game.effects`. Whether each kind is covered by",
        "a test on both engines is listed in `docs/envs/tcg.md`.",
        "",
        "| id | name | stage / kind | type | HP | weak | retreat | attacks (cost: damage, effect) | ability / trainer effect |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for card in document["cards"]:
        if card["category"] == "pokemon":
            attacks = "; ".join(
                f"{a['name']} ({' '.join(t[:2] for t in a['cost'])}: {a['damage']}{a['damage_mode']}"
                + (f", {describe_effect(a['effect'])}" if a["effect"] else "") + ")"
                for a in card["attacks"])
            ability = f"{card['ability']['name']}: {describe_effect(card['ability'])}" if card["ability"] else ""
            stage = ["Basic", "Stage 1", "Stage 2"][card["stage"]] + (f" of {card['evolves_from']}" if card["evolves_from"] else "")
            lines.append(f"| {card['id']} | {card['name']} | {stage} | {card['type']} | {card['hp']} | "
                         f"{card['weakness'] or '—'} | {card['retreat']} | {attacks} | {ability} |")
        else:
            lines.append(f"| {card['id']} | {card['name']} | {card['trainer_kind']} | | | | | | {describe_effect(card['effect'])} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=pathlib.Path, required=True, help="folder holding the starting card facts")
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT)
    parser.add_argument("--doc", type=pathlib.Path, default=CARDS_DOC)
    args = parser.parse_args(argv)
    document = build(args.facts)
    args.output.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    write_cards_doc(document, args.doc)
    print(f"wrote {len(document['cards'])} cards to {args.output} and {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
