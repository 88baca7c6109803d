"""L3 (restricted): screens and snow against Showdown, state and PRNG after every decision.

Reflect, Light Screen and Aurora Veil (``turn.screen_moves()``): set for five turns (failing where up, Aurora Veil
without snow), the damage they halve (not a critical hit's), their residual countdown and its ties, and their removal
by Brick Break, Psychic Fangs (``turn.SCREEN_BREAK_MOVES``: at the TryHit step, before the immunity) and Defog. Snow
(Snowscape): an Ice type's Defense, Blizzard's accuracy, Weather Ball, Solar Beam and the healing moves. Every record
compares each side's screens' turns left and the weather.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    TABLES,
    assert_identical,
    draw_battles,
    holder_runs,
    holders_leading,
    move_decisions,
    play,
    usable_teams,
)


def _hits_on_screens(runs) -> int:
    """Damaging moves used into a side with a screen up."""
    count = 0
    for states, actions, *_ in runs:
        for a, b, i, s, k, f, act, move in move_decisions(states, actions):
            damaging = TABLES.move_category[TABLES.move_index[move]] != 2
            count += int(damaging and (a.screens[i, 1 - s] > 0).any())
    return count


def test_screen_moves_match_showdown(showdown9):
    """Holders of Reflect, Light Screen or Aurora Veil lead and set it on the first turn, then random moves for seven
    more turns (the screen's end); then random battles of their teams choosing it half the time."""
    assert set(turn.screen_moves()) == {"reflect", "lightscreen", "auroraveil"}
    script = lambda team, slot: [[slot, -1]] + [[-1, -1]] * 9
    runs = holder_runs(showdown9, turn.screen_moves(), np.random.default_rng(81), copies=3, min_leads=90,
                       random_count=32, turns=10, script=script)
    set_, ended = 0, 0
    for states, *_ in runs:
        for a, b in zip(states, states[1:]):
            set_ += int(((a.screens == 0) & (b.screens > 0)).sum())
            ended += int(((a.screens == 1) & (b.screens == 0)).sum())
    assert set_ >= 60 and ended >= 15 and _hits_on_screens(runs) >= 150, (set_, ended, _hits_on_screens(runs))


def test_screen_breakers_match_showdown(showdown9):
    """A Reflect or Light Screen lead (p1) sets it on the first turn while p2's lead uses Brick Break, Psychic Fangs or
    Defog on every turn it may."""
    rng = np.random.default_rng(82)
    screens = holders_leading(["reflect", "lightscreen"])
    breakers = holders_leading(list(turn.SCREEN_BREAK_MOVES) + ["defog"])
    count = 64
    p2 = [breakers[int(k)] for k in rng.choice(len(breakers), count, replace=len(breakers) < count)]
    p1 = [screens[n % len(screens)] for n in range(count)]
    _, _, seeds = draw_battles(rng, usable_teams(), count)
    scripted = [[[p1[n][1], p2[n][1]]] + [[-1, p2[n][1]]] * 7 for n in range(count)]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in p2], seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    removed = sum(1 for a, b, i, s, k, f, act, move in move_decisions(states, actions)
                  if s == 1 and move in turn.SCREEN_BREAK_MOVES + ("defog",) and (a.screens[i, 0] > 1).any()
                  and (b.screens[i, 0] == 0).all())
    assert removed >= 15, removed


def test_snow_and_aurora_veil_match_showdown(showdown9):
    """A Snowscape lead (p1) sets snow on the first turn while p2's lead uses Aurora Veil, Blizzard or a move reading
    the weather (Weather Ball, Solar Beam, Synthesis, Moonlight, Morning Sun) on every turn it may; and Ice-type leads
    taking physical hits in snow."""
    rng = np.random.default_rng(83)
    snow = holders_leading(["snowscape"])
    veils = holders_leading(["auroraveil"])
    readers = holders_leading(["blizzard", "weatherball", "solarbeam", "synthesis", "moonlight", "morningsun"])
    count = 72
    p2 = veils + [readers[int(k)] for k in rng.choice(len(readers), count - len(veils), replace=False)]
    p1 = [snow[n % len(snow)] for n in range(count)]
    _, _, seeds = draw_battles(rng, usable_teams(), count)
    scripted = [[[p1[n][1], -1]] + [[-1, p2[n][1]]] * 7 for n in range(count)]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in p2], seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    used = {}
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if s == 1 and a.weather[i] == S.SNOW:
            used[move] = used.get(move, 0) + 1
    assert sum(used.values()) >= 80 and used.get("auroraveil", 0) >= 10 and used.get("blizzard", 0) >= 10, used
    veiled = sum(int(st.screens[i, 1, 2] > 0) for st in states for i in range(len(seeds)))
    assert veiled >= 20, veiled


def test_multi_hit_moves_into_two_screens_match_showdown(showdown9):
    """A lead holding Reflect and Light Screen (p1) sets both on the first two turns while p2's lead uses a multi-hit
    move (``turn.multihit_moves()``) on every turn it may: each hit's ``ModifyDamage`` sort draws once for the two
    screens, between its damage roll and its ``Update``."""
    rng = np.random.default_rng(84)
    dual = [(team, turn.restricted_team(team)[0][5]) for team, _ in holders_leading(["reflect", "lightscreen"])]
    dual = [(team, moves.index("reflect"), moves.index("lightscreen")) for team, moves in dual
            if {"reflect", "lightscreen"} <= set(moves)]
    hitters = holders_leading(turn.multihit_moves())
    count = 48
    p1 = [dual[n % len(dual)] for n in range(count)]
    p2 = [hitters[int(k)] for k in rng.choice(len(hitters), count, replace=False)]
    _, _, seeds = draw_battles(rng, usable_teams(), count)
    scripted = [[[p1[n][1], p2[n][1]], [p1[n][2], p2[n][1]]] + [[-1, p2[n][1]]] * 6 for n in range(count)]
    states, actions, sets = play([t for t, *_ in p1], [t for t, _ in p2], seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    into_two = sum(1 for a, b, i, s, k, f, act, move in move_decisions(states, actions)
                   if s == 1 and move in turn.multihit_moves() and (a.screens[i, 0] > 0).sum() == 2)
    assert into_two >= 30, into_two
