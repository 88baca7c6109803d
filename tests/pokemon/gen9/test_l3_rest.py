"""L3 and L2 of the sleep stage (``turn.sleep_moves()``: Rest): Gen 9 battles of ``turn.step`` against Showdown,
state and PRNG after every decision (the comparison of ``test_l3_restricted.py``, which includes each Pokémon's sleep
turns and whether its sleep is its own doing, ``BattleState.self_sleep``).

Rest's ``onTry`` (after the PP, before the hit steps) fails on a sleeping user (one waking this turn has been cured
in ``BeforeMove`` and may rest again) and on one at full HP, drawing nothing and running no ``Update``; its ``onHit``
calls ``setStatus('slp')`` on its user: any other status (burn, poison, paralysis) is replaced, the Sleep Clause Mod
lets it through (its source is an ally) and does not count it later either (another Pokémon of the side may still be
put to sleep by the foe), slp's ``onStart`` draws its turns ``random(2, 5)``, which Rest overrides with 3 (two turns
asleep, the third one's ``BeforeMove`` wakes it and it moves), then a heal to the max HP and the hit's two Updates.

Teams are restricted pool teams each of whose Pokémon is given Rest as its first move; the players pick it half the
time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import compare

TABLES = tables.load()
REST = TABLES.move_index["rest"]


def _rests(states) -> dict:
    """Over the decisions of move requests: Rests that succeeded (the user asleep for 3 at full HP), those that failed
    (PP spent, not asleep after), of them at full HP; rested Pokémon that woke and moved (asleep at 1, awake after, some
    PP spent), Rests replacing another status."""
    seen = dict(succeeded=0, failed=0, full=0, woke=0, replaced=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if a.request[i] != S.REQUEST_MOVE:
                continue
            for s in range(2):
                k = int(a.active[i, s])
                if int(b.active[i, s]) != k:
                    continue
                slots = list(a.moves[i, s, k])
                if (a.status[i, s, k] == S.SLP and a.self_sleep[i, s, k] and a.status_count[i, s, k] == 1
                        and b.status[i, s, k] != S.SLP and (b.pp[i, s, k] < a.pp[i, s, k]).any()):
                    seen["woke"] += 1
                if REST not in slots:
                    continue
                j = slots.index(REST)
                if b.pp[i, s, k, j] == a.pp[i, s, k, j]:
                    continue
                if b.status[i, s, k] == S.SLP and b.self_sleep[i, s, k] and a.status[i, s, k] != S.SLP:
                    seen["succeeded"] += 1
                    assert b.status_count[i, s, k] == 3
                    seen["replaced"] += int(a.status[i, s, k] != 0)
                else:
                    seen["failed"] += 1
                    seen["full"] += int(a.hp[i, s, k] == a.max_hp[i, s, k])
    return seen


def test_moves_are_covered():
    assert turn.sleep_moves() == ["rest"]
    assert set(turn.sleep_moves()) <= set(turn.restricted_moves())


def test_rest_battles_match_showdown(showdown9):
    """32 battles of teams holding Rest on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["rest"], 32, 121)
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, f"{len(problems)}/32 battles differ; first: {problems[:2]}"
    seen = _rests(states)
    print(seen)
    assert seen["succeeded"] >= 200 and seen["failed"] >= 200 and seen["full"] >= 200, seen
    assert seen["woke"] >= 100 and seen["replaced"] >= 10, seen


def test_l2_rest_then_the_foe_sleeps_another(showdown9):
    """p1's lead is hit by Earthquake on turn 1, rests on turn 2 (asleep for two turns, its own doing), switches out on
    turn 3 to a Pokémon the foe's Spore puts to sleep: the Sleep Clause Mod does not count the rested one (the sleep
    fails where it would)."""
    count = 16
    users = [_row(s, ["rest", "earthquake"]) for s in ("snorlax", "garchomp", "hippowdon", "clefable")]
    foes = [_row(s, ["earthquake", "spore"]) for s in ("amoonguss", "breloom", "brutebonnet")]
    switch = 8 + 1
    states, actions, sets, seeds = _led(users, foes, count, 122, [[1, 0], [0, 0], [switch, 1]])
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, problems[:2]
    slept = 0
    for i in range(count):
        a, b, c = states[1], states[2], states[3]
        if a.hp[i, 0, 0] < a.max_hp[i, 0, 0] and a.request[i] == S.REQUEST_MOVE and b.request[i] == S.REQUEST_MOVE:
            assert b.status[i, 0, 0] == S.SLP and b.self_sleep[i, 0, 0] and b.status_count[i, 0, 0] == 3
            if c.active[i, 0] == 1 and c.status[i, 0, 0] == S.SLP and c.hp[i, 0, 1] > 0:
                slept += int(c.status[i, 0, 1] == S.SLP and not c.self_sleep[i, 0, 1])
    assert slept >= 5, slept
