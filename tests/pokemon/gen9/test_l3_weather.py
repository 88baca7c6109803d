"""L3 (restricted): the weather against Showdown, state and PRNG after every decision.

Rain Dance and Sunny Day (``turn.weather_moves()``): ``setWeather`` failing on the weather already up, its
``WeatherChange`` speed sort, the residual's countdown (``Weather`` and its ``Update``, or the end's
``WeatherChange``), and what reads the weather: rain's and sun's ``onWeatherModifyDamage`` (Water and Fire moves, Hydro
Steam), Thunder's, Hurricane's and Bleakwind Storm's accuracy, Weather Ball, Solar Beam, Synthesis, Moonlight and
Morning Sun, and sun's immunity to freezing. Every record compares the weather and its turns left.
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

# the moves whose callbacks read the weather, as ``step`` runs them
READERS = ("thunder", "hurricane", "bleakwindstorm", "weatherball", "solarbeam", "synthesis", "moonlight", "morningsun",
           "hydrosteam")


def _weather_counts(runs) -> dict[str, int]:
    """Counts over ``holder_runs``' battles: weathers set, ended by their countdown, a weather move failing on its
    weather, Water and Fire moves used in rain or sun."""
    counts = dict(set=0, ended=0, failed=0, boosted=0)
    for states, actions, _, _ in runs:
        for a, b in zip(states, states[1:]):
            counts["set"] += int(((a.weather == S.WEATHER_NONE) & (b.weather != S.WEATHER_NONE)).sum())
            counts["ended"] += int(((a.weather_turns == 1) & (b.weather == S.WEATHER_NONE)
                                    & (a.request == S.REQUEST_MOVE)).sum())
        for a, b, i, s, k, f, act, move in move_decisions(states, actions):
            if move in turn.WEATHER_MOVES and a.weather[i] == turn.WEATHER_MOVES[move]:
                counts["failed"] += 1
            if a.weather[i] != S.WEATHER_NONE and TABLES.move_type[TABLES.move_index[move]] in (
                    TABLES.type_index["Water"], TABLES.type_index["Fire"]) and move not in turn.WEATHER_MOVES:
                counts["boosted"] += 1
    return counts


def test_weather_moves_match_showdown(showdown9):
    """Holders of Rain Dance or Sunny Day lead and set it on the first turn, then play random moves for the weather's
    five turns and past its end; then random battles of their teams choosing the weather move half the time (failing
    where it is up)."""
    script = lambda team, slot: [[slot, -1]] + [[-1, -1]] * 11
    runs = holder_runs(showdown9, turn.weather_moves(), np.random.default_rng(71), copies=3, min_leads=90,
                       random_count=32, turns=12, script=script, max_decisions=12)
    counts = _weather_counts(runs)
    assert counts["set"] >= 80 and counts["ended"] >= 20 and counts["failed"] >= 10 and counts["boosted"] >= 20, counts


def test_weather_readers_match_showdown(showdown9):
    """A weather holder (p1) sets its weather on the first turn while p2's lead uses a move that reads the weather
    (Thunder, Hurricane, Weather Ball, Solar Beam, Synthesis...) on every turn it may."""
    rng = np.random.default_rng(72)
    setters = holders_leading(turn.weather_moves())
    readers = holders_leading(READERS)
    picked = rng.choice(len(readers), 96, replace=False)
    readers = [readers[int(k)] for k in picked]
    p1 = [setters[n % len(setters)] for n in range(len(readers))]
    _, _, seeds = draw_battles(rng, usable_teams(), len(readers))
    scripted = [[[p1[n][1], readers[n][1]]] + [[-1, readers[n][1]]] * 9 for n in range(len(readers))]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in readers], seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    used = {}
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move in READERS and a.weather[i] != S.WEATHER_NONE:
            used[move] = used.get(move, 0) + 1
    assert sum(used.values()) >= 100 and len(used) >= 6, used


def test_sun_blocks_freezing_and_rain_thunder_never_misses(showdown9):
    """A Sunny Day lead (p1) against a lead using Ice Beam, Freeze-Dry, Blizzard or Ice Punch every turn (their freeze
    secondaries fail in sun), a Rain Dance lead against one using Thunder or Hurricane (no accuracy draw in rain)."""
    rng = np.random.default_rng(73)
    suns = holders_leading(["sunnyday"])
    rains = holders_leading(["raindance"])
    freezers = holders_leading(["icebeam", "freezedry", "blizzard", "icepunch"])
    thunders = holders_leading(["thunder", "hurricane"])
    count = 24
    p1 = [suns[n % len(suns)] for n in range(count)] + [rains[n % len(rains)] for n in range(count)]
    p2 = ([freezers[int(k)] for k in rng.choice(len(freezers), count, replace=False)]
          + [thunders[int(k)] for k in rng.choice(len(thunders), count, replace=False)])
    _, _, seeds = draw_battles(rng, usable_teams(), len(p1))
    scripted = [[[p1[n][1], -1]] + [[-1, p2[n][1]]] * 7 for n in range(len(p1))]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in p2], seeds, rng, scripted, max_decisions=8)
    assert_identical(showdown9, states, actions, sets, seeds)
    in_weather = sum(1 for a, b, i, s, k, f, act, move in move_decisions(states, actions)
                     if s == 1 and a.weather[i] != S.WEATHER_NONE and act % 4 == p2[i][1])
    assert in_weather >= 60, in_weather
