"""Extended L3: whole battles under gen1randombattle rules between teams from Showdown's other
gen-1 team generators, so that moves random battles never use are played too.

``gen1challengecup``: random legal sets (learnset moves: the Wrap family, Bide, Metronome,
Disable, Thrash, Rage, Dig/Fly, OHKO moves, Leech Seed, Haze, ...); ``gen1hackmonscup``: any
moves, species and levels. Same comparison as test_l3_battles.py after every decision."""

from __future__ import annotations

import collections

import pytest

from pokejax import parity

DEFAULT_BATTLES = 15
SLOW_BATTLES = 300


def _moves_of(packed: str) -> set[str]:
    """Move ids of a packed Showdown team (field 4 of each ``]``-separated set)."""
    return {m for mon in packed.split("]") for m in mon.split("|")[4].split(",") if m}


def _run(showdown, team_format, indices, base):
    failures, moves, steps = [], collections.Counter(), 0
    for i in indices:
        result = parity.play_generated_battle(showdown, i, base, team_format)
        steps += result.steps
        for team in result.teams:
            moves.update(_moves_of(team))
        if not result.matched:
            failures.append(f"battle {i}: {result}\nteams: {result.teams}")
    assert not failures, f"{len(failures)} of {len(indices)} {team_format} battles diverged; first:\n{failures[0]}"
    return moves, steps


@pytest.mark.parametrize("team_format", ["gen1challengecup", "gen1hackmonscup"])
def test_generated_team_battles_identical(showdown, team_format):
    moves, steps = _run(showdown, team_format, range(DEFAULT_BATTLES), base=10)
    assert steps > 10 * DEFAULT_BATTLES
    assert len(moves) >= 80, f"only {len(moves)} distinct moves in the teams"


@pytest.mark.slow
@pytest.mark.parametrize("team_format", ["gen1challengecup", "gen1hackmonscup"])
def test_generated_team_battles_identical_slow(showdown, team_format):
    moves, _ = _run(showdown, team_format, range(SLOW_BATTLES), base=20)
    assert len(moves) >= 150, f"only {len(moves)} distinct moves in the teams"
