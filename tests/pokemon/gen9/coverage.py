"""Coverage of pokejax's Gen 9 engine over ``gen9randombattle``: every move, ability and item of the
format (the random-battle sets, and the items of the committed team pool) with what pokejax implements
for it and the L1 tests that check it against Showdown (found from the ``covers(...)`` markers in
tests/pokemon/gen9).

    python -m tests.pokemon.gen9.coverage           # print the figures, rewrite the table in docs/envs/pokemon-gen9.md
    python -m tests.pokemon.gen9.coverage --check   # exit 1 if the page's table is stale

A move counts as **fully implemented** only when the battle engine runs all of it in the full format,
with every ability and item it meets (none yet: abilities and items come in stage 5). The column
**restricted battles** says which moves ``pokejax.gen9.turn.step`` runs completely in the battles it
plays today (``turn.restricted_moves()``: no abilities, no items), which the L3 suites play against
Showdown. The partial columns say which function covers it: ``damage``
(``pokejax.gen9.damage.kernel_moves()``), ``order`` (``pokejax.gen9.order.order_moves()``) and
``accuracy`` (``pokejax.gen9.accuracy.accuracy_moves()``).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import sys

from pokejax.gen9 import accuracy, damage, order, pool, turn
from pokejax.gen9.data import tables

ROOT = pathlib.Path(__file__).resolve().parents[3]
TESTS = pathlib.Path(__file__).resolve().parent
PAGE = ROOT / "docs" / "envs" / "pokemon-gen9.md"
BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"

# Named groups a test may cover as a whole (the marked test checks it exercised every member).
GROUPS = {
    "damage-kernel-moves": lambda: {f"move:{m}" for m in damage.kernel_moves()},
    "turn-order-moves": lambda: {f"move:{m}" for m in order.order_moves()},
    "accuracy-moves": lambda: {f"move:{m}" for m in accuracy.accuracy_moves()},
}
COLUMNS = {"damage-kernel-moves": "damage", "turn-order-moves": "order", "accuracy-moves": "accuracy"}
# Moves, abilities and items a battle engine runs in full (stage 2 on); empty while there is no engine.
FULLY_IMPLEMENTED: set[str] = set()


def _id(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def tests_by_item() -> dict[str, dict[str, set[str]]]:
    """coverage item (``move:<id>``...) -> {"damage" | "order" | "accuracy" | "whole": {"file::test", ...}}; a test of a
    group is filed under the group's column."""
    found: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^def (test_\w+)", text, flags=re.M):
            decorators = text[text.rfind("\n\n", 0, match.start()): match.start()]
            for group in re.findall(r"@covers\(([^)]*)\)", decorators):
                for name in re.findall(r'"([^"]+)"', group):
                    column = COLUMNS.get(name, "whole")
                    members = GROUPS[name]() if name in GROUPS else {name}
                    for item in members:
                        found[item][column].add(f"{path.name}::{match.group(1)}")
    return found


def format_names() -> dict[str, dict[str, int]]:
    """kind -> id -> how many Pokémon of the committed pool carry it (moves and abilities: every one
    of the sets', even if the pool has none; items: the pool's and the sampled teams' of the tables)."""
    sets = tables.load_sets()
    t = tables.load()
    counts = {"move": collections.Counter(), "ability": collections.Counter(), "item": collections.Counter()}
    for team in json.loads(pool.POOL_FILE.read_text())["teams"]:
        for _species, _level, _gender, item, ability, moves, *_ in team:
            counts["ability"][ability] += 1
            counts["item"][item] += bool(item)
            for m in moves:
                counts["move"][m] += 1
    names = {"move": set(), "ability": set(), "item": set(t.item_ids[1:])}
    for entry in sets.values():
        for s in entry["sets"]:
            names["move"] |= {_id(m) for m in s["movepool"]}
            names["ability"] |= {_id(a) for a in s["abilities"]}
    for kind in names:
        names[kind] |= {k for k, v in counts[kind].items() if v and k}
    return {kind: {n: counts[kind][n] for n in sorted(names[kind], key=lambda n: (-counts[kind][n], n))}
            for kind in names}


def _tests(cell: set[str]) -> str:
    return ", ".join(f"`{t}`" for t in sorted(cell)) or "—"


def figures(names, found) -> dict[str, int]:
    kernel, ordered, accurate = set(damage.kernel_moves()), set(order.order_moves()), set(accuracy.accuracy_moves())
    t = tables.load()
    damaging = {m for m in names["move"] if t.move_category[t.move_index[m]] != tables.STATUS}
    return {
        "moves": len(names["move"]), "damaging": len(damaging),
        "damage_kernel": len(kernel & damaging), "damage_l1": sum(1 for m in damaging if found[f"move:{m}"]["damage"]),
        "order": len(ordered & set(names["move"])), "order_l1": sum(1 for m in names["move"] if found[f"move:{m}"]["order"]),
        "accuracy": len(accurate & set(names["move"])),
        "accuracy_l1": sum(1 for m in names["move"] if found[f"move:{m}"]["accuracy"]),
        "moves_full": sum(1 for m in names["move"] if f"move:{m}" in FULLY_IMPLEMENTED),
        **restricted_figures(names),
        "abilities": len(names["ability"]),
        "abilities_full": sum(1 for a in names["ability"] if f"ability:{a}" in FULLY_IMPLEMENTED),
        "items": len(names["item"]), "items_full": sum(1 for i in names["item"] if f"item:{i}" in FULLY_IMPLEMENTED),
    }


def restricted_figures(names) -> dict[str, int]:
    """How far the restricted battles reach into the pool: moves of the format they run, and the
    pool's move slots and Pokémon (all four moves) they cover."""
    covered = set(turn.restricted_moves())
    slots = covered_slots = mons = mons_covered = 0
    for team in json.loads(pool.POOL_FILE.read_text())["teams"]:
        for _species, _level, _gender, _item, _ability, moves, *_ in team:
            mons += 1
            mons_covered += all(m in covered for m in moves)
            slots += len(moves)
            covered_slots += sum(m in covered for m in moves)
    return {"restricted": len(covered & set(names["move"])), "slots": slots, "slots_restricted": covered_slots,
            "mons": mons, "mons_restricted": mons_covered}


def sole_blockers() -> list[tuple[str, int]]:
    """The moves outside ``turn.restricted_moves()`` by how many of the pool's Pokémon they alone keep out of the
    restricted battles (every other move of theirs run), most first: what to cover next."""
    covered = set(turn.restricted_moves())
    counts: dict[str, int] = {}
    for team in json.loads(pool.POOL_FILE.read_text())["teams"]:
        for _species, _level, _gender, _item, _ability, moves, *_ in team:
            missing = [m for m in moves if m not in covered]
            if len(missing) == 1:
                counts[missing[0]] = counts.get(missing[0], 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def summary(f: dict[str, int]) -> list[str]:
    return [
        f"- Moves: {f['moves']} ({f['damaging']} damaging); damage formula: {f['damage_kernel']} of the damaging moves, "
        f"{f['damage_l1']} L1-tested; turn order: {f['order']}, {f['order_l1']} L1-tested; accuracy check: "
        f"{f['accuracy']}, {f['accuracy_l1']} L1-tested; fully implemented in a battle: "
        f"{f['moves_full']}; run completely in the restricted battles: {f['restricted']}, "
        f"{100 * f['slots_restricted'] / f['slots']:.1f} % of the pool's move slots; Pokémon of the pool with all "
        f"their moves run: {f['mons_restricted']} of {f['mons']} ({100 * f['mons_restricted'] / f['mons']:.1f} %).",
        f"- Abilities: {f['abilities']}; fully implemented: {f['abilities_full']} (abilities come in stage 5).",
        f"- Items: {f['items']}; fully implemented: {f['items_full']} (items come in stage 5).",
    ]


def tables_section(names, found) -> list[str]:
    t = tables.load()
    kernel, ordered, accurate = set(damage.kernel_moves()), set(order.order_moves()), set(accuracy.accuracy_moves())
    lines = ["### Moves", "", "Sorted by how many Pokémon of the committed pool (6,000) carry them.", "",
             "| move | category | in pool | damage formula | turn order | accuracy | restricted battles | fully implemented | L1 tests |",
             "|---|---|---|---|---|---|---|---|---|"]
    restricted = set(turn.restricted_moves())
    for m, count in names["move"].items():
        i = t.move_index[m]
        category = tables.CATEGORIES[t.move_category[i]]
        dmg = "—" if category == "Status" else ("yes" if m in kernel else "no")
        cell = found[f"move:{m}"]
        tests = cell["damage"] | cell["order"] | cell["accuracy"] | cell["whole"]
        lines.append(f"| {m} | {category} | {count} | {dmg} | {'yes' if m in ordered else 'no'} | "
                     f"{'yes' if m in accurate else 'no'} | {'yes' if m in restricted else 'no'} | "
                     f"{'yes' if f'move:{m}' in FULLY_IMPLEMENTED else 'no'} | {_tests(tests)} |")
    for kind, title in (("ability", "Abilities"), ("item", "Items")):
        lines += ["", f"### {title}", "", "Sorted by how many Pokémon of the committed pool carry them.", "",
                  f"| {kind} | in pool | fully implemented | L1 tests |", "|---|---|---|---|"]
        for name, count in names[kind].items():
            cell = found[f"{kind}:{name}"]
            lines.append(f"| {name} | {count} | {'yes' if f'{kind}:{name}' in FULLY_IMPLEMENTED else 'no'} | "
                         f"{_tests(cell['whole'])} |")
    return lines


def generated() -> tuple[str, dict[str, int]]:
    names, found = format_names(), tests_by_item()
    f = figures(names, found)
    text = "\n".join([BEGIN, "", "Generated by `python -m tests.pokemon.gen9.coverage`.", "", *summary(f), "",
                      *tables_section(names, found), "", END])
    return text, f


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page's coverage table is stale")
    parser.add_argument("--blockers", type=int, metavar="N", default=0,
                        help="print the N moves that alone keep the most pool Pokémon out of the restricted battles")
    args = parser.parse_args(argv)
    if args.blockers:
        for move, count in sole_blockers()[:args.blockers]:
            print(f"{move}: {count}")
        return 0
    text, f = generated()
    page = PAGE.read_text(encoding="utf-8")
    start, stop = page.index(BEGIN), page.index(END) + len(END)
    print("\n".join(summary(f)))
    if args.check:
        if page[start:stop] != text:
            print(f"{PAGE} is stale: run python -m tests.pokemon.gen9.coverage", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page[:start] + text + page[stop:], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
