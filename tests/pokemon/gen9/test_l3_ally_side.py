"""L3 of the status moves aimed at their own side (``turn.ally_side_moves()``): Gen 9 battles of ``turn.step``
against Showdown, state and PRNG after every decision (the comparison of ``test_l3_restricted.py``).

Heal Bell cures the status of every Pokémon of its user's side that is not fainted, the benched ones too; Aurora
Veil (one of ``turn.screen_moves()``) fails without snow, spending its PP (few of these battles have snow; its screen:
``test_l3_screens.py``). Both run through ``tryMoveHit``: no
accuracy check, no hit loop and none of its Update events, and they run when the foe has fainted earlier in the
turn. Restricted pool teams holding one of them, chosen half the time, against teams holding a status move of
``turn.status_moves()``, chosen half the time.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    assert_identical,
    draw_battles,
    move_decisions,
    move_mask,
    play,
    teams_holding,
)

ALLY_SIDE_MOVES = move_mask(turn.ally_side_moves() + ["auroraveil"])
STATUS_MOVES = move_mask(turn.status_moves())


def test_heal_bell_and_aurora_veil_battles_match_showdown(showdown9):
    """48 battles of teams with Heal Bell or Aurora Veil against teams with status moves."""
    rng = np.random.default_rng(71)
    users = teams_holding(ALLY_SIDE_MOVES)
    assert len(users) >= 20, len(users)
    count = 48
    p1, p2, seeds = draw_battles(rng, users, count, teams_holding(STATUS_MOVES))
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=ALLY_SIDE_MOVES | STATUS_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = {"healbell": 0, "cured_active": 0, "cured_benched": 0, "auroraveil": 0}
    for a, b, i, s, k, f, _, move in move_decisions(states, actions):
        if move not in seen or b.pp[i, s, k].sum() == a.pp[i, s, k].sum():
            continue
        seen[move] += 1
        if move == "healbell":
            cured = (a.status[i, s] != 0) & (b.status[i, s] == 0) & (b.hp[i, s] > 0)
            seen["cured_active"] += int(cured[k])
            seen["cured_benched"] += int(cured.sum() - cured[k])
    assert seen["healbell"] >= 10 and seen["auroraveil"] >= 10, seen
    assert seen["cured_active"] >= 2 and seen["cured_benched"] >= 2, seen
