"""Coverage tables for docs/envs/tcg.md: every rule id of docs/tcg/rules.md and every card of the
database, with the tests that check them (found from the `rule(...)` / `covers(...)` markers in
tests/tcg).

    python -m tests.tcg.coverage         # rewrites the generated part of docs/envs/tcg.md
"""

from __future__ import annotations

import collections
import pathlib
import re

from tcgjax.cards import ABILITY_KINDS, ATTACK_EFFECT_KINDS, TRAINER_KINDS, load_cards

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "tcg" / "rules.md"
TESTS = ROOT / "tests" / "tcg"
PAGE = ROOT / "docs" / "envs" / "tcg.md"
BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"

# Rules that no engine implements, with the reason.
NOT_MODELLED = {"WIN-4": "conceding is not an action"}
# Rules about data or decks, checked by the card and deck tests rather than by the engines.
DATA_RULES = {"DECK-1", "DECK-2", "DECK-3", "DECK-4", "DECK-5"}


def rule_ids() -> list[str]:
    return re.findall(r"^- \*\*([A-Z]+-\d+)\*\*", RULES.read_text(encoding="utf-8"), flags=re.M)


def tests_by_marker() -> dict[str, list[str]]:
    """marker id (a rule id, or card:<effect kind>) -> ["file::test", ...]"""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^def (test_\w+)", text, flags=re.M):
            name = match.group(1)
            decorators = text[text.rfind("\n\n", 0, match.start()): match.start()]
            for kind, group in re.findall(r"(rule|covers)\(([^)]*)\)", decorators):
                for item in re.findall(r'"([^"]+)"', group):
                    found[f"card:{item}" if kind == "covers" else item].append(f"{path.name}::{name}")
    return found


def rules_table(found: dict[str, list[str]]) -> list[str]:
    lines = ["| rule | implemented | tested by |", "|---|---|---|"]
    for rule in rule_ids():
        tests = sorted(set(found.get(rule, [])))
        implemented = "no — " + NOT_MODELLED[rule] if rule in NOT_MODELLED else ("data/decks" if rule in DATA_RULES else "both engines")
        lines.append(f"| {rule} | {implemented} | {', '.join(f'`{t}`' for t in tests) or '—'} |")
    return lines


def cards_table(found: dict[str, list[str]]) -> list[str]:
    database = load_cards()
    lines = ["| card | effects (kind: tested) | implemented |", "|---|---|---|"]
    for card in database.cards:
        kinds = []
        if card.is_pokemon:
            kinds += [a.effect["kind"] for a in card.attacks if a.effect]
            if card.ability:
                kinds.append(card.ability["kind"])
        else:
            kinds.append(card.effect["kind"])
        marks = ", ".join(f"{k}: {'yes' if found.get('card:' + k) else 'NO'}" for k in kinds) or "damage only"
        lines.append(f"| {card.id} {card.name} | {marks} | yes |")
    return lines


def summary(found: dict[str, list[str]]) -> list[str]:
    rules = rule_ids()
    tested_rules = [r for r in rules if found.get(r)]
    kinds = set(ATTACK_EFFECT_KINDS) | set(ABILITY_KINDS) | set(TRAINER_KINDS)
    tested_kinds = {k for k in kinds if found.get("card:" + k)}
    return [f"Rules: {len(rules)} ids, {len(rules) - len(NOT_MODELLED)} implemented, {len(tested_rules)} with tests.",
            f"Effect kinds: {len(kinds)}, all implemented in both engines, {len(tested_kinds)} with L1 tests.",
            f"Cards: {len(load_cards())}, every effect implemented."]


def main() -> None:
    found = tests_by_marker()
    generated = "\n".join([BEGIN, "", *summary(found), "", "### Rules coverage", "", *rules_table(found), "",
                           "### Card coverage (A1 + Promo-A 001–007)", "", *cards_table(found), "", END])
    page = PAGE.read_text(encoding="utf-8")
    start, stop = page.index(BEGIN), page.index(END) + len(END)
    PAGE.write_text(page[:start] + generated + page[stop:], encoding="utf-8")
    print("\n".join(summary(found)))


if __name__ == "__main__":
    main()
