"""L3 and L2 of the self-switch moves (``turn.switch_moves()``: U-turn, Volt Switch, Flip Turn, Parting
Shot): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision (the
comparison of ``test_l3_restricted.py``, which includes whether a switch request is one in the middle
of a turn, ``midTurn``, and each side's move action still queued, ``queued``).

A self-switch that hit (or Parting Shot whose drop moved a stage) makes Showdown send its user's side a
switch request in the middle of the turn (the other side waits: action -1); the turn then goes on after
that choice: the switch-in (its entry hazards; fainting on them), the other side's move action if it had
not run yet (against the new Pokémon), the residual. With no other Pokémon left nothing happens, and a
Volt Switch into a Ground type (immune) switches nothing.

Teams are restricted pool teams each of whose Pokémon is given one of the moves under test as its first
move (Showdown builds a battle of given sets without validating them); the players pick those moves half
the time.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_confusion import _battles, _given
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    _usable_teams,
    assert_identical,
    move_mask,
    play,
)

SWITCH = turn.switch_moves()
ATK, SPA = 0, 2


def _mid_turn(states) -> dict:
    """Over the decisions: mid-turn switch requests, those with the other side's move still queued, and
    resumed turns that ended in a faint request (the switch-in or the foe fainting)."""
    seen = dict(requests=0, queued=0, double=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if b.mid_turn[i]:
                seen["requests"] += 1
                seen["queued"] += int((b.queued[i] >= 0).any())
                seen["double"] += int(a.mid_turn[i])       # a second self-switch in the same turn
    return seen


def test_moves_are_covered():
    assert {"uturn", "voltswitch", "flipturn", "partingshot"} == set(SWITCH)
    assert set(SWITCH) <= set(turn.restricted_moves())


def test_switch_battles_match_showdown(showdown9):
    """32 battles of teams holding a self-switch move on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(SWITCH, 32, 81)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _mid_turn(states)
    print(seen)
    assert seen["requests"] >= 100 and seen["queued"] >= 30 and seen["double"] >= 3, seen
    assert int((states[-1].request == S.REQUEST_ENDED).sum()) >= 8    # Protect, Substitute and Rest in the teams lengthen them


def _play(p1: list[list], p2: list[list], count: int, seed: int, scripted, max_decisions: int = 40):
    """``count`` battles of the teams ``p1[i % len(p1)]`` against ``p2[i % len(p2)]`` (pool rows), the
    ``scripted`` actions first (a scripted action illegal at a decision, e.g. a move at a switch request,
    is replaced by a random legal one), then random ones."""
    rng = np.random.default_rng(seed)
    a = [p1[i % len(p1)] for i in range(count)]
    b = [p2[i % len(p2)] for i in range(count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(a, b, seeds, rng, [scripted] * count, max_decisions=max_decisions)
    return states, actions, sets, seeds


def _switched_in(states, side: int):
    """``(battle, before, after)`` of each mid-turn switch-in of ``side``: the decision answering its
    mid-turn switch request."""
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if a.mid_turn[i] and a.switch_flag[i, side] and a.request[i] == S.REQUEST_SWITCH:
                yield i, a, b


def test_l2_uturn_into_faster_and_slower_foes(showdown9):
    """Leads using U-turn against leads attacking: a faster U-turn user switches before the foe's move
    (still queued, it then hits the Pokémon that came in), a slower one after it (only the residual
    left); mirror matches tie on speed."""
    count = 24
    users = [_row(s, ["uturn"]) for s in ("landorustherian", "meowscarada", "scizor", "lokix", "dragapult",
                                          "hawlucha")]
    foes = [_row(s, ["earthquake"]) for s in ("hippowdon", "garchomp", "excadrill", "landorustherian")]
    states, actions, sets, seeds = _led(users, foes, count, 82, [[0, 0]] * 6)
    assert_identical(showdown9, states, actions, sets, seeds)
    first = second = 0
    for i, a, b in _switched_in(states, 0):
        first += int(a.queued[i, 1] >= 0)
        second += int(a.queued[i, 1] < 0)
    assert first >= 8 and second >= 8, (first, second)


def test_l2_uturn_with_no_bench(showdown9):
    """Battles of U-turn teams chosen 70 % of the time, played long: the last Pokémon of a team (no other
    left: ``canSwitch`` is 0) uses its self-switch move, which hits and switches nothing; the turn goes
    on (the foe's queued move, the residual)."""
    count = 24
    rng = np.random.default_rng(83)
    p1 = [_given(DOCUMENT["teams"][int(n)], SWITCH, rng) for n in rng.choice(_usable_teams(), count)]
    p2 = [_given(DOCUMENT["teams"][int(n)], SWITCH, rng) for n in rng.choice(_usable_teams(), count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.7, prefer=move_mask(SWITCH), max_decisions=200)
    assert_identical(showdown9, states, actions, sets, seeds)
    alone = 0
    for a, b in zip(states, states[1:]):
        for i in range(count):
            for s in range(2):
                k = int(a.active[i, s])
                spent = b.pp[i, s, k, 0] < a.pp[i, s, k, 0]          # slot 0: the self-switch move
                last = int((a.hp[i, s] > 0).sum()) == 1
                if a.request[i] == S.REQUEST_MOVE and spent and last and b.hp[i, 1 - s, int(a.active[i, 1 - s])] < a.hp[i, 1 - s, int(a.active[i, 1 - s])]:
                    alone += 1
                    assert not (b.mid_turn[i] and b.switch_flag[i, s])
    assert alone >= 10, alone


def test_l2_volt_switch_into_a_ground_type(showdown9):
    """Volt Switch into a Ground type: immune, no damage, no switch; the same users U-turn next (a switch)."""
    count = 24
    users = [_row(s, ["voltswitch", "uturn"]) for s in ("rotom", "jolteon", "zapdos", "raikou")]
    ground = [_row(s, ["earthquake"]) for s in ("hippowdon", "tinglu", "garchomp", "excadrill", "clodsire")]
    states, actions, sets, seeds = _led(users, ground, count, 84, [[0, 0], [1, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    immune = 0
    for i in range(count):
        a, b = states[0], states[1]
        if b.pp[i, 0, 0, 0] < a.pp[i, 0, 0, 0]:
            immune += 1
            assert not b.mid_turn[i] and b.active[i, 0] == 0
            # no damage from the Volt Switch (the foe's own move does not lower its HP)
            assert b.hp[i, 1, 0] == a.hp[i, 1, 0]
    assert immune >= 12, immune
    assert sum(int(st.mid_turn.sum()) for st in states[2:4]) >= 8


def _all(team: list, moves: list[str]) -> list:
    """``team`` (pool rows) with ``moves`` first on every Pokémon."""
    return [[*row[:5], list(moves) + [m for m in row[5] if m not in moves], *row[6:]] for row in team]


def test_l2_parting_shot_drops(showdown9):
    """Teams of Parting Shot users against a lead using Soft-Boiled: each Parting Shot lowers its
    target's Atk and SpA (-1 each) and switches; at -6 both it moves no stage and switches nothing."""
    count = 24
    rng = np.random.default_rng(85)
    users = [_all(DOCUMENT["teams"][int(n)], ["partingshot"]) for n in rng.choice(_usable_teams(), 6)]
    walls = [[_row(s, ["softboiled"])] + DOCUMENT["teams"][int(n)][1:]
             for s, n in zip(("blissey", "chansey"), rng.choice(_usable_teams(), 2))]
    states, actions, sets, seeds = _play(users, walls, count, 86, [[0, 0]] * 40, max_decisions=30)
    assert_identical(showdown9, states, actions, sets, seeds)
    dropped = stuck = 0
    for a, b in zip(states, states[1:]):
        for i in range(count):
            k = int(a.active[i, 0])
            if a.request[i] != S.REQUEST_MOVE or b.pp[i, 0, k, 0] == a.pp[i, 0, k, 0] or b.active[i, 1] != a.active[i, 1]:
                continue
            if a.boosts[i, 1, ATK] > -6 or a.boosts[i, 1, SPA] > -6:
                dropped += int(b.boosts[i, 1, ATK] == max(a.boosts[i, 1, ATK] - 1, -6)
                               and b.boosts[i, 1, SPA] == max(a.boosts[i, 1, SPA] - 1, -6) and b.mid_turn[i])
            else:
                stuck += 1
                assert not b.mid_turn[i]
    assert dropped >= 60 and stuck >= 10, (dropped, stuck)


def _hazard_battles(seed: int, team: list[str]):
    """Teams of Pokémon 4x weak to Stealth Rock using U-turn (``team``) against a Skarmory laying Stealth
    Rock, then three layers of Spikes."""
    count = 24
    users = [[_row(s, ["uturn"]) for s in team[k:] + team[:k]] + DOCUMENT["teams"][k][len(team):]
             for k in range(len(team))]
    setter = [[_row("skarmory", ["stealthrock", "spikes", "bravebird"])] + DOCUMENT["teams"][k][1:] for k in range(4)]
    scripted = [[0, 0], [0, 1], [0, 1], [0, 1]] + [[0, 2]] * 30
    states, actions, sets, seeds = _play(users, setter, count, seed, scripted, max_decisions=30)
    return states, actions, sets, seeds


def test_l2_self_switch_into_hazards(showdown9):
    """U-turn users switching in mid-turn onto Stealth Rock and Spikes (their damage at the switch-in,
    before the foe's queued move); Flying types take no Spikes."""
    states, actions, sets, seeds = _hazard_battles(87, ["volcarona", "frosmoth", "articuno", "scizor", "lokix"])
    assert_identical(showdown9, states, actions, sets, seeds)
    hurt = 0
    for i, a, b in _switched_in(states, 0):
        k = int(b.active[i, 0])
        hurt += int(b.hp[i, 0, k] < a.hp[i, 0, k] and (a.hazards[i, 0] > 0).any())
    assert hurt >= 30, hurt


def test_l2_self_switch_into_a_hazard_faint(showdown9):
    """The same with grounded Pokémon 4x weak to Stealth Rock: switch-ins fainting on the hazards in the
    middle of the turn (the foe's queued move then has no target; the faint request comes after the
    residual, or the battle ends there)."""
    states, actions, sets, seeds = _hazard_battles(88, ["volcarona", "frosmoth", "charizard", "articuno"])
    assert_identical(showdown9, states, actions, sets, seeds)
    fainted = 0
    for i, a, b in _switched_in(states, 0):
        fainted += int(b.hp[i, 0, int(b.active[i, 0])] == 0)
    assert fainted >= 10, fainted
