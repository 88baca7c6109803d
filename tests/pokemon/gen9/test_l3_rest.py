"""L3 and L2 of the sleep stage (``turn.sleep_moves()``: Rest, Sleep Talk): Gen 9 battles of ``turn.step`` against Showdown,
state and PRNG after every decision (the comparison of ``test_l3_restricted.py``, which includes each Pokémon's sleep
turns and whether its sleep is its own doing, ``BattleState.self_sleep``).

Rest's ``onTry`` (after the PP, before the hit steps) fails on a sleeping user (one waking this turn has been cured
in ``BeforeMove`` and may rest again) and on one at full HP, drawing nothing and running no ``Update``; its ``onHit``
calls ``setStatus('slp')`` on its user: any other status (burn, poison, paralysis) is replaced, the Sleep Clause Mod
lets it through (its source is an ally) and does not count it later either (another Pokémon of the side may still be
put to sleep by the foe), slp's ``onStart`` draws its turns ``random(2, 5)``, which Rest overrides with 3 (two turns
asleep, the third one's ``BeforeMove`` wakes it and it moves), then a heal to the max HP and the hit's two Updates.

Sleep Talk (``sleepUsable``: slp's ``BeforeMove`` counts the turns down and lets it run) spends its PP, fails awake (its
``onTry``, no draw; a user waking this turn is awake), else draws ``random(n)`` over its user's callable moves (not
itself) in slot order and runs that one through ``useMove`` (its own draws, Updates, faints, self-switch; its PP not
spent; a called Rest fails), then Sleep Talk's two Updates.

Teams are restricted pool teams each of whose Pokémon is given Rest (and Sleep Talk) as its first moves; the players
pick them half the time.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    _usable_teams,
    assert_identical,
    move_mask,
    move_requests,
    play,
    pp_spent,
)

TABLES = tables.load()
REST = TABLES.move_index["rest"]
TALK = TABLES.move_index["sleeptalk"]


def _talks(states) -> dict:
    """Over the decisions of move requests: Sleep Talks used (PP spent) by a sleeper not waking (a move called: the foe
    hit, or not), by one awake or waking (failed)."""
    seen = dict(called=0, foe_hit=0, failed=0)
    for a, b, i in move_requests(states):
        for s in range(2):
            k, f = int(a.active[i, s]), int(a.active[i, 1 - s])
            if int(b.active[i, s]) != k or not pp_spent(a, b, i, s, TALK):
                continue
            if a.status[i, s, k] == S.SLP and a.status_count[i, s, k] > 1:
                seen["called"] += 1
                seen["foe_hit"] += int(b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
            else:
                seen["failed"] += 1
    return seen


def _rest_talk_battles(count: int, seed: int):
    """``count`` battles of usable pool teams each of whose Pokémon holds Rest and Sleep Talk first, chosen half the
    time."""
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    given = lambda team: [[*row[:5], ["rest", "sleeptalk"] + [m for m in row[5] if m not in ("rest", "sleeptalk")],
                           *row[6:]] for row in team]
    p1 = [given(DOCUMENT["teams"][int(n)]) for n in rng.choice(usable, count)]
    p2 = [given(DOCUMENT["teams"][int(n)]) for n in rng.choice(usable, count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(["rest", "sleeptalk"]))
    return states, actions, sets, seeds


def _rests(states) -> dict:
    """Over the decisions of move requests: Rests that succeeded (the user asleep for 3 at full HP), those that failed
    (PP spent, not asleep after), of them at full HP; rested Pokémon that woke and moved (asleep at 1, awake after, some
    PP spent), Rests replacing another status."""
    seen = dict(succeeded=0, failed=0, full=0, woke=0, replaced=0)
    for a, b, i in move_requests(states):
        for s in range(2):
            k = int(a.active[i, s])
            if int(b.active[i, s]) != k:
                continue
            if (a.status[i, s, k] == S.SLP and a.self_sleep[i, s, k] and a.status_count[i, s, k] == 1
                    and b.status[i, s, k] != S.SLP and (b.pp[i, s, k] < a.pp[i, s, k]).any()):
                seen["woke"] += 1
            if not pp_spent(a, b, i, s, REST):
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
    assert turn.sleep_moves() == ["rest", "sleeptalk"]
    assert set(turn.sleep_moves()) <= set(turn.restricted_moves())


def test_rest_battles_match_showdown(showdown9):
    """32 battles of teams holding Rest on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["rest"], 32, 121)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _rests(states)
    print(seen)
    assert seen["succeeded"] >= 200 and seen["failed"] >= 200 and seen["full"] >= 200, seen
    assert seen["woke"] >= 100 and seen["replaced"] >= 5, seen


def test_l2_rest_then_the_foe_sleeps_another(showdown9):
    """p1's lead is hit by Earthquake on turn 1, rests on turn 2 (asleep for two turns, its own doing), switches out on
    turn 3 to a Pokémon the foe's Spore puts to sleep: the Sleep Clause Mod does not count the rested one (the sleep
    fails where it would)."""
    count = 16
    users = [_row(s, ["rest", "earthquake"]) for s in ("snorlax", "garchomp", "hippowdon", "clefable")]
    foes = [_row(s, ["earthquake", "spore"]) for s in ("amoonguss", "breloom", "brutebonnet")]
    switch = 8 + 1
    states, actions, sets, seeds = _led(users, foes, count, 122, [[1, 0], [0, 0], [switch, 1]])
    assert_identical(showdown9, states, actions, sets, seeds)
    slept = 0
    for i in range(count):
        a, b, c = states[1], states[2], states[3]
        if a.hp[i, 0, 0] < a.max_hp[i, 0, 0] and a.request[i] == S.REQUEST_MOVE and b.request[i] == S.REQUEST_MOVE:
            assert b.status[i, 0, 0] == S.SLP and b.self_sleep[i, 0, 0] and b.status_count[i, 0, 0] == 3
            if c.active[i, 0] == 1 and c.status[i, 0, 0] == S.SLP and c.hp[i, 0, 1] > 0:
                slept += int(c.status[i, 0, 1] == S.SLP and not c.self_sleep[i, 0, 1])
    assert slept >= 5, slept


def test_rest_and_sleep_talk_battles_match_showdown(showdown9):
    """32 battles of teams holding Rest and Sleep Talk on every Pokémon, one of them chosen half the time: Sleep Talk
    while asleep calls one of the other moves (its draw, the called move's own draws and Updates, then Sleep Talk's two
    Updates; the called move's PP not spent), awake it fails."""
    states, actions, sets, seeds = _rest_talk_battles(32, 123)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen, rests = _talks(states), _rests(states)
    print(seen, rests)
    assert seen["called"] >= 100 and seen["foe_hit"] >= 40 and seen["failed"] >= 50, seen
    assert rests["succeeded"] >= 100, rests


def test_l2_sleep_talk_calls_rest_u_turn_and_a_multi_hit(showdown9):
    """Leads holding Rest, Sleep Talk, U-turn and Bullet Seed are hit on turn 1 (using Bullet Seed), rest on turn 2,
    then use Sleep Talk on turns 3 and 4 (asleep both times): the called Rest fails (asleep) with Sleep Talk's Updates
    still run, a called U-turn asks for a switch in the middle of the turn, a called Bullet Seed draws its count; no PP
    of a called move is spent."""
    count = 24
    users = [_row(s, ["rest", "sleeptalk", "uturn", "bulletseed"]) for s in ("scizor", "breloom", "snorlax", "heracross")]
    foes = [_row(s, ["earthquake"]) for s in ("hippowdon", "garchomp", "tyranitar")]
    states, actions, sets, seeds = _led(users, foes, count, 124, [[3, 0], [0, 0], [1, 0], [1, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _talks(states)
    switched = sum(int(st.request[i] == S.REQUEST_SWITCH and st.mid_turn[i]) for st in states[3:5] for i in range(count))
    print(seen, switched)
    assert seen["called"] >= 20 and switched >= 3, (seen, switched)
    for i in range(count):
        for n in (2, 3):
            a, b = states[n], states[n + 1]
            if a.active[i, 0] == 0 and b.active[i, 0] == 0 and a.status[i, 0, 0] == S.SLP:
                assert (b.pp[i, 0, 0, [0, 2, 3]] == a.pp[i, 0, 0, [0, 2, 3]]).all()
