"""L3 and L2 of Curse as a Pokémon that is not a Ghost uses it (``turn.CURSE_MOVES``): its ``onModifyMove``
aims it at its user, its ``onTryHit`` gives it ``self`` stages (-1 Spe, +1 Atk, +1 Def), which selfDrops applies
after a ``random(100)``; the move never fails, so its hit's Updates run even when no stage moves. Gen 9 battles
of ``turn.step`` against Showdown, state and PRNG after every decision (``test_l3_restricted.py``'s comparison).
The restricted teams give Curse to no Pokémon that is a Ghost or Terastallizes into one.

L2: Curse leads against Curse leads, both cursing eight turns running (Speed at -6 after six, then Attack and
Defense at +6: the last uses move no stage).
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from pokejax.gen9.data.tables import BOOSTS
from tests.pokemon.gen9.test_l3_restricted import (
    BOOST_MOVES,
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    first_led_by,
    move_decisions,
    move_mask,
    play,
    preferring_battles,
    teams_holding,
)

CURSE = move_mask(["curse"])
GHOST = TABLES.type_index["Ghost"]


def test_curse_is_run_for_non_ghosts_only():
    assert "curse" in turn.restricted_moves() and "curse" in turn.boost_moves()
    holders = 0
    for n in _usable_teams():
        for original, row in zip(DOCUMENT["teams"][n], turn.restricted_team(DOCUMENT["teams"][n])):
            if "curse" in row[5]:
                holders += 1
                assert GHOST not in TABLES.species_types[TABLES.species_index[row[0]]] and row[6] != "Ghost"
    assert holders >= 20
    # a Ghost (by species or by its Tera type) loses Curse to the restriction
    ghost_row = ["snorlax", 88, "M", "leftovers", "thickfat", ["curse", "bodyslam", "rest", "sleeptalk"], "Ghost",
                 [85] * 6, [31] * 6]
    assert "curse" not in turn.restricted_team([ghost_row])[0][5]


def _uses(states, actions) -> dict:
    """Curse chosen by an active still in after the decision: from stages it moves ("moved"), or from Attack and
    Defense at +6 and Speed at -6 ("at_limits"). (Whether it ran as Showdown runs it is the L3 comparison's.)"""
    seen = {"moved": 0, "at_limits": 0}
    limits = np.zeros(7, np.int64)
    for stat, value in turn.CURSE_SELF_BOOSTS.items():
        limits[BOOSTS.index(stat)] = 6 * value
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move == "curse" and b.active[i, s] == k and b.hp[i, s, k] > 0:
            at_limits = all(a.boosts[i, s][j] == limits[j] for j in range(7) if limits[j] != 0)
            seen["at_limits" if at_limits else "moved"] += 1
    return seen


def test_curse_battles_match_showdown(showdown9):
    """48 battles of teams with Curse, it (or a stage move) chosen half the time."""
    teams = teams_holding(CURSE)
    states, actions = preferring_battles(showdown9, teams, 48, 83, CURSE | BOOST_MOVES, min_teams=40)
    assert _uses(states, actions)["moved"] >= 10


def test_l2_curse_to_the_limits(showdown9):
    rng = np.random.default_rng(89)
    leads = first_led_by({"curse"}, 24, rng)
    assert len(leads) >= 12, len(leads)
    half = len(leads) // 2
    p1, p2 = leads[:half], leads[half:2 * half]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(half)]
    scripted = [[[p1[i][1], p2[i][1]]] * 8 for i in range(half)]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in p2], seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _uses(states, actions)
    assert seen["at_limits"] >= 1 and seen["moved"] >= 6 * half, seen
