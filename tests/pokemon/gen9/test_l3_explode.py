"""L3 and L2 of Explosion (``turn.explode_moves()``): Gen 9 battles of ``turn.step`` against Showdown, state and
PRNG after every decision (the comparison of ``test_l3_restricted.py``).

Explosion faints its user after its TryMove events and before the target checks and the hit steps: the user
faints whether the move hits, misses, is blocked by Protect, finds a Ghost or no target; its faint is queued
before the target's, so when both sides run out at once the target's side wins. Restricted pool teams holding
Explosion, chosen half the time, against any usable team; L2: teams of six Pokémon with Explosion on both sides
(mutual Explosions, the slower one with no target left, battles ending on them with both sides out).
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    _usable_teams,
    assert_identical,
    draw_battles,
    move_decisions,
    move_mask,
    play,
    teams_holding,
)

EXPLODE_MOVES = move_mask(turn.explode_moves())


def _explosions(states, actions) -> dict:
    """Explosions used: the user fainted, the target fainted too, the target unharmed (blocked, immune, missed);
    decisions where both actives exploded (the slower one's target already fainted); battles ended by one, those
    where both sides ran out."""
    seen = {"used": 0, "user_down": 0, "both_down": 0, "target_unharmed": 0}
    used, ended, both_out = [], set(), set()
    for a, b, i, s, k, f, _, move in move_decisions(states, actions):
        if move != "explosion" or b.pp[i, s, k].sum() == a.pp[i, s, k].sum():
            continue
        used.append((id(b), i))
        seen["used"] += 1
        seen["user_down"] += int(b.hp[i, s, k] == 0)
        seen["both_down"] += int(b.hp[i, s, k] == 0 and b.hp[i, 1 - s, f] == 0)
        seen["target_unharmed"] += int(b.hp[i, 1 - s, f] == a.hp[i, 1 - s, f] and b.active[i, 1 - s] == f)
        if b.request[i] == S.REQUEST_ENDED and a.request[i] != S.REQUEST_ENDED:
            ended.add((id(b), i))
            if (b.hp[i] == 0).all():
                both_out.add((id(b), i))
    seen.update(mutual=len(used) - len(set(used)), ended=len(ended), both_out=len(both_out))
    return seen


def test_explosion_battles_match_showdown(showdown9):
    """48 battles of teams with Explosion (chosen half the time) against usable teams."""
    rng = np.random.default_rng(61)
    exploders = teams_holding(EXPLODE_MOVES)
    assert len(exploders) >= 20, len(exploders)
    count = 48
    p1, p2, seeds = draw_battles(rng, exploders, count, _usable_teams())
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=EXPLODE_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _explosions(states, actions)
    assert seen["used"] >= 20 and seen["user_down"] == seen["used"] and seen["both_down"] >= 3, seen


def _exploder_rows() -> dict[str, list]:
    """Pool rows (one per species) whose restricted set holds Explosion."""
    rows = {}
    for n in _usable_teams():
        team = DOCUMENT["teams"][n]
        for row, restricted in zip(team, turn.restricted_team(team)):
            if "explosion" in restricted[5]:
                rows.setdefault(row[0], row)
    return rows


def test_l2_teams_of_exploders(showdown9):
    """Both teams six Pokémon with Explosion, chosen nine times in ten: the slower of two exploding actives
    finds its target fainted and faints all the same (no target, no hit), and the battles end on Explosions,
    often with both sides out at once, where the side whose Pokémon fainted last wins."""
    rng = np.random.default_rng(62)
    rows = list(_exploder_rows().values())
    assert len(rows) >= 8, len(rows)
    count = 32
    teams = [[rows[int(k)] for k in rng.choice(len(rows), 6, replace=False)] for _ in range(2 * count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(teams[:count], teams[count:], seeds, rng, boost=0.9, prefer=EXPLODE_MOVES,
                                 max_decisions=150)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _explosions(states, actions)
    assert seen["user_down"] == seen["used"] and seen["mutual"] >= 30, seen
    assert seen["ended"] >= 16 and seen["both_out"] >= 3, seen
