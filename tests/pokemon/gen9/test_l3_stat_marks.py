"""L3 and L2 of the moves that read the turn's stage changes: Alluring Voice (its secondary, chance 100,
confuses a target whose stages rose this turn: Showdown's ``statsRaisedThisTurn``) and Lash Out (its base
power doubled when its user's stages fell this turn: ``statsLoweredThisTurn``), Gen 9 battles of
``turn.step`` against Showdown, state and PRNG after every decision (``test_l3_restricted.py``'s
comparison, which holds both marks of each active: ``BattleState.raised`` and ``lowered``, set by every
stage change that moved a stage, cleared at the next turn and on switching).

L2 scenarios: an Alluring Voice lead against a lead raising its own stages (confused only when the raise came
first that turn); a Lash Out lead against a lead whose damaging move lowers its target's stages (doubled only
when the drop came first).
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    BOOST_MOVES,
    TABLES,
    assert_identical,
    first_led_by,
    move_decisions,
    move_mask,
    play,
    preferring_battles,
    teams_holding,
)

L2_DECISIONS = 10
MARK_MOVES = ("alluringvoice", "lashout")
MARKED = move_mask(MARK_MOVES)
_PRIM, _, _, _SEC, _, _CHANCE, *_ = turn._boost_tables()
# status moves raising their user's stages; damaging moves lowering their target's stages every time
RAISING = {TABLES.move_ids[i] for i in range(1, len(TABLES.move_ids)) if (_PRIM[i] > 0).any()}
LOWERING = {TABLES.move_ids[i] for i in range(1, len(TABLES.move_ids)) if (_SEC[i] < 0).any() and _CHANCE[i] == 100}


def test_the_moves_are_run_whole():
    assert set(MARK_MOVES) <= set(turn.restricted_moves())
    assert "alluringvoice" in turn.confusion_moves() and "lashout" in turn.power_moves()
    assert turn._power_columns()["confuse_if_raised"].sum() == 1
    assert RAISING and LOWERING


def _uses(states, actions) -> dict:
    """Alluring Voice hitting a target whose stages rose that turn and confusing it, or hitting one whose stages
    did not rise; Lash Out hitting after its user's stages fell that turn."""
    seen = {"voice_confused": 0, "voice_plain": 0, "lash_dropped": 0, "lash_plain": 0}
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        stayed = b.active[i, 1 - s] == f and b.active[i, s] == k
        hit = stayed and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        if move == "alluringvoice" and hit:
            rose = (b.boosts[i, 1 - s] > a.boosts[i, 1 - s]).any()
            confused = b.confusion[i, 1 - s] > 0 and a.confusion[i, 1 - s] == 0
            seen["voice_confused"] += int(rose and confused)
            seen["voice_plain"] += int(not rose and not confused)
        if move == "lashout" and hit:
            fell = (b.boosts[i, s] < a.boosts[i, s]).any()
            seen["lash_dropped" if fell else "lash_plain"] += 1
    return seen


def test_mark_battles_match_showdown(showdown9):
    """48 battles of teams with Alluring Voice or Lash Out, one of them (or a stage move) chosen half the time."""
    teams = teams_holding(MARKED)
    states, actions = preferring_battles(showdown9, teams, 48, 71, MARKED | BOOST_MOVES, min_teams=60)
    seen = _uses(states, actions)
    assert seen["voice_plain"] >= 10 and seen["lash_plain"] >= 1, seen


def _duel(showdown9, mine: set[str], theirs: set[str], seed: int, count: int = 24):
    """Leads with a move of ``mine`` against leads with a move of ``theirs``, both used three turns running."""
    rng = np.random.default_rng(seed)
    p1, p2 = first_led_by(mine, count, rng), first_led_by(theirs, count, rng)
    n = min(len(p1), len(p2))
    assert n >= 12, (len(p1), len(p2))
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(n)]
    scripted = [[[p1[i][1], p2[i][1]]] * 3 for i in range(n)]
    states, actions, sets = play([t for t, _ in p1[:n]], [t for t, _ in p2[:n]], seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    return _uses(states, actions)


def test_l2_alluring_voice_after_a_raise(showdown9):
    seen = _duel(showdown9, {"alluringvoice"}, RAISING, 73)
    assert seen["voice_confused"] >= 1 and seen["voice_plain"] >= 1, seen


def test_l2_lash_out_after_a_drop(showdown9):
    seen = _duel(showdown9, {"lashout"}, LOWERING, 79, count=16)
    assert seen["lash_dropped"] >= 1, seen
