"""L3 of Rage Fist and the hit counter it reads (Showdown's ``timesAttacked``, compared for every Pokémon after every
decision by ``test_l3_restricted.py``'s comparison): its base power is min(350, 50 + 50 * timesAttacked); the
counter grows by the hits of every damaging move the Pokémon takes (a multi-hit move's every hit), none where the
move's last hit went to a substitute, and stays through switching. Gen 9 battles of ``turn.step`` against
Showdown, state and PRNG after every decision."""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    assert_identical,
    first_led_by,
    move_decisions,
    move_mask,
    play,
    preferring_battles,
    teams_holding,
)

RAGE_FIST = move_mask(["ragefist"])


def test_rage_fist_is_run():
    assert "ragefist" in turn.power_moves() and "ragefist" in turn.restricted_moves()


def test_rage_fist_battles_match_showdown(showdown9):
    """48 battles of teams with Rage Fist (the pool has few: each is drawn several times), it chosen half the
    time: used with a counter above zero, and counters of several hits."""
    teams = teams_holding(RAGE_FIST)
    states, actions = preferring_battles(showdown9, teams, 48, 101, RAGE_FIST, min_teams=8)
    powered = sum(move == "ragefist" and a.times_attacked[i, s, k] > 0
                  for a, b, i, s, k, f, act, move in move_decisions(states, actions))
    assert powered >= 20, powered
    assert max(int(st.times_attacked.max()) for st in states) >= 4


def test_l2_multi_hit_moves_into_a_substitute(showdown9):
    """Leads with a multi-hit move against leads with Substitute, both used three turns running: where the sub
    stands before the multi-hit move, hits go to it; where its last hit did, the Pokémon behind counts none."""
    rng = np.random.default_rng(103)
    p1 = first_led_by(set(turn.multihit_moves()), 24, rng)
    p2 = first_led_by(set(turn.substitute_moves()), 24, rng)
    n = min(len(p1), len(p2))
    assert n >= 12, (len(p1), len(p2))
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(n)]
    scripted = [[[p1[i][1], p2[i][1]]] * 3 for i in range(n)]
    states, actions, sets = play([t for t, _ in p1[:n]], [t for t, _ in p2[:n]], seeds, rng, scripted, max_decisions=6)
    assert_identical(showdown9, states, actions, sets, seeds)
    into_sub = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move in turn.multihit_moves() and s == 0 and a.sub_hp[i, 1] > 0 and b.sub_hp[i, 1] > 0:
            into_sub += int(b.active[i, 1] == f and b.times_attacked[i, 1, f] == a.times_attacked[i, 1, f])
    assert into_sub >= 1, into_sub
