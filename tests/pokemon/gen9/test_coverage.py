"""The coverage table of docs/envs/pokemon-gen9.md is current, and its L1 column rests on tests that
check what their markers claim."""

from __future__ import annotations

from pokejax.gen9 import accuracy, damage, order, turn
from tests.pokemon.gen9 import coverage


def test_the_coverage_table_on_the_page_is_current():
    text, _ = coverage.generated()
    page = coverage.PAGE.read_text(encoding="utf-8")
    start, stop = page.index(coverage.BEGIN), page.index(coverage.END) + len(coverage.END)
    assert page[start:stop] == text, "docs/envs/pokemon-gen9.md is stale: run `python -m tests.pokemon.gen9.coverage`"


def test_the_markers_name_known_groups_and_reach_every_function_covered_move():
    found = coverage.tests_by_item()
    assert all(found[f"move:{m}"]["damage"] for m in damage.kernel_moves())
    assert all(found[f"move:{m}"]["order"] for m in order.order_moves())
    assert all(found[f"move:{m}"]["accuracy"] for m in accuracy.accuracy_moves())
    names = coverage.format_names()
    f = coverage.figures(names, found)
    assert f["damage_l1"] == f["damage_kernel"] > 150 and f["moves_full"] == 0
    # every item the pool's teams hold is listed
    assert names["item"]["leftovers"] > 0 and "heavydutyboots" in names["item"]


def test_sole_blockers_are_uncovered_moves_each_keeping_pokemon_out():
    blockers = coverage.sole_blockers()
    covered = set(turn.restricted_moves())
    assert blockers and all(move not in covered and count > 0 for move, count in blockers)
    assert [c for _, c in blockers] == sorted((c for _, c in blockers), reverse=True)
    # a Pokémon kept out by one move only is counted once: with those run whole, no more than the pool
    f = coverage.restricted_figures(coverage.format_names())
    assert f["mons_restricted"] + sum(c for _, c in blockers) <= f["mons"]
