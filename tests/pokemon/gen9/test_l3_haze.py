"""L3 and L2 of Haze (``turn.haze_moves()``): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every
decision (the comparison of ``test_l3_restricted.py``).

Haze targets ``all``: ``useMoveInner`` runs it through ``tryMoveHit`` (no accuracy check, no hit loop, so none of its
``Update`` events; it runs with the foe fainted), and its ``onHitField`` clears the stages of every active not fainted
(a fainted one has none); it never fails. The cached speeds keep the old stages until the next refresh.

Teams are restricted pool teams each of whose Pokémon is given Haze as its first move; the players pick Haze or a
stat-stage move half the time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import assert_identical, move_requests, pp_spent

TABLES = tables.load()
HAZE = TABLES.move_index["haze"]


def _hazes(states) -> dict:
    """Over consecutive move decisions: Hazes used (PP spent) with some stage of either active not 0 before, and of them
    those that left every stage at 0 at the end of the turn."""
    seen = dict(used=0, cleared=0)
    for a, b, i in move_requests(states):
        for s in range(2):
            if b.active[i, s] == a.active[i, s] and pp_spent(a, b, i, s, HAZE):
                seen["used"] += 1
                seen["cleared"] += int(a.boosts[i].any() and not b.boosts[i].any())
    return seen


def test_moves_are_covered():
    assert turn.haze_moves() == ["haze"]
    assert set(turn.haze_moves()) <= set(turn.restricted_moves())


def test_haze_battles_match_showdown(showdown9):
    """32 battles of teams holding Haze on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["haze"], 32, 151)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _hazes(states)
    print(seen)
    assert seen["used"] >= 200 and seen["cleared"] >= 10, seen


def test_l2_haze_clears_both_sides(showdown9):
    """p1's leads use Swords Dance or Calm Mind twice while p2's use Haze on turn 2: both sides' stages cleared (no draw,
    no Update); p1 then attacks."""
    count = 16
    users = [_row(s, ["swordsdance", "earthquake"]) for s in ("garchomp", "excadrill")] + \
        [_row(s, ["calmmind", "earthquake"]) for s in ("clefable", "tinglu")]
    foes = [_row(s, ["haze", "swordsdance"]) for s in ("toxapex", "blissey", "kingambit")]
    states, actions, sets, seeds = _led(users, foes, count, 152, [[0, 1], [0, 0], [1, 1]])
    assert_identical(showdown9, states, actions, sets, seeds)
    cleared = sum(int(states[1].boosts[i].any() and not states[2].boosts[i].any()) for i in range(count)
                  if states[1].request[i] == S.REQUEST_MOVE and states[2].request[i] == S.REQUEST_MOVE)
    assert cleared >= 10, cleared
