"""L3 and L2 of Yawn (``turn.yawn_moves()``): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every
decision (the comparison of ``test_l3_restricted.py``, which includes each active's ``yawn`` volatile's duration,
``BattleState.yawn``).

Yawn's ``onTryHit`` fails on a target with a status (no accuracy draw: it never misses), ``addVolatile('yawn')`` on one
yawning already (no ``Update`` either way). The volatile lasts 2: its residual handler (order 23, after the statuses'
and before roost's; two of them tie on speed, the draw ordering them) counts it down and at the second residual ends
it with ``trySetStatus('slp')``, the yawner its source: it fails on a Pokémon with a status and under the Sleep Clause
Mod (another Pokémon of the side put to sleep by the foe), else draws the sleep turns ``random(2, 5)``. Switching out
and fainting remove it.

Teams are restricted pool teams each of whose Pokémon is given Yawn as its first move; the players pick it half the
time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import assert_identical, move_requests

TABLES = tables.load()


def _yawns(states) -> dict:
    """Over consecutive move decisions: yawns set (an active's duration 0 -> 1 after its first residual), yawns ending
    in sleep (1 -> 0, the holder asleep from no status), ending with no sleep (the holder still up and not newly
    asleep), both actives yawning at once."""
    seen = dict(set=0, slept=0, no_sleep=0, both=0)
    for a, b, i in move_requests(states):
        seen["both"] += int((b.yawn[i] > 0).all())
        for s in range(2):
            k = int(a.active[i, s])
            if b.active[i, s] != k:
                continue
            seen["set"] += int(a.yawn[i, s] == 0 and b.yawn[i, s] == 1)      # counted down at the residual
            if a.yawn[i, s] == 1 and b.yawn[i, s] == 0 and b.hp[i, s, k] > 0 and b.turn[i] > a.turn[i]:
                newly = a.status[i, s, k] == 0 and b.status[i, s, k] == S.SLP
                seen["slept" if newly else "no_sleep"] += 1
    return seen


def test_moves_are_covered():
    assert turn.yawn_moves() == ["yawn"]
    assert set(turn.yawn_moves()) <= set(turn.restricted_moves())


def test_yawn_battles_match_showdown(showdown9):
    """32 battles of teams holding Yawn on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["yawn"], 32, 161)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _yawns(states)
    print(seen)
    assert seen["set"] >= 100 and seen["slept"] >= 30 and seen["no_sleep"] >= 10 and seen["both"] >= 10, seen


def test_l2_yawn_in_a_mirror_match(showdown9):
    """Mirror matches of leads using Yawn on turn 1 and Protect on turn 2: both yawning (their handlers tie on speed),
    both fall asleep at turn 2's residual unless the Sleep Clause or a status stops it."""
    count = 24
    users = [_row(s, ["yawn", "protect"]) for s in ("blissey", "toxapex", "tinglu", "kingambit", "cinccino")]
    states, actions, sets, seeds = _led(users, None, count, 162, [[0, 0], [1, 1]])
    assert_identical(showdown9, states, actions, sets, seeds)
    both = sum(int((states[2].status[i, [0, 1], [0, 0]] == S.SLP).all()) for i in range(count))
    assert both >= 10, both
